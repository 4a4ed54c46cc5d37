"""The Redis the tests use: `AFTERSHOCK_TEST_REDIS_URL`, else the loopback server; a test module that
needs it sets `pytestmark = needs_redis`, so it skips with the reason where none answers."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterable

import pytest

REDIS_URL = os.environ.get("AFTERSHOCK_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_reachable() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


needs_redis = pytest.mark.skipif(
    not redis_reachable(), reason=f"no redis-server answering at {REDIS_URL}"
)


def stop_workers(processes: Iterable[subprocess.Popen]) -> None:
    """Each `aftershock worker` still running asked to stop (SIGTERM: it finishes its job), killed
    after 20 s."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
