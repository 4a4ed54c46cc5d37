"""The `Renderer` protocol and the request/outcome types every rendering backend speaks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Self

if TYPE_CHECKING:
    from aftershock.render.limits import Deadline

from aftershock.render.lookup.cluster import ClusterKey, ClusterSnapshot


@dataclass(frozen=True)
class RenderRequest:
    """Render the chart in folder `chart_dir` (an absolute path on disk) with `values` overrides.

    `values` is merged over the chart's own defaults by Helm, as `-f` would be.
    `kube_version` (e.g. "v1.30.0") and `api_versions` feed `.Capabilities`.
    `cluster`, when given, is what Helm's `lookup` finds (served by `render.lookup.kubeapi`); without it
    `lookup` finds nothing, as offline Helm does.
    """

    chart_dir: str
    values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    release_name: str = "release"
    namespace: str = "default"
    kube_version: str | None = None
    api_versions: tuple[str, ...] = ()
    revision: int = 1
    is_upgrade: bool = False
    cluster: ClusterSnapshot | None = field(default=None, hash=False)
    private: bool = (
        False  # the values hold what a Secret supplied: the render is never written to disk
    )


@dataclass(frozen=True)
class RenderOutcome:
    """What one render produced: the manifests by template path, or Helm's error text.

    `manifests` maps a template path as Helm names it (`chart/templates/x.yaml`) to its output.
    Exactly one of `manifests` and `error` is meaningful: `error` is None on success.
    """

    request: RenderRequest
    manifests: Mapping[str, str] = field(default_factory=dict, hash=False)
    error: str | None = None
    seconds: float = 0.0
    # The manifests already split and parsed as `ingest.object_documents.parse_documents` does, when the
    # backend did it in its own process (so the reviewer's process need not); None otherwise.
    documents: tuple[tuple[str, int, Any], ...] | None = field(
        default=None, hash=False, compare=False
    )
    # The keys of the snapshot objects that `lookup` calls returned (observed at the API server),
    # in the order first returned; () without a cluster snapshot.
    lookups: tuple[ClusterKey, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


ProgressCallback = Callable[[RenderOutcome], None]


class Renderer(Protocol):
    """A rendering backend. Implementations never run code from the repository under review
    (no plugins, post-renderers or dependency downloads) and bound each render by time and
    output size, reporting a breach as an error outcome."""

    name: str

    @property
    def version(self) -> str: ...

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline: Deadline | None = None,
    ) -> list[RenderOutcome]:
        """Render every request (in parallel where the backend can); outcomes keep request order.
        A render still running at `deadline` is stopped, and it and those not started get its reason."""
        ...

    def close(self) -> None: ...


class ClosingRenderer:
    """Mixin: a renderer is a context manager that calls its own `close()` on exit."""

    def close(self) -> None:  # pragma: no cover - every backend defines its own
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class WrappingRenderer:
    """Base of a renderer that wraps another (a cache, a budget, shared draws): its name, version and
    `close()` are the inner renderer's; a subclass defines `render_many`."""

    def __init__(self, inner: Renderer) -> None:
        self.inner = inner
        self.name = inner.name

    @property
    def version(self) -> str:
        return self.inner.version

    def close(self) -> None:
        self.inner.close()
