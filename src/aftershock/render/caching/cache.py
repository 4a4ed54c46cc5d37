"""A content-addressed render cache: `CachingRenderer` wraps any Renderer and renders each distinct input once.

The key is sha256 over the chart folder's content as Helm loads it (`render.caching.digest.chart_digest`:
files the chart's `.helmignore` names left out, a values.yaml by its values where no template can read
it as text), the canonical JSON of the values, every other RenderRequest field, and the inner
renderer's name and version. A chart whose templates may differ between two renders (random, time) is
never cached or merged: the pipeline renders those twice on purpose. Errors are cached only when Helm
would give them again (template errors); timeouts, oversize output and dead workers are not.

Entries live in memory (LRU by bytes) over an on-disk store (one zlib-compressed JSON file per key,
LRU by modification time, bounded in total bytes), which several processes may share. Nothing
secret-derived is written to disk: a render holding a Secret or a credential-named value that is not
an ordinary token (`DB_PASSWORD: x`, an env var `API_KEY`; see `credential_text`), one rendered from
values a Secret supplied, and the error of a chart that can render a Secret (its message may quote
what the Secret holds) are kept in memory only. The folders are 0700, the files 0600.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from aftershock.model.review import is_deterministic_error
from aftershock.render.caching.batch import input_keys, render_each_once
from aftershock.render.caching.disk_privacy import can_render_secret, holds_secret
from aftershock.render.interface import (
    ProgressCallback,
    Renderer,
    RenderOutcome,
    RenderRequest,
    WrappingRenderer,
)
from aftershock.render.limits import Deadline
from aftershock.render.lookup.cluster import ClusterKey
from aftershock.safety.private_files import private_folder

CACHE_FORMAT = 3  # of an entry's file; 2: entries keep the parsed documents; 3: no entry holds a Secret (older ones are dropped when read)
DEFAULT_MAX_BYTES = 512 * 2**20
DEFAULT_MEMORY_BYTES = 64 * 2**20
# The files whose text the pipeline scans for nondeterministic functions (see pipeline.rendering.chart_jobs).
_STALE_TEMP_SECONDS = 3600.0


@dataclass(frozen=True)
class CacheEntry:
    manifests: Mapping[str, str]
    error: str | None = None
    # The parsed documents (RenderOutcome.documents), kept so a hit need not be parsed again.
    documents: tuple[tuple[str, int, Any], ...] | None = field(default=None, compare=False)
    lookups: tuple[ClusterKey, ...] = ()  # RenderOutcome.lookups
    private: bool = False  # rendered from values a Secret supplied: kept in memory only

    @property
    def size(self) -> int:
        return sum(len(k) + len(v) for k, v in self.manifests.items()) + len(self.error or "")


class RenderCacheStore(Protocol):
    # Whether entries may reach disk: only then must a put say which are secret-derived (`private`),
    # which costs a read of every template of a chart whose render failed.
    @property
    def keeps_on_disk(self) -> bool: ...

    def get(self, key: str) -> CacheEntry | None: ...

    def put(self, key: str, entry: CacheEntry) -> None: ...


@dataclass(frozen=True)
class CacheStats:
    hits: int = 0
    misses: int = 0  # rendered by the inner renderer, and stored when deterministic
    merged: int = 0  # identical to an earlier request of the same batch: rendered once for both
    uncacheable: int = (
        0  # nondeterministic chart, unreadable chart or non-JSON values: passed through
    )


class MemoryRenderCache:
    """The most recently used entries, up to `max_bytes` of manifest text."""

    keeps_on_disk = False

    def __init__(self, max_bytes: int = DEFAULT_MEMORY_BYTES) -> None:
        self._max_bytes = max_bytes
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> CacheEntry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: CacheEntry) -> None:
        if entry.size > self._max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes += entry.size - (old.size if old else 0)
            self._entries[key] = entry
            while self._bytes > self._max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size


class DiskRenderCache:
    """Entries as `root/<key[:2]>/<key>` files, at most `max_bytes` on disk in all.

    Reading an entry refreshes its modification time; when a write takes the total over the bound,
    the least recently used files are removed. Writes are atomic (temp file + rename), so several
    processes can share the folder; a corrupt entry is removed and counted as a miss.
    """

    keeps_on_disk = True

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = root
        self._max_bytes = max_bytes
        self._bytes: int | None = None  # our estimate of the total; re-measured when it looks over
        self._lock = threading.Lock()
        self.evictions = 0

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> CacheEntry | None:
        path = self._path(key)
        try:
            data = json.loads(zlib.decompress(path.read_bytes()))
            if data.get("format") != CACHE_FORMAT or data.get("key") != key:
                raise ValueError("not an entry of this key")
            documents = data.get("documents")
            parsed = None if documents is None else tuple((t, i, body) for t, i, body in documents)
            lookups = tuple(ClusterKey(*key) for key in data.get("lookups", ()))
            entry = CacheEntry(dict(data["manifests"]), data["error"], parsed, lookups)
            os.utime(path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, zlib.error):
            path.unlink(missing_ok=True)
            return None
        return entry

    def put(self, key: str, entry: CacheEntry) -> None:
        if entry.private or holds_secret(entry.manifests, entry.documents):
            return  # Secret values never go to disk (see the module docstring)
        document = {
            "format": CACHE_FORMAT,
            "key": key,
            "manifests": dict(entry.manifests),
            "error": entry.error,
            "documents": None if entry.documents is None else [list(d) for d in entry.documents],
        }
        if entry.lookups:
            document["lookups"] = [list(key) for key in entry.lookups]
        blob = zlib.compress(json.dumps(document, separators=(",", ":")).encode("utf-8"), 6)
        if len(blob) > self._max_bytes:
            return
        folder = self._path(key).parent
        try:
            private_folder(folder)
            handle, temp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
            with os.fdopen(handle, "wb") as out:
                out.write(blob)
            os.replace(temp, self._path(key))
        except OSError:
            return  # a cache that cannot be written only costs time
        with self._lock:
            if self._bytes is not None:
                self._bytes += len(
                    blob
                )  # an overwrite counts twice: that only brings the next scan sooner
            if self._bytes is None or self._bytes > self._max_bytes:
                self._bytes = self._evict()

    def total_bytes(self) -> int:
        return sum(size for _, _, size in self._scan())

    def _scan(self) -> list[tuple[float, Path, int]]:
        """(modification time, path, size) of every entry; stale temp files of dead writers removed."""
        found = []
        now = time.time()
        for folder in self.root.glob("??"):
            for path in folder.iterdir():
                try:
                    info = path.stat()
                except OSError:
                    continue
                if path.name.startswith(".tmp-"):
                    if now - info.st_mtime > _STALE_TEMP_SECONDS:
                        path.unlink(missing_ok=True)
                    continue
                found.append((info.st_mtime, path, info.st_size))
        return found

    def _evict(self) -> int:
        """Remove least recently used entries until the total fits; return the new total."""
        entries = sorted(self._scan())
        total = sum(size for _, _, size in entries)
        for _, path, size in entries:
            if total <= self._max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size
            self.evictions += 1
        return total


class LayeredRenderCache:
    """Memory first, then disk; a disk hit is kept in memory too."""

    keeps_on_disk = True

    def __init__(self, memory: MemoryRenderCache, disk: DiskRenderCache) -> None:
        self.memory = memory
        self.disk = disk

    def get(self, key: str) -> CacheEntry | None:
        entry = self.memory.get(key)
        if entry is None:
            entry = self.disk.get(key)
            if entry is not None:
                self.memory.put(key, entry)
        return entry

    def put(self, key: str, entry: CacheEntry) -> None:
        self.memory.put(key, entry)
        self.disk.put(key, entry)


def _can_render_secret(request: RenderRequest, known: dict[str, bool]) -> bool:
    """Whether the request's chart can render a Secret, asked once per folder (`known`)."""
    if request.chart_dir not in known:
        known[request.chart_dir] = can_render_secret(request.chart_dir)
    return known[request.chart_dir]


