"""GitOps inputs: Flux Kustomizations, kustomizations and plain manifests the repository holds
unrendered, built at both refs, with the file that declares each built object."""
