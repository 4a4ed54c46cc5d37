"""`aftershock worker`: runs review and command jobs that `aftershock serve --queue redis://…` queued
(RQ), and the render batches of large reviews; with `--renders-only`, those batches alone."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from aftershock.server.build import QueueChoice, build_worker_runner
from aftershock.server.settings import settings_from_environment

if TYPE_CHECKING:
    from aftershock.server.queue.runner import JobRunner


@click.command("worker")
@click.option(
    "--queue", "queue_url", required=True, envvar="AFTERSHOCK_QUEUE", help="redis://HOST:PORT/DB"
)
@click.option("--queue-name", default="aftershock", show_default=True)
@click.option("--name", default=None, help="Worker name [default: generated].")
@click.option("--burst", is_flag=True, help="Stop when the queue is empty.")
@click.option(
    "--heartbeat-seconds",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="A lost worker's job is retried about twice this long after its last heartbeat.",
)
@click.option(
    "--maintenance-seconds",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="How often this worker looks for jobs of lost workers.",
)
@click.option(
    "--state",
    default=None,
    envvar="AFTERSHOCK_STATE",
    help="State database: a path or postgresql:// URL.",
)
@click.option(
    "--renders-only",
    is_flag=True,
    help="Render batches of large reviews (queue <queue-name>-renders) and nothing else: no state "
    "database or GitHub App needed. Start it on the host whose disk the reviews use.",
)
def worker_command(
    queue_url: str,
    queue_name: str,
    name: str | None,
    burst: bool,
    heartbeat_seconds: int,
    maintenance_seconds: int,
    state: str | None,
    renders_only: bool,
) -> None:
    """Run queued reviews; start as many as the renders need (each uses about one core)."""
    from aftershock.server.queue.rq_jobs import connect, run_worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = settings_from_environment(require_secret=False)
    if state:
        settings = replace(settings, state=state)
    runner: JobRunner | None = None
    with ExitStack() as stack:
        if renders_only:
            connection = connect(queue_url)
            stack.callback(connection.close)
        else:
            runner, connection = build_worker_runner(
                settings, QueueChoice(queue_url, queue_name), stack
            )
        run_worker(
            connection,
            runner,
            render=settings.render,
            queue_name=queue_name,
            name=name,
            burst=burst,
            heartbeat_seconds=heartbeat_seconds,
            maintenance_seconds=maintenance_seconds,
        )
