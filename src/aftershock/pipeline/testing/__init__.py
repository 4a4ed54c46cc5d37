"""The test step: the affected charts' helm-unittest suites run at head and base in the review's
workspace."""
