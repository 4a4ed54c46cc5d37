"""`aftershock serve`: the GitHub App webhook service (an ASGI app run by uvicorn).

Settings come from AFTERSHOCK_* variables (see `aftershock.server.settings`); the secret from
AFTERSHOCK_WEBHOOK_SECRET. Without --queue, reviews run in an embedded pool of threads; with
`--queue redis://…` they go to `aftershock worker` processes.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace

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
def serve_command(
    host: str, port: int, queue_url: str | None, queue_name: str, workers: int, state: str | None
) -> None:
    """Receive GitHub webhooks at POST /webhook; /healthz and /metrics for operations."""
    import logging

    import uvicorn

    from aftershock.server.app import create_app

    # uvicorn configures only its own loggers: without this a failed job's error line went nowhere
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = replace(settings_from_environment(), workers=workers)
    if state:
        settings = replace(settings, state=state)
    with ExitStack() as stack:
        service = build_service(settings, QueueChoice(queue_url, queue_name), stack)
        uvicorn.run(create_app(service), host=host, port=port, log_level="info", access_log=False)
