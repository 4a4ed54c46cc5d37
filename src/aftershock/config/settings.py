"""The `.aftershock.yaml` configuration file: its model and its parsing.

Top-level sections are fields of `AftershockConfig`; unknown keys are refused so a typo never goes
unnoticed. The models are frozen dataclasses that pydantic validates only when a file is read
(`aftershock.model.validated`): a repository without one never imports pydantic. Sections planned
for later (`scenarios`, `releases`) are added here as fields when they land. Rule ids and rule
options are checked against the rule registry by `aftershock.rules.engine.check_config`, which this
module does not import (the registry imports the config model).

    kubernetes_version: "1.31"
    rules:
      pss-host-namespaces:
        level: critical            # info | low | medium | high | critical
        paths: ["charts/apps/**"]  # only findings about these paths
        exclude_paths: ["charts/vendor/**"]
      commit-title-convention:
        enabled: false
      commit-trailers:
        options: {required: ["Signed-off-by"]}
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from aftershock.findings.model import Severity
from aftershock.gocompat import yamlio
from aftershock.model.errors import ConfigError, MalformedInputError
from aftershock.model.validated import (
    FORBID_EXTRA,
    AtLeast,
    Checked,
    InvalidDocument,
    Text,
    validated,
)

CONFIG_FILE_NAME = ".aftershock.yaml"
_KUBE_VERSION = re.compile(r"v?(\d+)\.(\d+)(\.\d+)?([-+].*)?")
_NAME = Text(min_length=1, pattern=r"^[\w.:/=-]+$")


@dataclass(frozen=True)
class RuleSettings:
    """How one rule runs: on or off, at which severity, and for which repository paths."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    enabled: bool = True
    level: Severity | None = None  # replaces the severity of every finding of the rule
    paths: tuple[str, ...] = ()  # globs; when set, only findings touching a matching path are kept
    exclude_paths: tuple[str, ...] = ()  # globs; findings touching a matching path are dropped
    options: dict[str, Any] = field(default_factory=dict)  # rule-specific, validated by the rule


@dataclass(frozen=True)
class ScenarioSettings:
    """A values scenario declared by the repository, rendered for every affected chart it names."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    name: Annotated[str, _NAME]
    charts: tuple[str, ...] = ("**",)  # globs of chart folders
    values: dict[str, Any] = field(default_factory=dict)
    values_files: tuple[
        str, ...
    ] = ()  # relative to the chart folder, merged in order before `values`


@dataclass(frozen=True)
class ContextSettings:
    """A render context declared by the repository: how its platform installs the charts it names.

    Tried first, before the releases, tests and chart-testing values the review finds by itself."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    name: Annotated[str, _NAME]
    charts: tuple[str, ...] = ("**",)  # globs of chart folders
    values_files: tuple[
        str, ...
    ] = ()  # relative to the chart folder; "/path" is relative to the repository
    values: dict[str, Any] = field(default_factory=dict)
    release_name: str | None = None
    namespace: str | None = None
    kube_version: str | None = None  # e.g. "v1.30.0", for .Capabilities
    api_versions: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReleaseSettings:
    """How releases find their charts when the release itself does not say (a chartRef, a HelmRepository)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    # chart or source name -> chart folder in this repository
    charts: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ClusterSettings:
    """What the cluster holds for `lookup`: inline objects and repository files of YAML documents
    (read by `ingest.gitops.cluster_objects`)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    objects: tuple[dict[str, Any], ...] = ()
    files: tuple[str, ...] = ()  # repository paths


def _inside_chart(value: tuple[str, ...]) -> tuple[str, ...]:
    # Globbed in the review's workspace: one leaving the chart would walk the host's filesystem.
    for pattern in value:
        if pattern.startswith("/") or ".." in pattern.split("/"):
            raise ValueError(
                f"{pattern!r} is not a glob inside the chart folder (no `/` start, no `..`)"
            )
    return value


@dataclass(frozen=True)
class TestSettings:
    """Where the charts' helm-unittest suites are, when not in `tests/` (else found from CI)."""

    __test__ = False  # not a pytest class
    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    # helm-unittest `-f` globs relative to each chart, e.g. "unittests/**/*_test.yaml"
    files: Annotated[tuple[str, ...], Checked(_inside_chart)] = ()


FLUX_SOURCE_KINDS = ("GitRepository", "OCIRepository", "Bucket", "ExternalArtifact")


def _repository_folder(value: str) -> str:
    folder = posixpath.normpath(value.strip() or ".")
    if value.startswith("/") or folder == ".." or folder.startswith("../"):
        raise ValueError(f"{value!r} is not a folder inside the repository")
    return "" if folder == "." else folder


