"""Release following: the HelmReleases and Applications a change reaches, the chart each installs
and the values it passes (valuesFrom included), rendered at both refs."""
