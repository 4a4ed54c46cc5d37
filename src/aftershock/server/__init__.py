"""On the pull request: the GitHub App webhook service, its job queues and workers, and the Action's publisher.

`app` is the ASGI application (POST /webhook, /healthz, /metrics) around `service` (accept, dispatch,
recover); `build` puts them together from `settings`. `signature` verifies deliveries; `events`,
`commands` and `jobspec` turn payloads and comments into jobs (pure); `ledger` records deliveries in
the state database. `jobs` (embedded threads) and `rq_jobs` (Redis, `aftershock worker`) run jobs
through `runner`, which hands them to `review_run` or `command_run` with a `context`. `fetch` clones
base and head; `github_auth` and `github_api` talk to GitHub; `publish` builds the sticky comment and
check run; `assess` is the seam to findings, verdicts and SARIF; `metrics` renders Prometheus text;
`action` is the entry point of the composite GitHub Action (action.yml).
"""
