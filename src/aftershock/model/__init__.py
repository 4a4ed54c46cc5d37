"""Frozen dataclasses shared by every stage: the vocabulary of a review (change, units, objects,
diff, review, tests and test results, provenance, the judgement and the recorded review, the review
state's records), and the errors and exit statuses every layer raises and returns."""
