"""Rules: pure functions from a `Review` to findings, one rule per module.

`model` defines a rule and what it returns, `registry` lists every rule explicitly, `engine`
runs them with the configuration, `catalog` documents them for `aftershock rules` and
`aftershock explain`. Shared helpers live in `support`; the rules themselves in one subpackage
per theme (pss, rbac, exposure, secrets, images, workloads, network, upgrade, flux, values, hygiene).
"""
