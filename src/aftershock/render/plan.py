"""Which charts to render at which ref, what each needs on disk, and where its templates live in the repo."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aftershock.model.change import FileChange, FileStatus
from aftershock.model.contexts import RenderInputs
from aftershock.model.units import AffectedChart, Chart, chart_move, dependency_closure

__all__ = [
    "TEMPLATE_SUFFIXES",
    "ChartPlan",
    "RenderInputs",
    "dependency_closure",
    "may_be_nondeterministic",
    "plan_renders",
    "template_repo_path",
]

# The files a chart's text may be a template in (or one a template reads through `.Files` and `tpl`).
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt", ".json")
# Sprig/Helm functions whose output differs between two renders of the same input, called by name:
# not a field (`.Values.date`), a variable (`$now`) or a word in a string literal.
_NONDETERMINISTIC = re.compile(
    r"(?<![\w.$])(randAlphaNum|randAlpha|randNumeric|randAscii|randBytes|randInt|uuidv4|genCA|"
    r"genCAWithKey|genPrivateKey|genSelfSignedCert|genSelfSignedCertWithKey|genSignedCert|"
    r"genSignedCertWithKey|htpasswd|bcrypt|now|date|dateInZone|unixEpoch|shuffle)\b"
)
# Sprig's `keys` and `values` list a dict in Go's map order, which changes from run to run, unless
# the action sorts what they return.
_UNORDERED = re.compile(r"(?<![\w.$])(keys|values)\b")
_ACTION = re.compile(r"\{\{.*?\}\}", re.DOTALL)
# Go template string literals ("…" with escapes, `…` raw) and comments: no call is in them
_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|/\*.*?\*/', re.DOTALL)


@dataclass(frozen=True)
class ChartPlan:
    """One affected chart that Helm can install on its own, as it is at base and at head.

    A chart installed by a release is planned once per release (`release` names it), with the values
    the release passes on each side.
    """

    path: str
    name: str
    affected: AffectedChart
    base: Chart | None
    head: Chart | None
    release: str | None = None
    base_inputs: RenderInputs = RenderInputs()
    head_inputs: RenderInputs = RenderInputs()
    scenario: str = "default"
    cluster: str | None = (
        None  # where the release that installs it deploys (kubeConfig or Argo destination)
    )

    @property
    def id(self) -> str:
        plan_id = f"{self.path}@{self.release}" if self.release else self.path
        return plan_id if self.scenario == "default" else f"{plan_id}#{self.scenario}"


def plan_renders(
    affected: Iterable[AffectedChart],
    charts_base: Iterable[Chart],
    charts_head: Iterable[Chart],
    moved: Mapping[str, str] | None = None,
) -> tuple[ChartPlan, ...]:
    """Affected charts that are renderable at base or head; library and embedded charts render via
    parents. A chart the change moves (`moved`: its folder at head -> at base, where its Chart.yaml
    is renamed) is one plan, its base rendered from the old folder: a move that changes nothing
    renders identically, rather than as every object removed and added."""
    base = {c.path: c for c in charts_base if c.renderable}
    head = {c.path: c for c in charts_head if c.renderable}
    items = list(affected)
    wanted = {item.chart for item in items}
    moves = {
        new: old
        for new, old in (moved or {}).items()
        if new in wanted and new in head and old in base and old not in head and new not in base
    }
    plans = []
    for item in items:
        if item.chart in moves.values():
            continue  # planned with the folder it moved to
        b = base.get(moves.get(item.chart, item.chart))
        h = head.get(item.chart)
        chart = h or b
        if chart is not None:
            plans.append(ChartPlan(item.chart, chart.name, item, b, h))
    return tuple(plans)


def moved_charts(files: Iterable[FileChange]) -> dict[str, str]:
    """The folders of charts the change moves, at head -> at base: where git reads a Chart.yaml as
    renamed to another folder's."""
    moves = (chart_move(f.path, f.old_path) for f in files if f.status is FileStatus.RENAMED)
    return dict(m for m in moves if m is not None)


def may_be_nondeterministic(template_texts: Iterable[str]) -> bool:
    """True when a template may call a function whose output changes from one render to the next:
    its name inside a `{{ ... }}` action (words in YAML text, such as `format: date-time` in a CRD,
    call nothing), or `keys`/`values` in an action that does not sort them. Also for values texts,
    which `tpl` may render."""
    return any(
        _varies(_LITERAL.sub('""', action))
        for text in template_texts
        if "{{" in text
        for action in _ACTION.findall(text)
    )


def _varies(code: str) -> bool:
    if _NONDETERMINISTIC.search(code):
        return True
    return _UNORDERED.search(code) is not None and "sortAlpha" not in code


def template_repo_path(helm_path: str, chart: Chart, charts: Mapping[str, Chart]) -> str:
    """Map Helm's `name/charts/sub/templates/x.yaml` to the repository path of that template file; a
    chart from outside the repository keeps Helm's name (`app-template/templates/common.yaml`), never
    the folder of the review's workspace it was unpacked in."""
    if chart.source is not None:
        return helm_path
    parts = helm_path.split("/")[1:]
    current = chart
    while len(parts) >= 2 and parts[0] == "charts":
        sub = _subchart(current, parts[1], charts)
        if sub is None:
            break
        current, parts = sub, parts[2:]
    prefix = f"{current.path}/" if current.path else ""
    return prefix + "/".join(parts)


def _subchart(chart: Chart, name: str, charts: Mapping[str, Chart]) -> Chart | None:
    for dep in chart.dependencies:
        target = charts.get(dep.resolved_path or "")
        if target is not None and name in (dep.name, target.name, dep.alias):
            return target
    return None
