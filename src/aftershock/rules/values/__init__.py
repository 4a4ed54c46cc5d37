"""Values-contract rules: values keys, values.schema.json, chart tests and the override trap.

Most read the repository's sources (`SourceTexts`, see rules.model) and find nothing without them.
The override trap reads `Review.override_probes`, which the pipeline's override-trap stage renders
(a partial override of a default list that a template merges); the rules themselves never render.
"""