def default_render_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """`$XDG_CACHE_HOME/aftershock/render`, or `~/.cache/aftershock/render`."""
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "aftershock" / "render"


def open_render_cache(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> LayeredRenderCache:
    """The render cache in folder `path` (created on first write), at most `max_bytes` on disk."""
    return LayeredRenderCache(
        MemoryRenderCache(min(DEFAULT_MEMORY_BYTES, max_bytes)), DiskRenderCache(path, max_bytes)
    )


class CachingRenderer(WrappingRenderer):
    """A Renderer that answers from `store` what it has rendered before, and renders the rest with `inner`."""

    def __init__(self, inner: Renderer, store: RenderCacheStore) -> None:
        super().__init__(inner)
        self.store = store
        self._stats = CacheStats()
        self._stats_lock = threading.Lock()

    @property
    def stats(self) -> CacheStats:
        with self._stats_lock:
            return self._stats

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        """Answer hits from the store, render each distinct miss once, pass uncacheable requests through."""
        keys = self.keys_for(requests)
        outcomes: list[RenderOutcome | None] = [None] * len(requests)
        pending: list[int] = []  # not answered by the store
        for index, (request, key) in enumerate(zip(requests, keys)):
            entry = self.store.get(key) if key is not None else None
            if entry is None:
                pending.append(index)
                continue
            outcome = RenderOutcome(
                request,
                manifests=entry.manifests,
                error=entry.error,
                documents=entry.documents,
                lookups=entry.lookups,
            )
            outcomes[index] = outcome
            if progress is not None:
                progress(outcome)
        pending_keys = [keys[i] for i in pending]
        rendered, rendered_at = render_each_once(
            self.inner, [requests[i] for i in pending], pending_keys, progress, deadline
        )
        for index, outcome in zip(pending, rendered):
            outcomes[index] = outcome
        self._store([(requests[pending[p]], pending_keys[p], rendered[p]) for p in rendered_at])
        uncacheable = pending_keys.count(None)
        self._count(
            {
                "hits": len(requests) - len(pending),
                "misses": len(rendered_at) - uncacheable,
                "merged": len(pending) - len(rendered_at),
                "uncacheable": uncacheable,
            }
        )
        return [outcome for outcome in outcomes if outcome is not None]

    def _store(self, rendered: Sequence[tuple[RenderRequest, str | None, RenderOutcome]]) -> None:
        """Keep each keyed render whose outcome Helm would give again (not a timeout, say)."""
        secret_charts: dict[str, bool] = {}  # chart folder -> can render a Secret (asked once)
        for request, key, outcome in rendered:
            if key is None or not (outcome.ok or is_deterministic_error(outcome.error or "")):
                continue
            # an error may quote what the chart's Secret would have held, and any object may
            # hold what `lookup` read from a cluster Secret
            private = self.store.keeps_on_disk and (
                request.private
                or (outcome.error is not None and _can_render_secret(request, secret_charts))
                or any(found.kind == "Secret" for found in outcome.lookups)
            )
            entry = CacheEntry(
                dict(outcome.manifests), outcome.error, outcome.documents, outcome.lookups, private
            )
            self.store.put(key, entry)

    def keys_for(self, requests: Sequence[RenderRequest]) -> list[str | None]:
        """Each request's cache key, None when it cannot be cached (its render may differ each time,
        or it cannot be keyed); equal keys mean equal renders.

        A caller may key its own derived results (parsed objects, a chart's diff) by these too.
        """
        identity = f"{self.inner.name}\0{self.inner.version}"
        return [None if k is None or k.volatile else k.key for k in input_keys(requests, identity)]

    def _count(self, counts: Mapping[str, int]) -> None:
        with self._stats_lock:
            self._stats = CacheStats(
                self._stats.hits + counts["hits"],
                self._stats.misses + counts["misses"],
                self._stats.merged + counts["merged"],
                self._stats.uncacheable + counts["uncacheable"],
            )
