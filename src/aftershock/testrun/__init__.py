"""Running helm-unittest suites with the renderer: the renders each test needs (planning), the runner
that asserts on them, and the `helm unittest`-compatible command line. The suite format itself
(suites, values, selection, assertions, snapshots) is `helmtest`, below the renderer."""
