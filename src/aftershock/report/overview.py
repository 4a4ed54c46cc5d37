"""The summary a person reads first, derived from the canonical JSON document.

It owns what every format shows before the details: each verdict with its top three reasons; one
line per chart install saying what changed (version and appVersion bumps, images, replicas, objects
added, removed and changed); the tests newly failing; identical field changes repeated over many
objects as one group (a value that is each object's own name, or its release's, is the same);
scenario lists bounded; not-reviewed reasons on one line. Pure functions.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from aftershock.report.concern_groups import grouped
from aftershock.report.shown import listed_objects, own_names, version_phrases
from aftershock.report.text import (
    chart_moves,
    first_names,
    fixed_phrases,
    install_label,
    scenario_label,
    value_text,
    without_dependencies,
)

TOP_REASONS = 3
MIN_GROUP_OBJECTS = 3  # an identical field change on this many objects is shown once, as a group
MAX_REASON_CHARS = 240
_IMAGE = re.compile(
    r"^spec\.(?:template\.spec\.|jobTemplate\.spec\.template\.spec\.)?(?:initC|c)ontainers\[name=([^\]]+)\]\.image$"
)
_REPLICAS = ("spec.replicas",)


@dataclass(frozen=True)
class VerdictSummary:
    title: str
    level: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class ChartLine:
    """What changed in one chart install, as short phrases ("version 41.2.0 → 41.3.0", "2 objects changed")."""

    label: str
    phrases: tuple[str, ...]
    installs: int = 1  # the installs the line stands for (those rendering identically, as one)


@dataclass(frozen=True)
class FieldGroup:
    """One identical field change (path, kind, values) found on several objects."""

    key: str  # field_key of the change
    path: str
    text: str  # e.g. `added "platform"`
    objects: tuple[str, ...]  # object ids
    charts: tuple[str, ...]  # chart installs: a chart path, or path@release

    @property
    def line(self) -> str:
        return f"{self.path} {self.text} on {len(self.objects)} objects in {len(self.charts)} chart install(s)"


@dataclass(frozen=True)
class ScenarioLine:
    chart: str
    text: str


def one_line(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """The first line of a text, whitespace folded, cut at `limit` characters."""
    stripped = str(text).strip()
    first = " ".join(stripped.splitlines()[0].split()) if stripped else ""
    more = len(stripped.splitlines()) > 1
    if len(first) > limit:
        return first[: limit - 1] + "…"
    return first + (" …" if more else "")


def verdict_summaries(doc: dict[str, Any]) -> tuple[VerdictSummary, ...]:
    """Each verdict with the three findings (or groups) that weigh most on it, worst first; parts
    not reviewed are its confidence (its title line), not reasons for its level."""
    section = doc.get("findings")
    if not section:
        return ()
    actionable = [i for i in section["items"] if i["actionable"]]
    out = []
    for key in ("merge", "security"):
        verdict = section["verdicts"][key]
        items = (
            actionable if key == "merge" else [i for i in actionable if i["category"] == "security"]
        )
        reasons = [
            one_line(
                f"{i['severity'].capitalize()} · {i['category']}: {i['message']} ({i['rule']})"
            )
            for i in grouped(items)
        ]
        if not reasons:
            reasons = [one_line(r) for r in verdict["reasons"]] or ["no actionable finding"]
        out.append(VerdictSummary(verdict["title"], verdict["level"], tuple(reasons[:TOP_REASONS])))
    return tuple(out)


def chart_lines(doc: dict[str, Any]) -> tuple[ChartLine, ...]:
    """One line per chart install a change reaches: metadata bumps, images, replicas, object counts."""
    charts = {c["path"]: c for c in doc["charts"]}
    installs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in doc["chart_reviews"]:
        installs[r["id"].split("#", 1)[0]].append(r)
    objects: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for obj in _default_objects(doc):
        objects[obj["review"].split("#", 1)[0]].append(obj)
    elsewhere = _changed_elsewhere(doc)
    moved = chart_moves(doc.get("files", []))
    lines = []
    for install, reviews in installs.items():
        first = reviews[0]
        phrases = [] if first["release"] else list(_bumps(charts.get(first["chart"])))
        failed = [r["scenario"] for r in reviews if r["outcome"] == "not_reviewed"]
        if failed:
            phrases.append(f"not reviewed in {len(failed)} scenario(s)")
        phrases += fixed_phrases(reviews)
        left_out = {t["template"] for r in reviews for t in r.get("templates_not_rendered", ())}
        if left_out:  # rendered by template: nothing is said of these templates but that
            phrases.append(
                f"{len(left_out)} template(s) not rendered: {first_names(sorted(left_out))}"
            )
        without = {d["dependency"] for r in reviews for d in r.get("dependencies_not_rendered", ())}
        if without:  # its objects are not reviewed; the rest is
            phrases.append(without_dependencies(first_names(sorted(without)), len(without)))
        own = _object_phrases(objects.get(install, []))
        if install in elsewhere:  # a version bump, or the default's changes, must not hide them
            own.append(_elsewhere_phrase(*elsewhere[install], by_default=bool(own)))
        phrases += own
        said = tuple(phrases) or ("renders identically",)
        came = moved.get(first["chart"]) if not first["release"] else None
        lines.append(
            ChartLine(install_label(first), (f"moved from {came}", *said) if came else said)
        )
    return _changed_first(lines)


def _changed_first(lines: list[ChartLine]) -> tuple[ChartLine, ...]:
    """The installs that render differently first; those that render identically after, as one line
    when there are more than two of them."""
    same = [line for line in lines if line.phrases == ("renders identically",)]
    rest = [line for line in lines if line not in same]
    if len(same) <= 2:
        return (*rest, *same)
    names = ", ".join(line.label for line in same[:2])
    return (
        *rest,
        ChartLine(
            f"{len(same)} other install(s)", (f"render identically ({names}, …)",), len(same)
        ),
    )


def _changed_elsewhere(doc: dict[str, Any]) -> dict[str, tuple[list[str], int]]:
    """Install -> the other scenarios in which objects changed (in more than ignored fields) that its
    default scenario did not change, and how many objects, for the installs with a default."""
    with_default = {r["id"] for r in doc["chart_reviews"] if r["scenario"] == "default"}
    listed = listed_objects(doc["objects"])
    by_default = {
        (o["review"].split("#", 1)[0], o["key"]["id"])
        for o in listed
        if "default" in (o["scenario"], *o.get("same_in", ()))
    }
    scenarios: defaultdict[str, set[str]] = defaultdict(set)
    keys: defaultdict[str, set[str]] = defaultdict(set)
    for obj in listed:
        install = obj["review"].split("#", 1)[0]
        if install in with_default and (install, obj["key"]["id"]) not in by_default:
            scenarios[install].update([obj["scenario"], *obj.get("same_in", ())])
            keys[install].add(obj["key"]["id"])
    return {install: (sorted(scenarios[install]), len(found)) for install, found in keys.items()}


def _elsewhere_phrase(scenarios: list[str], objects: int, by_default: bool) -> str:
    """What a chart line adds for objects only other scenarios changed: never "identically" alone
    when the default changed nothing, and the count beside the default's when it did."""
    where = (
        f"scenario {scenario_label(scenarios[0])}"
        if len(scenarios) == 1
        else f"{len(scenarios)} other scenario(s)"
    )
    if by_default:
        return f"{objects} more in {where}"
    return f"renders identically by default; {objects} object(s) changed in {where}"


