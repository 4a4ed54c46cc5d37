"""The Redis the tests use: `AFTERSHOCK_TEST_REDIS_URL`, else the loopback server; a test module that
needs it sets `pytestmark = needs_redis`, so it skips with the reason where none answers."""

from __future__ import annotations

import os

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
