"""Findings: what a rule concluded about a change, with severity, confidence, evidence and a stable identity.

`model` holds the vocabulary (Finding and its parts), `document` the JSON section of a review,
`suppressions` and `dismissals` what the repository silences. Its comment fragment is
`report.comment.findings_markdown`.
"""
