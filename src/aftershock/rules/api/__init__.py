"""Rules about objects as the Kubernetes API server reads them: schemas of built-in kinds and CRDs."""
