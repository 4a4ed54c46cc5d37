"""The GitOps objects a ref holds unrendered: Flux Kustomizations and their sources, kustomizations
and what they read, patch and namespace, plain manifests and the objects `.aftershock.yaml`
declares for the cluster."""
