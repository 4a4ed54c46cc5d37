"""On the pull request: the GitHub App webhook service, its job queues and workers, and the Action's publisher.

`app` is the ASGI application (POST /webhook, /healthz, /metrics); `signature` verifies deliveries,
`events` and `commands` turn payloads and comments into intakes (pure), `ledger` records deliveries
in the state database, `jobs` and `rq_jobs` run review and command jobs in-process or on RQ workers,
`runner` executes one job, `fetch` clones base and head, `github_auth`/`github_api` talk to GitHub,
`publish` builds the sticky comment and check run, `assess` is the seam to findings and verdicts,
`metrics` renders Prometheus text, and `action` is the entry point of the composite GitHub Action.
"""
