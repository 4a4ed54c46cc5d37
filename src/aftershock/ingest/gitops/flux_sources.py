"""Which Flux source a Kustomization builds from, and where that source lives in this repository.

A `sourceRef` (kind, namespace defaulting to the Kustomization's, name) resolves to a folder of the
repository under review, the source's root, or to the reason it cannot:

1. an `.aftershock.yaml` `sources:` entry naming it (`namespace/name` before `name`) roots it there;
2. an unmapped GitRepository is this repository, rooted at its root, unless the repository declares it
   with a URL that is not this repository's: this repository's URLs are those of the GitRepositories a
   Kustomization builds itself from (its own file lies under the path it builds: Flux found it there, as
   with `flux bootstrap`'s `flux-system`); when none does, the URL of `flux-system/flux-system`;
3. any other source (another repository, an OCIRepository, a Bucket, an ExternalArtifact) is not this
   repository: what it builds is not reviewed, never built from this repository's files.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from aftershock.config.settings import SourceSettings

GIT_REPOSITORY = "GitRepository"
MAP_HINT = "map it to its folder here under `sources:` in .aftershock.yaml to review it"


@dataclass(frozen=True)
class SourceRef:
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True)
class DeclaredSource:
    """A GitRepository the repository declares: where, and the URL it fetches."""

    ref: SourceRef
    file: str
    url: str


@dataclass(frozen=True)
class Resolution:
    root: str | None  # the folder holding the source's root ("" the repository's); None: not here
    problem: str | None = None


def source_ref(spec: Mapping[str, object], namespace: str) -> SourceRef:
    """The source a Kustomization's spec names (Flux's defaults: a GitRepository of its namespace)."""
    raw = spec.get("sourceRef")
    ref: Mapping[str, object] = raw if isinstance(raw, dict) else {}
    return SourceRef(
        str(ref.get("kind") or GIT_REPOSITORY),
        str(ref.get("namespace") or namespace),
        str(ref.get("name") or ""),
    )


def normalized_url(url: str) -> str:
    """`github.com/o/r` for `ssh://git@github.com/o/r`, `git@github.com:o/r.git`, `https://github.com/o/r/`."""
    text = url.strip().lower()
    scheme = re.match(r"^[a-z0-9+.-]+://", text)
    text = re.sub(r"^[^@/]+@", "", text[scheme.end() :] if scheme else text)
    if not scheme:  # scp-like host:owner/repo
        text = text.replace(":", "/", 1)
    host, _, rest = text.partition("/")
    host = host.split(":")[0]  # a port is the same repository
    return f"{host}/{rest}".rstrip("/").removesuffix(".git")


@dataclass(frozen=True)
class FluxSources:
    """The mapping of `.aftershock.yaml` and the GitRepositories declared at one ref."""

    mappings: tuple[SourceSettings, ...]
    declared: Mapping[SourceRef, tuple[DeclaredSource, ...]]
    own_urls: frozenset[str] = frozenset()

    def resolve(self, ref: SourceRef, file: str) -> Resolution:
        """Where the source of the Kustomization declared in `file` lives, or why it is not here."""
        mapped = self.mapped(ref)
        if mapped is not None:
            return Resolution(mapped.path)
        if ref.kind != GIT_REPOSITORY:
            return Resolution(None, f"it builds {ref}, which is not this repository; {MAP_HINT}")
        declared = self.declaration(ref, file)
        if declared is None or not self.own_urls or normalized_url(declared.url) in self.own_urls:
            return Resolution("")
        return Resolution(
            None,
            f"it builds {ref} ({declared.url}, declared in {declared.file}), which is not this "
            f"repository; {MAP_HINT}",
        )

    def mapped(self, ref: SourceRef) -> SourceSettings | None:
        kinds = [m for m in self.mappings if m.kind in (None, ref.kind)]
        exact = [m for m in kinds if m.name == f"{ref.namespace}/{ref.name}"]
        named = exact or [m for m in kinds if m.name == ref.name]
        return named[0] if named else None

    def declaration(self, ref: SourceRef, file: str) -> DeclaredSource | None:
        """The declaration nearest to `file` (a multi-cluster repository declares one per tree)."""
        candidates = self.declared.get(ref, ())
        return max(candidates, key=lambda d: (_shared_depth(d.file, file), d.file), default=None)


def _shared_depth(a: str, b: str) -> int:
    return len(posixpath.commonpath([posixpath.dirname(a) or ".", posixpath.dirname(b) or "."]))


def flux_sources(
    mappings: Sequence[SourceSettings],
    declared: Iterable[DeclaredSource],
    builders: Iterable[tuple[SourceRef, str, str]],
) -> FluxSources:
    """`builders`: (source, declaring file, spec.path from the source's root) of every Kustomization."""
    by_ref: dict[SourceRef, tuple[DeclaredSource, ...]] = {}
    for source in declared:
        by_ref[source.ref] = by_ref.get(source.ref, ()) + (source,)
    sources = FluxSources(tuple(mappings), by_ref)
    own = set()
    for ref, file, path in builders:
        found = sources.declaration(ref, file) if sources.mapped(ref) is None else None
        if found is not None and (path == "" or file.startswith(path + "/")):
            own.add(normalized_url(found.url))
    if not own:
        bootstrap = by_ref.get(SourceRef(GIT_REPOSITORY, "flux-system", "flux-system"), ())
        own = {normalized_url(d.url) for d in bootstrap}
    return FluxSources(tuple(mappings), by_ref, frozenset(own))
