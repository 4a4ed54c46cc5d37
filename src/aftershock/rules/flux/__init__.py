"""Flux rules: HelmRelease and Kustomization dependencies, remediation and timeouts."""
