"""Review state across pushes: the store of past reviews, decisions and history.

`store` opens the database and records reviews, decisions and history; `migrations` owns the
ordered schema changes, `locks` the per-target serialisation of reviews. What the store holds is
pure data in `model/` (`state_records`, `state_lifecycle` comparing the findings of two reviews,
`state_mode` deciding between a full and an incremental review, `state_scope`).
"""
