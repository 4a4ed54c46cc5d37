"""Putting the service together from its settings: the state store, GitHub access, the queue and metrics.

`serve` gets a `WebhookService` with either the embedded pool (and its `JobRunner`) or a Redis
queue; `aftershock worker` gets a `JobRunner` of its own. Both close what they opened through the
returned ExitStack.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aftershock.model.errors import ConfigError
from aftershock.server.context import RenderSpread
from aftershock.server.github.github_api import RetryPolicy
from aftershock.server.github.github_auth import GitHubAccess, github_access
from aftershock.server.metrics import MemoryMetrics, Metrics, RedisMetrics
from aftershock.server.queue.jobs import InProcessQueue, JobQueue
from aftershock.server.queue.runner import JobRunner
from aftershock.server.service import WebhookService
from aftershock.server.settings import ServiceSettings
from aftershock.state.store import StateStore, open_store

if TYPE_CHECKING:  # redis is imported only when a queue is used
    from redis import Redis


@dataclass(frozen=True)
class QueueChoice:
    """None: the embedded pool; else a redis:// URL and the RQ queue name."""

    url: str | None = None
    name: str = "aftershock"


def _access(settings: ServiceSettings, stack: ExitStack) -> GitHubAccess:
    if settings.app is None:
        raise ConfigError(
            "the service needs GitHub App credentials",
            hint="set AFTERSHOCK_APP_ID and AFTERSHOCK_PRIVATE_KEY_FILE",
        )
    retry = RetryPolicy(settings.github_attempts, settings.github_backoff_seconds)
    access = github_access(settings.api_url, settings.app, retry=retry)
    stack.callback(access.close)
    return access


def _open_store(settings: ServiceSettings, stack: ExitStack) -> StateStore:
    """The state store; a SQLite file is switched to write-ahead logging, so the deliveries recorded while
    reviews write never wait for a reader (the mode stays with the file)."""
    store = open_store(settings.state)
    stack.callback(store.close)
    if store.engine.dialect.name == "sqlite":
        raw = store.engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()
    return store


def build_service(
    settings: ServiceSettings, choice: QueueChoice, stack: ExitStack
) -> WebhookService:
    store = _open_store(settings, stack)
    access = _access(settings, stack)
    queue: JobQueue
    metrics: Metrics
    if choice.url is None:
        metrics = MemoryMetrics()
        runner = JobRunner(settings, store, access, metrics)
        stack.callback(runner.close)
        pool = InProcessQueue(runner.run, settings.workers)
        stack.callback(pool.close)  # runs before runner.close: jobs finish, then renderers stop
        queue = pool
    else:
        from aftershock.server.queue.rq_jobs import RedisJobQueue, connect

        connection = connect(choice.url, socket_timeout=5.0)
        metrics = RedisMetrics(connection, choice.name)
        queue = RedisJobQueue(connection, choice.name, settings.job_timeout_seconds)
        stack.callback(queue.close)
    return WebhookService(
        settings, store, queue, access, metrics, embedded_queue=choice.url is None
    )


def build_worker_runner(
    settings: ServiceSettings, choice: QueueChoice, stack: ExitStack
) -> tuple[JobRunner, Redis]:
    """A runner for `aftershock worker`, reporting metrics to Redis, spreading large render steps
    over the workers when the settings say so; returns it and the Redis connection."""
    from aftershock.server.queue.rq_jobs import connect

    if choice.url is None:
        raise ConfigError("a worker needs --queue redis://HOST:PORT/DB")
    store = _open_store(settings, stack)
    connection = connect(choice.url)
    stack.callback(connection.close)
    spread = None
    if settings.spread_renders > 0:
        from aftershock.server.queue.render_queue import SpreadOptions

        options = SpreadOptions(choice.name, min_renders=settings.spread_renders)
        spread = RenderSpread(connection, options)
    metrics = RedisMetrics(connection, choice.name)
    runner = JobRunner(settings, store, _access(settings, stack), metrics, spread)
    return runner, connection
