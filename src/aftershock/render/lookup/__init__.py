"""What Helm's `lookup` sees: the cluster snapshot, the read-only API server on loopback that
serves it, and the line traces observed through it."""
