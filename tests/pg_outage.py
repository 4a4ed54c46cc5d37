"""A PostgreSQL that goes down or drops its connections on demand, for the service's outage tests: a throwaway database on the
machine's server (127.0.0.1:5432) reached through a TCP proxy on loopback that the test closes
(every open connection reset, new ones refused) and opens again; the server itself is never touched."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import uuid
from collections.abc import Iterator

from state_support import PG_DSN, postgres_problem

UPSTREAM = ("127.0.0.1", 5432)


class PgProxy:
    """Forwards 127.0.0.1:`port` to PostgreSQL while up; `down()` resets and refuses."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._guard = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._accepting: threading.Thread | None = None

    @property
    def is_up(self) -> bool:
        return self._listener is not None

    def up(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))
        listener.settimeout(0.05)
        self._listener = listener
        self._accepting = threading.Thread(target=self._accept, args=(listener,), daemon=True)
        self._accepting.start()

    def down(self) -> None:
        """Refuse new connections and reset the open ones, as a server that restarts does."""
        listener, self._listener = self._listener, None
        if self._accepting is not None:
            self._accepting.join(5)
        if listener is not None:
            listener.close()
        self.reset()

    def reset(self) -> None:
        """Cut every open connection (as `pg_terminate_backend` does); new ones still get through."""
        with self._guard:
            sockets, self._open = list(self._open), set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                # shutdown, not close alone: a pipe thread blocked in recv keeps a closed socket open
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                server = socket.create_connection(UPSTREAM, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            client.settimeout(None)
            with self._guard:
                self._open.update((client, server))
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=_pipe, args=(source, target), daemon=True).start()


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def throwaway_database() -> Iterator[str]:
    """The name of a fresh database on the machine's PostgreSQL, dropped afterwards."""
    import psycopg

    problem = postgres_problem()
    if problem:
        import pytest

        pytest.skip(problem)
    name = f"aftershock_outage_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield name
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
