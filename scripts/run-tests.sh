#!/usr/bin/env bash
# Runs the test suite with the services its tests use: a Redis on loopback for the scale-out tests.
# An already running Redis on 127.0.0.1:6379 is used as it is; otherwise, when redis-server is
# installed, a private one is started on a free loopback port and stopped afterwards. Without
# either, the Redis tests skip and say why. PostgreSQL tests use 127.0.0.1:5432 when it answers.
set -uo pipefail
python=${1:?usage: run-tests.sh PYTHON [pytest args...]}
shift
started=""
if [ -z "${AFTERSHOCK_TEST_REDIS_URL:-}" ]; then
  if command -v redis-cli >/dev/null 2>&1 && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    export AFTERSHOCK_TEST_REDIS_URL=redis://127.0.0.1:6379/0
  elif command -v redis-server >/dev/null 2>&1; then
    port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    dir=$(mktemp -d)
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
      --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
    for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    export AFTERSHOCK_TEST_REDIS_URL=redis://127.0.0.1:$port/0
    started="$dir"
  fi
fi
"$python" -m pytest "$@"
status=$?
if [ -n "$started" ]; then
  kill "$(cat "$started/redis.pid")" 2>/dev/null
  rm -rf "$started"
fi
exit $status
