"""Rules about the sources of a GitOps repository: objects declared twice."""
