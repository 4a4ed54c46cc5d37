"""Workload rules: service account tokens, probes, resources and rollout strategy."""
