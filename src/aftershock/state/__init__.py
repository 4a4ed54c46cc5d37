"""Review state across pushes: the store of past reviews, the lifecycle of findings, and review modes.

`store` opens the database and records reviews, decisions and history; `lifecycle` compares the
findings of two reviews (pure); `mode` decides between a full and an incremental review (pure);
`migrations` owns the ordered schema changes, `locks` the per-target serialisation of reviews.
"""
