"""Layer 3 of a review: the semantic diff of rendered Kubernetes objects (pure functions, no I/O).

`objects.diff_objects` is the entry point; it uses `normalize` (Helm noise, unstable values),
`matching` (pairing by key, group move and rename), `fields` (field-level diff over `paths` and
`values`) and `redact` (Secret values never shown).
"""
