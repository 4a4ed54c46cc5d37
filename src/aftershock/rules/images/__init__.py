"""Image rules: mutable tags and images not pinned by digest."""
