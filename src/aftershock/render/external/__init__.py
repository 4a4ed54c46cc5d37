"""Charts from outside the repository: archives in the chart cache, verified; the locked
dependencies and the releases' charts they answer; pulls from chart repositories and OCI
registries, bounded."""
