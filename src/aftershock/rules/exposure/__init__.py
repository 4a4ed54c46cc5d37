"""Exposure rules: Services and Ingresses that open the workload beyond the cluster."""
