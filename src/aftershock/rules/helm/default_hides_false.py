"""Rule default-hides-false: a template line the change writes gives a value a `default` that is
true (`.Values.x | default true`, `default $.Values.global.y .Values.x`): `default` treats false as
empty, so setting the value to false changes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.diff.values_keys import chart_defaults
from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.units import Chart
from aftershock.releases.values import value_at
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl")
_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}")
_PATH = r"\$?\.?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*"  # .Values.a.b, $.Values.a, $c.x, $x
_END = r"(?=\s*(?:\||\)|$))"  # the end of a pipeline stage
_TRUE = r'true|"true"'  # a fallback that is true as it stands
# `VALUE | default FALLBACK`, VALUE a whole stage (not the last argument of a function: after the
# action's start, a bracket, a pipe, `if`, `with` or an assignment), and the call `default FALLBACK VALUE`
_PIPED = re.compile(
    rf"(?:^|[(|]|\bif|\bwith|:?=)\s*(?P<value>{_PATH})\s*\|\s*default\s+(?P<fallback>{_TRUE}|{_PATH}){_END}"
)
_CALLED = re.compile(
    rf"(?:^|[\s(])default\s+(?P<fallback>{_TRUE}|{_PATH})\s+(?P<value>{_PATH}){_END}"
)
_VALUES = re.compile(r"^\$?\.Values\.")


def _defaults_path(expression: str) -> tuple[str, ...] | None:
    """The values path of `.Values.a.b` or `$.Values.a.b`, else None (a variable, a field of one)."""
    if not _VALUES.match(expression):
        return None
    return tuple(_VALUES.sub("", expression).split("."))


def _traps(text: str, defaults: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(value, fallback) of each `default` in the line's actions that turns a false value true: the
    fallback is `true`, or a values path whose chart default is true; the value is no non-boolean
    setting of the chart (a text that is empty when unset is what `default` is for)."""
    for action in _ACTION.findall(text):
        for pattern in (_PIPED, _CALLED):
            for match in pattern.finditer(action):
                value, fallback = match.group("value"), match.group("fallback")
                fallback_path = _defaults_path(fallback)
                if fallback not in ("true", '"true"') and (
                    fallback_path is None or value_at(defaults, fallback_path) is not True
                ):
                    continue
                value_path = _defaults_path(value)
                if value_path is not None and not isinstance(
                    value_at(defaults, value_path), (bool, type(None))
                ):
                    continue
                yield value, fallback


def _chart_of(template: str, charts: tuple[Chart, ...]) -> Chart | None:
    """The chart whose own `templates/` folder holds the template (the innermost)."""
    holders = [c for c in charts if template.startswith(f"{c.path}/templates/".lstrip("/"))]
    return max(holders, key=lambda c: len(c.path), default=None)


def _concern(template: str, line: int, value: str, fallback: str, chart: str) -> Concern:
    gives = fallback if fallback in ("true", '"true"') else f"{fallback} (true)"
    return Concern(
        subject=Subject(SubjectKind.FILE, f"{template}#{value}", template, value),
        message=f"{template}:{line} gives {value} the default {gives}: `default` takes false for empty, "
        f"so {value} set to false renders as true and cannot switch it off",
        delta=Delta.INTRODUCED,
        location=Location(template, line),
        path=(PathStep("file", template, f"line {line}: {value} | default {fallback}"),),
        facts=(Fact("value", value), Fact("default", fallback)),
        scope_paths=(chart, template),
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    defaults: dict[str, Mapping[str, Any]] = {}
    for change in ctx.review.files:
        template = change.path
        if "templates/" not in template or not template.endswith(TEMPLATE_SUFFIXES):
            continue
        chart = _chart_of(template, ctx.review.charts)
        if chart is None:
            continue
        if chart.path not in defaults:
            defaults[chart.path] = chart_defaults(ctx.sources.head.get, chart.path)
        before = ctx.sources.base.get(change.old_path or template) or ""
        at_base = {
            trap for line in before.splitlines() for trap in _traps(line, defaults[chart.path])
        }
        said: set[str] = set()  # one concern per value of a template, at its first line
        for added in ctx.index.added_lines(template):
            for value, fallback in _traps(added.text, defaults[chart.path]):
                if (value, fallback) not in at_base and value not in said:  # else not the change's
                    said.add(value)
                    yield _concern(template, added.line, value, fallback, chart.path)


RULE = Rule(
    id="default-hides-false",
    title="`default` turns false into true",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="A template line the change adds that gives a value a `default` which is true: `{{ .Values.x | "
        "default true }}`, `{{ default true .Values.x }}`, or a default that is a values path whose chart "
        "default is true (`default $.Values.etcd.useEncryption $cluster.etcdEncryption`). A value the chart "
        "defaults to something other than a boolean is left out, as are lines whose same `default` stood in "
        "the file at base (not the change's). Read from the template text, so inferred; Go's `default` "
        "semantics make it certain for a boolean.",
        why="Sprig's `default` returns its fallback whenever the value is *empty*, and false is empty: a user, "
        "a release or a per-cluster override that sets the value to false gets true. A switch that cannot be "
        "turned off (`privileged`, an encryption provider, a feature gate) looks configurable in values.yaml "
        "and silently is not.",
        example="    securityContext:\n      privileged: {{ .Values.init.privileged | default true }}\n"
        "    # init.privileged: false still renders privileged: true",
        fix="Set the default in values.yaml and use the value as it is, or test for the key: "
        '`{{ ternary .Values.x true (hasKey .Values "x") }}`, `{{- if hasKey $cluster "etcdEncryption" }}`.',
    ),
)
