"""`aftershock serve`: the GitHub App webhook service (an ASGI app run by uvicorn).

Settings come from AFTERSHOCK_* variables (see `aftershock.server.settings`); the secret from
AFTERSHOCK_WEBHOOK_SECRET. Without --queue, reviews run in an embedded pool of threads; with
`--queue redis://…` they go to `aftershock worker` processes. The HTTP limits (header and body
timeouts, keep-alive, connection cap) come from AFTERSHOCK_* too, and the flags below win.
"""

from __future__ import annotations

import signal
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import click

from aftershock.server.build import QueueChoice, build_service
from aftershock.server.settings import settings_from_environment


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--queue",
    "queue_url",
    default=None,
    envvar="AFTERSHOCK_QUEUE",
    help="redis://HOST:PORT/DB: hand reviews to `aftershock worker` processes [default: embedded pool].",
)
@click.option(
    "--queue-name",
    default="aftershock",
    show_default=True,
    help="The RQ queue name (with --queue).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Review threads of the embedded pool (without --queue).",
)
@click.option(
    "--state",
    default=None,
    envvar="AFTERSHOCK_STATE",
    help="State database: a path or postgresql:// URL.",
)
@click.option(
    "--spool-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where deliveries wait while the state database is down: a lasting local folder "
    "[default: AFTERSHOCK_SPOOL_DIR, else aftershock-spool in the work folder].",
)
@click.option(
    "--header-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds a client has to send its request line and headers [default: 10].",
)
@click.option(
    "--body-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds a client then has to send the body [default: 30].",
)
@click.option(
    "--keep-alive",
    type=click.IntRange(min=1),
    default=None,
    help="Seconds an idle kept-alive connection stays open [default: 5].",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=None,
    help="Open connections at most; a new one displaces the longest-waiting [default: 200].",
)
def serve_command(
    host: str,
    port: int,
    queue_url: str | None,
    queue_name: str,
    workers: int,
    state: str | None,
    spool_dir: Path | None,
    header_timeout: float | None,
    body_timeout: float | None,
    keep_alive: int | None,
    max_connections: int | None,
) -> None:
    """Receive GitHub webhooks at POST /webhook; /healthz and /metrics for operations."""
    import logging

    import uvicorn

    from aftershock.server.app import create_app
    from aftershock.server.http import uvicorn_config

    # uvicorn configures only its own loggers: without this a failed job's error line went nowhere
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = replace(settings_from_environment(), workers=workers)
    if state:
        settings = replace(settings, state=state)
    if spool_dir is not None:
        settings = replace(settings, spool_dir=spool_dir)
    limits = settings.http
    limits = replace(
        limits,
        header_timeout_seconds=header_timeout or limits.header_timeout_seconds,
        body_timeout_seconds=body_timeout or limits.body_timeout_seconds,
        keep_alive_seconds=keep_alive or limits.keep_alive_seconds,
        max_connections=max_connections or limits.max_connections,
    )
    # uvicorn drains on SIGTERM, then raises the signal again for the handler it found: this one
    # ends the process with status 0 through the ExitStack, as an orderly stop should.
    signal.signal(signal.SIGTERM, _stop_cleanly)
    with ExitStack() as stack:
        service = build_service(settings, QueueChoice(queue_url, queue_name), stack)
        uvicorn.Server(uvicorn_config(create_app(service), limits, host, port)).run()


def _stop_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)
