"""Values-contract rules: values keys, values.schema.json and chart tests, read from the repository's sources.

They need `SourceTexts` (see rules.model); without sources they find nothing. Rules that need a render
with synthetic values (the override trap: a partial override of a default list that a template
merges) are not here yet: they need the pipeline to render extra scenarios.
"""