def _default_objects(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The object changes of each install's default scenario (another scenario's when it has no default)."""
    with_default = {r["id"] for r in doc["chart_reviews"] if r["scenario"] == "default"}
    return listed_objects(
        [
            o
            for o in doc["objects"]
            if o["scenario"] == "default" or o["review"].split("#", 1)[0] not in with_default
        ]
    )


def _bumps(chart: dict[str, Any] | None) -> Iterable[str]:
    if chart is None:
        return
    base_version, base_app = chart.get("base_version"), chart.get("base_app_version")
    if base_version is not None and base_version != chart["version"]:
        yield f"version {base_version} → {chart['version']}"
    if base_version is not None and base_app != chart["app_version"]:
        yield f"appVersion {base_app or 'unset'} → {chart['app_version'] or 'unset'}"


def _object_phrases(objects: list[dict[str, Any]]) -> list[str]:
    phrases: list[str] = []
    images = sorted(
        {
            f"image {value_text(f['before'], f['change'] != 'added')} → {value_text(f['after'], f['change'] != 'removed')}"
            for o in objects
            for f in o["fields"]
            if _IMAGE.match(f["path"])
        }
    )
    more = [f"{len(images) - 3} more image change(s)"] if len(images) > 3 else []
    phrases += images[:3] + more + version_phrases(objects)[:3]
    for o in objects:
        for f in o["fields"]:
            if f["path"] in _REPLICAS and f["change"] == "modified":
                phrases.append(
                    f"replicas {value_text(f['before'])} → {value_text(f['after'])} ({o['key']['kind']} {o['key']['name']})"
                )
    counts: defaultdict[str, int] = defaultdict(int)
    for o in objects:
        counts[o["change"]] += 1
    phrases += [
        f"{n} object(s) {kind}"
        for kind, n in sorted(counts.items(), key=lambda item: _CHANGE_ORDER.get(item[0], 9))
    ]
    return phrases


_CHANGE_ORDER = {"added": 0, "removed": 1, "renamed": 2, "changed": 3}


def field_groups(doc: dict[str, Any]) -> tuple[FieldGroup, ...]:
    """Identical field changes (same path, kind and values, a value that is each object's own name
    or its release's counting as the same) on at least MIN_GROUP_OBJECTS objects, largest first."""
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    texts: dict[str, tuple[str, str]] = {}
    for obj in listed_objects(doc["objects"]):
        for f in obj["fields"]:
            key = field_key(f, obj)
            members[key].append(obj)
            texts[key] = (f["path"], _change_text(f, own_names(obj)))
    groups = [
        FieldGroup(
            key,
            texts[key][0],
            texts[key][1],
            tuple(dict.fromkeys(o.get("identity", o["id"]) for o in objs)),  # once across scenarios
            tuple(dict.fromkeys(o["review"].split("#", 1)[0] for o in objs)),
        )
        for key, objs in members.items()
        if len({o.get("identity", o["id"]) for o in objs}) >= MIN_GROUP_OBJECTS
    ]
    return tuple(sorted(groups, key=lambda g: (-len(g.objects), g.path)))


def field_key(field: dict[str, Any], obj: dict[str, Any] | None = None) -> str:
    """What makes two field changes identical: path, kind and both values, where a value that is
    the name of the object changed (or of the release installing it) counts as that name: 28
    Deployments that each add their own name as a label make one change."""
    names = own_names(obj) if obj is not None else {}
    return json.dumps(
        [field["path"], field["change"], *(_named(field[v], names) for v in ("before", "after"))],
        sort_keys=True,
        default=str,
    )


def _named(value: Any, names: dict[str, str]) -> Any:
    return {"named": names[value]} if isinstance(value, str) and value in names else value


def _change_text(field: dict[str, Any], names: dict[str, str] | None = None) -> str:
    said = {side: _said(field[side], names or {}) for side in ("before", "after")}
    if field["change"] == "added":
        return f"added {said['after']}"
    if field["change"] == "removed":
        return f"removed (was {said['before']})"
    if field["change"] == "reordered":
        return "reordered"
    return f"{said['before']} → {said['after']}"


def _said(value: Any, names: dict[str, str]) -> str:
    return names[value] if isinstance(value, str) and value in names else value_text(value)


def newly_failing_tests(doc: dict[str, Any]) -> tuple[str, ...]:
    """`chart/suite · test: failure`, one line each, for every test passing at base and failing at head."""
    section = doc.get("tests") or {}
    return tuple(
        one_line(
            f"{c['chart']}/{t['suite_file']} · {t['test']}: {(t['head'] or {}).get('failure', '')}"
        )
        for c in section.get("charts", [])
        for t in c["tests"]
        if t["change"] == "newly_failing"
    )


def scenario_lines(doc: dict[str, Any]) -> tuple[ScenarioLine, ...]:
    """Per chart: how many scenarios ran, changed, failed and were cut, naming the first few of each."""
    out = []
    for s in doc["scenarios"]:
        identity = _identity_phrase(s, _rendered_scenarios(doc, s["chart"]))
        if _rendered_in_part(doc, s["chart"]):  # never "identically" of what was left out
            identity = identity.replace("renders identically", "what rendered renders identically")
        parts = [f"{len(s['ran'])} ran", identity]
        new_keys = _new_keys_at_base(doc, s["chart"])
        if new_keys:
            parts.append(f"base rendered without {first_names(new_keys)} (keys new at head)")
        for key, label in (
            ("not_reviewed_in", "not reviewed in"),
            ("fixed_in", "fixed (failed at base, render at head)"),
            ("invalid", "rejected at both refs"),
            ("cut", "cut by the cap"),
        ):
            if key == "cut" and s[key] and _every_changed_line_ran(doc, s["chart"]):
                parts.append(f"{len(s[key])} {label} (named in the JSON; every changed line ran)")
            elif s.get(key):
                parts.append(f"{len(s[key])} {label}: {first_scenarios(s[key])}")
        out.append(ScenarioLine(s["chart"], "; ".join(parts)))
    return tuple(out)


def _every_changed_line_ran(doc: dict[str, Any], chart: str) -> bool:
    """Whether the change edits lines of the chart's own templates and some render ran each: then
    which scenarios the cap cut is no part of what the reader must weigh."""
    prefix = f"{chart}/templates/" if chart else "templates/"
    runs = [r for r in doc.get("changed_lines", ()) if r["path"].startswith(prefix)]
    return bool(runs) and all(r["evidence"] != "none" for r in runs)


def _new_keys_at_base(doc: dict[str, Any], chart: str) -> list[str]:
    """The keys new at head that the chart's scenarios set and their base was rendered without."""
    return sorted(
        {
            key
            for r in doc["chart_reviews"]
            if r["chart"] == chart and r["release"] is None
            for key in r.get("keys_left_out_at_base", ())
        }
    )


def _rendered_scenarios(doc: dict[str, Any], chart: str) -> int:
    """How many of the chart's own scenarios rendered at base and head (changed or not)."""
    return sum(
        1
        for r in doc["chart_reviews"]
        if r["chart"] == chart and r["release"] is None and r["outcome"] in _RENDERED
    )


_RENDERED = ("changed", "unchanged")


def _rendered_in_part(doc: dict[str, Any], chart: str) -> bool:
    """Whether a scenario of the chart rendered without some templates or dependencies."""
    return any(
        r["partial"] for r in doc["chart_reviews"] if r["chart"] == chart and r["release"] is None
    )


def _identity_phrase(summary: dict[str, Any], rendered: int) -> str:
    """What the scenarios that rendered say; "identical" only of scenarios that rendered at all."""
    if summary["changed_in"]:
        return f"changes in {len(summary['changed_in'])}: {first_scenarios(summary['changed_in'])}"
    if rendered == 0:
        return "rendered in no scenario"
    if rendered < len(summary["ran"]):
        return f"renders identically in the {rendered} that rendered"
    return "renders identically in all"


def first_scenarios(names: list[str]) -> str:
    """The first few scenarios, by their short labels."""
    return first_names([scenario_label(n) for n in names])
