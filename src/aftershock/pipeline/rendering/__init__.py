"""The render stage: its input, each chart's render jobs at both refs, what each side's renders
gave, the diff of a chart, the changed template lines traced through the renders, and the
dependencies resolved from history as charts come to be rendered."""
