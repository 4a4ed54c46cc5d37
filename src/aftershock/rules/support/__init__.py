"""Helpers shared by rules: the review index, object pairs, pod specs, judging base against head,
locations in the change, RBAC grants and Kubernetes versions. None of these is a rule."""