@dataclass(frozen=True)
class SourceSettings:
    """Where a Flux source lives in this repository: a Kustomization whose `sourceRef` names it builds
    its `spec.path` under `path` (flux-local's `--sources name=path`)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    name: Annotated[
        str, Text(min_length=1, pattern=r"^([a-z0-9][a-z0-9.-]*/)?[a-z0-9][a-z0-9.-]*$")
    ]
    # folder of this repository holding the source's root ("" or "." the repository root)
    path: Annotated[str, Checked(_repository_folder)] = ""
    kind: Literal["GitRepository", "OCIRepository", "Bucket", "ExternalArtifact"] | None = None


@dataclass(frozen=True)
class ReviewDefaults:
    """Review options the repository sets for every review of it; a command-line flag still wins."""

    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    release_name: str | None = None  # --release-name
    namespace: str | None = None  # --namespace
    kube_version: str | None = None  # --kube-version, for .Capabilities, e.g. "v1.30.0"
    max_scenarios: Annotated[int, AtLeast(1)] | None = None  # --max-scenarios
    tests: bool | None = None  # false: as --no-tests
    base_tests: Literal["needed", "all"] | None = None  # --base-tests
    render_timeout: Annotated[float, AtLeast(0.1)] | None = None  # --render-timeout, seconds
    # Field paths left out of "what changed" and the rollout rules (diff/ignored.py); None: the
    # defaults (version labels, checksum annotations), [] none.
    ignore_fields: tuple[str, ...] | None = None


def _kube_version(value: str | None) -> str | None:
    if value is not None and not _KUBE_VERSION.fullmatch(value.strip()):
        raise ValueError(f"{value!r} is not a Kubernetes version like 1.31 or v1.31.2")
    return value


@dataclass(frozen=True)
class AftershockConfig:
    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    # target version for version-dependent rules, e.g. "1.31"
    kubernetes_version: Annotated[str | None, Checked(_kube_version)] = None
    rules: dict[str, RuleSettings] = field(default_factory=dict)
    scenarios: tuple[ScenarioSettings, ...] = ()
    releases: ReleaseSettings = ReleaseSettings()
    contexts: tuple[ContextSettings, ...] = ()
    cluster: ClusterSettings = ClusterSettings()
    chart_cache: str | None = (
        None  # folder of external chart archives, relative to the repository (see --chart-cache)
    )
    tests: TestSettings = TestSettings()
    # dependency name or <repository>/<name> -> chart folder here
    dependencies: dict[str, str] = field(default_factory=dict)
    review: ReviewDefaults = ReviewDefaults()
    sources: tuple[SourceSettings, ...] = ()  # Flux sources (namespace/name or name) -> folder here

    def settings_for(self, rule_id: str) -> RuleSettings:
        return self.rules.get(rule_id) or _DEFAULT_RULE


_DEFAULT_RULE = RuleSettings()


def default_config() -> AftershockConfig:
    """The configuration of a repository that has none: every field its default."""
    return AftershockConfig()


def parse_config(text: str, *, source: str = CONFIG_FILE_NAME) -> AftershockConfig:
    """The configuration in `text`; an empty document is the default configuration."""
    try:
        data = yamlio.load_one(text, source=source)
    except MalformedInputError as error:
        raise ConfigError(
            f"cannot read the configuration: {error.what}",
            where=error.where or source,
            hint="fix the YAML syntax",
        ) from None
    if data is None:
        return default_config()
    if not isinstance(data, dict):
        raise ConfigError(
            "the configuration is not a mapping", where=source, hint="start it with `rules:`"
        )
    try:
        return validated(AftershockConfig, data)
    except InvalidDocument as error:
        what = f"invalid configuration at {error.where}" if error.where else "invalid configuration"
        raise ConfigError(
            f"{what}: {error.message}", where=source, hint="see docs/rules.md for the file format"
        ) from None


def load_config(path: Path) -> AftershockConfig:
    """Reads and parses a configuration file; a missing file is the default configuration."""
    if not path.is_file():
        return default_config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read the configuration: {error}", where=str(path)) from None
    return parse_config(text, source=str(path))


def kube_version_tuple(text: str) -> tuple[int, int]:
    """(major, minor) of a version such as "1.31", "v1.31.2" or "1.31.0-gke.1"."""
    match = _KUBE_VERSION.fullmatch(text.strip())
    if match is None:
        raise ConfigError(f"invalid Kubernetes version {text!r}", hint="write it like 1.31")
    return int(match.group(1)), int(match.group(2))
