"""The `.aftershock.yaml` configuration file: its pydantic model and its parsing.

Top-level sections are fields of `AftershockConfig`; unknown keys are refused so a typo never goes
unnoticed. Sections planned for later (`scenarios`, `releases`) are added here as fields when they
land. Rule ids and rule options are checked against the rule registry by
`aftershock.rules.engine.check_config`, which this module does not import (the registry imports
the config model).

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
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from aftershock.findings.model import Severity
from aftershock.gocompat import yamlio
from aftershock.model.errors import ConfigError, MalformedInputError

CONFIG_FILE_NAME = ".aftershock.yaml"
_KUBE_VERSION = re.compile(r"v?(\d+)\.(\d+)(\.\d+)?([-+].*)?")
# Validators are built when a configuration file is first validated: a repository without one
# (most) reviews with `default_config()` and never pays pydantic's ~0.1 CPU-s of schema building.
_MODEL = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class RuleSettings(BaseModel):
    """How one rule runs: on or off, at which severity, and for which repository paths."""

    model_config = _MODEL

    enabled: bool = True
    level: Severity | None = None  # replaces the severity of every finding of the rule
    paths: tuple[str, ...] = ()  # globs; when set, only findings touching a matching path are kept
    exclude_paths: tuple[str, ...] = ()  # globs; findings touching a matching path are dropped
    options: dict[str, Any] = Field(default_factory=dict)  # rule-specific, validated by the rule


class ScenarioSettings(BaseModel):
    """A values scenario declared by the repository, rendered for every affected chart it names."""

    model_config = _MODEL

    name: str = Field(min_length=1, pattern=r"^[\w.:/=-]+$")
    charts: tuple[str, ...] = ("**",)  # globs of chart folders
    values: dict[str, Any] = Field(default_factory=dict)
    values_files: tuple[
        str, ...
    ] = ()  # relative to the chart folder, merged in order before `values`


class ContextSettings(BaseModel):
    """A render context declared by the repository: how its platform installs the charts it names.

    Tried first, before the releases, tests and chart-testing values the review finds by itself."""

    model_config = _MODEL

    name: str = Field(min_length=1, pattern=r"^[\w.:/=-]+$")
    charts: tuple[str, ...] = ("**",)  # globs of chart folders
    values_files: tuple[
        str, ...
    ] = ()  # relative to the chart folder; "/path" is relative to the repository
    values: dict[str, Any] = Field(default_factory=dict)
    release_name: str | None = None
    namespace: str | None = None
    kube_version: str | None = None  # e.g. "v1.30.0", for .Capabilities
    api_versions: tuple[str, ...] = ()


class ReleaseSettings(BaseModel):
    """How releases find their charts when the release itself does not say (a chartRef, a HelmRepository)."""

    model_config = _MODEL

    charts: dict[str, str] = Field(
        default_factory=dict
    )  # chart or source name -> chart folder in this repository


class ClusterSettings(BaseModel):
    """What the cluster holds for `lookup`: inline objects and repository files of YAML documents
    (read by `ingest.gitops.cluster_objects`)."""

    model_config = _MODEL

    objects: tuple[dict[str, Any], ...] = ()
    files: tuple[str, ...] = ()  # repository paths


class TestSettings(BaseModel):
    """Where the charts' helm-unittest suites are, when not in `tests/` (else found from CI)."""

    __test__ = False  # not a pytest class
    model_config = _MODEL

    files: tuple[
        str, ...
    ] = ()  # helm-unittest `-f` globs relative to each chart, e.g. "unittests/**/*_test.yaml"

    @field_validator("files")
    @classmethod
    def _check_files(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # Globbed in the review's workspace: one leaving the chart would walk the host's filesystem.
        for pattern in value:
            if pattern.startswith("/") or ".." in pattern.split("/"):
                raise ValueError(
                    f"{pattern!r} is not a glob inside the chart folder (no `/` start, no `..`)"
                )
        return value


FLUX_SOURCE_KINDS = ("GitRepository", "OCIRepository", "Bucket", "ExternalArtifact")


class SourceSettings(BaseModel):
    """Where a Flux source lives in this repository: a Kustomization whose `sourceRef` names it builds
    its `spec.path` under `path` (flux-local's `--sources name=path`)."""

    model_config = _MODEL

    name: str = Field(min_length=1, pattern=r"^([a-z0-9][a-z0-9.-]*/)?[a-z0-9][a-z0-9.-]*$")
    path: str = (
        ""  # folder of this repository holding the source's root ("" or "." the repository root)
    )
    kind: Literal["GitRepository", "OCIRepository", "Bucket", "ExternalArtifact"] | None = None

    @field_validator("path")
    @classmethod
    def _check_path(cls, value: str) -> str:
        folder = posixpath.normpath(value.strip() or ".")
        if value.startswith("/") or folder == ".." or folder.startswith("../"):
            raise ValueError(f"{value!r} is not a folder inside the repository")
        return "" if folder == "." else folder


class ReviewDefaults(BaseModel):
    """Review options the repository sets for every review of it; a command-line flag still wins."""

    model_config = _MODEL

    release_name: str | None = None  # --release-name
    namespace: str | None = None  # --namespace
    kube_version: str | None = None  # --kube-version, for .Capabilities, e.g. "v1.30.0"
    max_scenarios: int | None = Field(default=None, ge=1)  # --max-scenarios
    tests: bool | None = None  # false: as --no-tests
    base_tests: Literal["needed", "all"] | None = None  # --base-tests
    render_timeout: float | None = Field(default=None, ge=0.1)  # --render-timeout, seconds
    # Field paths left out of "what changed" and the rollout rules (diff/ignored.py); None: the
    # defaults (version labels, checksum annotations), [] none.
    ignore_fields: tuple[str, ...] | None = None


class AftershockConfig(BaseModel):
    model_config = _MODEL

    kubernetes_version: str | None = None  # target version for version-dependent rules, e.g. "1.31"
    rules: dict[str, RuleSettings] = Field(default_factory=dict)
    scenarios: tuple[ScenarioSettings, ...] = ()
    releases: ReleaseSettings = ReleaseSettings.model_construct()
    contexts: tuple[ContextSettings, ...] = ()
    cluster: ClusterSettings = ClusterSettings.model_construct()
    chart_cache: str | None = (
        None  # folder of external chart archives, relative to the repository (see --chart-cache)
    )
    tests: TestSettings = TestSettings.model_construct()
    dependencies: dict[str, str] = Field(
        default_factory=dict
    )  # dependency name or <repository>/<name> -> chart folder here
    review: ReviewDefaults = ReviewDefaults.model_construct()
    sources: tuple[SourceSettings, ...] = ()  # Flux sources (namespace/name or name) -> folder here

    @field_validator("kubernetes_version")
    @classmethod
    def _check_version(cls, value: str | None) -> str | None:
        if value is not None and not _KUBE_VERSION.fullmatch(value.strip()):
            raise ValueError(f"{value!r} is not a Kubernetes version like 1.31 or v1.31.2")
        return value

    def settings_for(self, rule_id: str) -> RuleSettings:
        return self.rules.get(rule_id) or _DEFAULT_RULE


_DEFAULT_RULE = RuleSettings.model_construct()


def default_config() -> AftershockConfig:
    """The configuration of a repository that has none: every field its default, nothing to
    validate (so no validator is built)."""
    return AftershockConfig.model_construct()


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
        return AftershockConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(
            _first_error(error), where=source, hint="see docs/rules.md for the file format"
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


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    message = first.get("msg", "invalid value")
    return (
        f"invalid configuration at {where}: {message}"
        if where
        else f"invalid configuration: {message}"
    )
