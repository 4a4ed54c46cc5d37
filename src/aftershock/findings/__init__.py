"""Findings: what a rule concluded about a change, with severity, confidence, evidence and a stable identity.

`model` holds the vocabulary (Finding and its parts), `document` the JSON section of a review,
`schema` that section's JSON Schema, and `markdown` the pull-request comment fragment.
"""
