"""What a review observes after its renders, within its budget: the tests, the provenance of each
changed field, and the override-trap probes."""
