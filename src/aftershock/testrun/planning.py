"""What each helm-unittest test renders (values, release, capabilities, chart): a RenderRequest.

Like helm-unittest, only the suite's templates (and the partials) are rendered: a suite that
names templates renders a pruned copy of the chart, so a selected template that includes an
unselected one fails as it does upstream. Tests whose inputs are identical get identical requests
(and one shared render). The inputs are
upstream's: values merged from the suite's and the test's files and `set`s, release name
`RELEASE-NAME` in `NAMESPACE` unless given (a given name must be a valid release name), and
capabilities with helm-unittest's quirk that a test without `majorVersion`/`minorVersion` keeps
the Kubernetes version the previous test set (its Helm default is a shared, mutated object).
A test's `kubernetesProvider` becomes the cluster snapshot its `lookup` calls see (see
`helmtest.kubeprovider`). Unsupported features make a test skipped with the reason, never passed.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aftershock.gocompat.gofmt import stringify_keys, stringify_keys_deep
from aftershock.gocompat.goyaml import GoUint, GoYamlError, load_first
from aftershock.gocompat.semver import satisfies
from aftershock.helmtest.charts import chart_metadata
from aftershock.helmtest.kubeprovider import effective_provider
from aftershock.helmtest.selection import ALL_TEMPLATES
from aftershock.helmtest.suite import (
    ChartOverride,
    TestJob,
    TestSuite,
    effective_capabilities,
    effective_chart,
    effective_release,
    effective_skip_reason,
)
from aftershock.helmtest.upstream import (
    DEFAULT_KUBE_MAJOR,
    DEFAULT_KUBE_MINOR,
    DEFAULT_NAMESPACE,
    DEFAULT_RELEASE_NAME,
)
from aftershock.helmtest.values import SetPathError, user_values
from aftershock.model.errors import AftershockError
from aftershock.render.interface import RenderRequest
from aftershock.render.workspaces.chart_copies import ChartCopies
from aftershock.safety.sandbox import Sandbox, SandboxError
from aftershock.testrun.provider_cluster import provider_snapshot

POST_RENDERER_REASON = (
    "postRenderer is not supported: aftershock never runs a command from the repository"
)
_RELEASE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_INVALID_RELEASE_NAME = (
    "invalid release name, must match regex "
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ "
    "and the length must not be longer than 53"
)


@dataclass(frozen=True)
class PlannedTest:
    """One test and what it needs: a render, or a reason it needs none."""

    suite: TestSuite
    test: TestJob
    chart_dir: str  # the chart under test, before any copy
    request: RenderRequest | None = None
    skip_reason: str = ""
    exec_error: str | None = None
    values_error: str | None = None  # Helm would fail before templates (invalid release name)
    unsupported: bool = False  # skipped for a feature aftershock does not support
    not_run: bool = False  # left out by the caller: no render, no outcome
    include: tuple[str, ...] = (ALL_TEMPLATES,)
    exclude: tuple[str, ...] = ()
    key: str | None = field(default=None)


def request_key(request: RenderRequest) -> str:
    """Identical keys render identically: chart folder, values and every release setting."""
    fields = [
        request.chart_dir,
        request.values,
        request.release_name,
        request.namespace,
        request.kube_version,
        list(request.api_versions),
        request.revision,
        request.is_upgrade,
    ]
    if request.cluster is not None:
        fields.append(request.cluster.digest)
    return json.dumps(fields, sort_keys=True, default=str)


def input_key(planned: PlannedTest) -> str | None:
    """The test's render inputs but the suite's template selection: tests with equal keys differ at
    most in which templates they render. Their count is the least number of renders sharing could
    reach if a chart rendered whole could stand for every selection (a measure; never used to share)."""
    request = planned.request
    if request is None:
        return None
    override = str(effective_chart(planned.suite, planned.test))
    return json.dumps([override, request_key(replace(request, chart_dir=planned.chart_dir))])


def json_ready(value: Any) -> Any:
    """Values as JSON can carry them to Helm: uint64 as int, every map key as text."""
    if isinstance(value, GoUint):
        return value.value
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in stringify_keys(value).items()}
    if isinstance(value, list):
        return [json_ready(item) for item in value]
    return value


def _shown_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


class Planner:
    """Plans tests in helm-unittest's order (the Kubernetes version carries over between tests)."""

    def __init__(self, copies: ChartCopies) -> None:
        self.copies = copies
        self.kube_major = DEFAULT_KUBE_MAJOR
        self.kube_minor = DEFAULT_KUBE_MINOR
        self._values_files: dict[Path, dict[str, Any] | str] = {}

    def _values_file(self, suite_file: str, given: str, sandbox: Sandbox) -> dict[str, Any]:
        try:
            path = sandbox.resolve(given, Path(suite_file).parent)
        except SandboxError as exc:
            raise ValueError(f"values file {exc}") from None
        if path not in self._values_files:
            self._values_files[path] = self._read_values(path, given)
        loaded = self._values_files[path]
        if isinstance(loaded, str):
            raise ValueError(loaded)
        return loaded

    @staticmethod
    def _read_values(path: Path, given: str) -> dict[str, Any] | str:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return f"open {_shown_path(path)}: no such file or directory"
        try:
            loaded = load_first(text)
        except GoYamlError as exc:
            return f"failed to parse {given}: {exc}"
        if loaded is None:
            return {}
        if not isinstance(loaded, dict):
            return (
                f"failed to parse {given}: yaml: unmarshal errors:\n  line 1: cannot "
                f"unmarshal into map[string]interface {{}}"
            )
        return stringify_keys(loaded)

    def _chart_for(
        self, chart_dir: str, suite: TestSuite, override: ChartOverride, kube_version: str
    ) -> str:
        """The chart folder to render: a copy with the metadata override and only the
        suite's templates (and every partial), which is what helm-unittest renders."""
        if override:
            chart_dir = self.copies.with_metadata(chart_dir, override)
        if not _kube_version_accepted(chart_dir, kube_version):
            chart_dir = self.copies.without_kube_version(chart_dir)
        if _restricted(suite):
            chart_dir = self.copies.with_templates(
                chart_dir, suite.chart_route, suite.templates, suite.exclude_templates
            )
        return chart_dir

    def plan(
        self, chart_dir: str, suite: TestSuite, test: TestJob, sandbox: Sandbox
    ) -> PlannedTest:
        base = PlannedTest(
            suite,
            test,
            chart_dir,
            include=suite.templates or (ALL_TEMPLATES,),
            exclude=suite.exclude_templates,
        )
        skip = effective_skip_reason(suite, test)
        if skip:
            return replace(base, skip_reason=skip)
        try:
            files = [
                self._values_file(suite.file, given, sandbox)
                for given in suite.values + test.values
            ]
            # keys as the JSON the render is sent in has them (a `1:` key is "1")
            values = stringify_keys_deep(
                user_values(files, dict(suite.set), dict(test.set), suite.chart_route)
            )
        except (ValueError, SetPathError) as exc:
            return replace(base, exec_error=str(exc))
        release = effective_release(suite, test)
        if release.name and (len(release.name) > 53 or not _RELEASE_NAME.fullmatch(release.name)):
            return replace(base, values_error=_INVALID_RELEASE_NAME)
        capabilities = effective_capabilities(suite, test)
        self.kube_major = capabilities.major_version or self.kube_major
        self.kube_minor = capabilities.minor_version or self.kube_minor
        unsupported = _unsupported(suite, test)
        if unsupported:
            return replace(base, skip_reason=unsupported, unsupported=True)
        kube_version = f"v{self.kube_major}.{self.kube_minor}.0"
        try:
            render_dir = self._chart_for(
                chart_dir, suite, effective_chart(suite, test), kube_version
            )
        except AftershockError as exc:
            return replace(base, exec_error=exc.line())
        request = RenderRequest(
            chart_dir=render_dir,
            values=json_ready(values),
            release_name=release.name or DEFAULT_RELEASE_NAME,
            namespace=release.namespace or DEFAULT_NAMESPACE,
            kube_version=kube_version,
            api_versions=tuple(capabilities.api_versions or ()),
            revision=release.revision,
            is_upgrade=release.upgrade,
            cluster=provider_snapshot(
                effective_provider(suite.kubernetes_provider, test.kubernetes_provider), json_ready
            ),
        )
        return replace(base, request=request, key=request_key(request))


@functools.lru_cache(maxsize=256)
def _kube_constraint(chart_dir: str) -> str:
    constraint = chart_metadata(Path(chart_dir)).get("kubeVersion")
    return str(constraint) if constraint else ""


def _kube_version_accepted(chart_dir: str, kube_version: str) -> bool:
    """Whether the render backend's kubeVersion check lets the chart render at this version."""
    constraint = _kube_constraint(chart_dir)
    if not constraint:
        return True
    try:
        return satisfies(kube_version, constraint)
    except ValueError:
        return False


def _restricted(suite: TestSuite) -> bool:
    """Whether the suite renders less than every template (it names templates or excludes some)."""
    return (bool(suite.templates) and suite.templates != (ALL_TEMPLATES,)) or bool(
        suite.exclude_templates
    )


def _unsupported(suite: TestSuite, test: TestJob) -> str:
    if test.post_renderer or suite.post_renderer:
        return POST_RENDERER_REASON
    return ""
