"""`aftershock serve` as a process: its header-timeout and connection-cap flags reach the server (slow
clients over the cap are closed at once, the rest at the timeout, /healthz answers meanwhile), it
says where its spool is (`--spool-dir`), and a bad limit in the environment is one line and exit 2,
not a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from server_fakes import AppKey
from server_harness import SECRET


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _environment(tmp_path, key: AppKey) -> dict[str, str]:
    return {
        **os.environ,
        "AFTERSHOCK_WEBHOOK_SECRET": SECRET.decode(),
        "AFTERSHOCK_APP_ID": "42",
        "AFTERSHOCK_PRIVATE_KEY": key.private_pem,
        "AFTERSHOCK_GITHUB_API_URL": "http://127.0.0.1:9",
        "AFTERSHOCK_STATE": str(tmp_path / "state.db"),
        "AFTERSHOCK_WORK_DIR": str(tmp_path / "jobs"),
    }


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_serve_flags_cut_slow_clients_and_cap_connections(tmp_path):
    port = _free_port()
    command = [sys.executable, "-m", "aftershock.cli", "serve", "--port", str(port)]
    command += ["--header-timeout", "1", "--max-connections", "5"]
    command += ["--spool-dir", str(tmp_path / "spool")]
    server = subprocess.Popen(
        command,
        env=_environment(tmp_path, AppKey.generate()),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    sockets: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 120
        while True:  # up once /healthz answers
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, (
                server.stderr.read().decode()[-2000:] if server.stderr else ""
            )
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        started = time.monotonic()
        for _ in range(8):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /healthz HTT")
            sock.setblocking(False)
            sockets.append(sock)
        time.sleep(0.3)
        assert sum(_closed(s) for s in sockets) >= 3  # over the cap of 5
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        while not all(_closed(s) for s in sockets):
            assert time.monotonic() - started < 3.0, "slow clients outlived the 1 s header timeout"
            time.sleep(0.1)
    finally:
        for sock in sockets:
            sock.close()
        server.terminate()
        server.wait(30)
    log = server.stderr.read().decode() if server.stderr else ""
    assert f"are kept in {tmp_path / 'spool'} (AFTERSHOCK_SPOOL_DIR)" in log, log[-2000:]


def test_a_bad_limit_in_the_environment_is_one_line(tmp_path):
    env = {**_environment(tmp_path, AppKey.generate()), "AFTERSHOCK_BODY_TIMEOUT_SECONDS": "soon"}
    done = subprocess.run(
        [sys.executable, "-m", "aftershock.cli", "serve", "--port", str(_free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "AFTERSHOCK_BODY_TIMEOUT_SECONDS='soon' is not a number above 0" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2


@pytest.mark.parametrize(
    "command", [["serve", "--port", "0"], ["worker", "--queue", "redis://127.0.0.1:1/0"]]
)
def test_without_the_server_extra_serve_and_worker_say_what_to_install(command, tmp_path):
    """`pip install .` leaves the service's packages out (the `server` extra): one line, exit 2."""
    blocked = "import sys\nfor name in ('starlette', 'uvicorn', 'rq', 'redis', 'jwt'):\n    sys.modules[name] = None\n"
    run = (
        blocked
        + "from aftershock.cli.main import main\nsys.argv = ['aftershock', *sys.argv[1:]]\nmain()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", run, *command],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        f"aftershock: error: `aftershock {command[0]}` needs the service's packages"
    )
    assert line.endswith("pip install 'aftershock[server]'")
