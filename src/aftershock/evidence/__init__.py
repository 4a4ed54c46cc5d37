"""Test evidence for a review, as pure functions: test outcomes compared between base and head,
and the guard map linking changed rendered fields to the assertions that pin them.
The side effects (running the suites, reading the workspaces) live in `pipeline.testing.tests`."""
