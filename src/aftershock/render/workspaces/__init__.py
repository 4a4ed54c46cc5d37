"""The folders Helm reads: a materialised chart prepared with its dependencies, partial copies
without failing templates, copies a test needs, and where they are written."""
