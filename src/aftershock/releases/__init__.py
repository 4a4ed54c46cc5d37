"""Following releases: read HelmReleases and Applications, resolve their charts, compute their values."""
