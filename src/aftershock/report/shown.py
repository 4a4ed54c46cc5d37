"""The object changes a report lists: those fields `review.ignore_fields` marks (a chart's version
labels, checksum annotations) left out, and an object that changed in nothing else left out too
(counted, and kept in the JSON)."""

from __future__ import annotations

import json
import re
from typing import Any

from aftershock.model.diff import VERSION_FIELDS
from aftershock.model.releases import split_release_id
from aftershock.report.text import comparable_field, scenarios_phrase


def visible(obj: dict[str, Any]) -> dict[str, Any] | None:
    """`obj` without its ignored fields; None when it changed only in them."""
    fields = [f for f in obj["fields"] if not f.get("ignored")]
    if obj["change"] == "changed" and obj["fields"] and not fields:
        return None
    return obj if len(fields) == len(obj["fields"]) else {**obj, "fields": fields}


def listed_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects a report lists, each as `visible` shows it."""
    return [shown for obj in objects if (shown := visible(obj)) is not None]


def ignored_only(doc: dict[str, Any]) -> int:
    """How many changed objects (a default scenario's entry counting once for the scenarios that
    changed it alike) changed only in ignored fields."""
    return sum(visible(o) is None for o in doc["objects"])


def ignored_line(doc: dict[str, Any]) -> str | None:
    count = ignored_only(doc)
    if not count:
        return None
    return (
        f"{count} object(s) changed only in ignored fields (review.ignore_fields: version labels, "
        "checksum annotations by default): listed in the JSON"
    )


MAX_KEYS_LISTED = 3


def values_lines(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(file, what changed) of the values keys: one line per key, except that a file (or release)
    whose keys are all added, or all removed, says so once with their count ("release added, 36
    keys") when it has more than a few, and a change said alike of many files is said once."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for change in doc["values_changes"]:
        by_file.setdefault(change["file"], []).append(change)
    lines = []
    for file, changes in by_file.items():
        kinds = {c["change"] for c in changes}
        if len(changes) > MAX_KEYS_LISTED and kinds in ({"added"}, {"removed"}):
            named = ", ".join(c["path"] for c in changes[:MAX_KEYS_LISTED])
            kind = kinds.pop()
            lines.append((file, f"{len(changes)} keys {kind} ({named}, …): all of it is {kind}"))
        else:
            lines += [(file, c["description"]) for c in changes]
    return alike_once(lines)


MIN_ALIKE = 3  # values files (releases) changing a key alike, said once
NAMED_ALIKE = 3  # of the others, named; the rest are counted


def alike_once(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lines with the same change said of MIN_ALIKE or more files said once, where the first
    stood, its file naming the others (`release … default/atuin and 16 more (default/autobrr, …)`)."""
    files: dict[str, list[str]] = {}
    for file, text in lines:
        files.setdefault(text, []).append(file)
    out = []
    for file, text in lines:
        alike = files[text]
        if len(alike) < MIN_ALIKE:
            out.append((file, text))
        elif file == alike[0]:
            others = [_after_shared_words(other, file) for other in alike[1:]]
            named = ", ".join(others[:NAMED_ALIKE]) + (", …" if len(others) > NAMED_ALIKE else "")
            out.append((f"{file} and {len(others)} more ({named})", text))
    return out


def _after_shared_words(label: str, first: str) -> str:
    """`default/autobrr` of `release HelmRelease.x default/autobrr` after `release HelmRelease.x default/atuin`."""
    words, shared = label.split(" "), first.split(" ")
    same = next((i for i, (a, b) in enumerate(zip(words, shared)) if a != b), len(words))
    return " ".join(words[same:]) or label


def commit_line(doc: dict[str, Any]) -> tuple[int, list[tuple[str, str]]]:
    """How many commits the change holds, and the (short sha, title) of the one, or of the first
    and the last."""
    commits = doc["commits"]
    shown = commits if len(commits) <= 1 else [commits[0], commits[-1]]
    return len(commits), [(c["short_sha"], c["title"]) for c in shown]


_LIST_INDEX = re.compile(r"\[\d+\]")


def merged_across_scenarios(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per object of one install and change kind, across the scenarios that rendered it:
    `scenarios` names those it changed in, `rendered` those that rendered it, and each field names
    its own `scenarios` (an entry added at position 12 in one scenario and 11 in another is one
    field, shown at the first). A field's `id` is the entry that carries it, for its provenance. An
    entry stands for its own scenario and for those its `same_in` names; scenarios keep the order
    the object rendered in."""
    groups: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for obj in objects:
        previous = (obj.get("previous_key") or {}).get("id", "")
        key = (obj["identity"], obj["change"], obj["key"]["id"], previous)
        scenarios = [obj.get("scenario", "default"), *obj.get("same_in", ())]
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                **obj,
                "scenarios": [],
                "fields": [],
                "templates": [],
                "rendered": obj["rendered_in"] or scenarios[:1],
                "_fields": {},
            }
        group["scenarios"] += scenarios
        group["templates"] += [t for t in obj["templates"] if t not in group["templates"]]
        for field in obj["fields"]:
            fingerprint = _field_fingerprint(field)
            if fingerprint not in group["_fields"]:
                group["_fields"][fingerprint] = {**field, "id": obj["id"], "scenarios": []}
                group["fields"].append(group["_fields"][fingerprint])
            group["_fields"][fingerprint]["scenarios"] += scenarios
    for group in groups.values():
        _in_rendered_order(group)
    return list(groups.values())


def _field_fingerprint(field: dict[str, Any]) -> str:
    """What makes two scenarios' changes of a field one change: the same entry added at another
    list position is one, and so is the same edit to a text (`comparable_field`)."""
    same = comparable_field({**field, "path": _LIST_INDEX.sub("[#]", field["path"])})
    return json.dumps(same, sort_keys=True, default=str)


def _in_rendered_order(group: dict[str, Any]) -> None:
    """The group's and its fields' scenarios in the order the object rendered in (a scenario it
    did not render in, last)."""
    order = {scenario: n for n, scenario in enumerate(group["rendered"])}

    def place(scenario: str) -> int:
        return order.get(scenario, len(order))

    group["scenarios"].sort(key=place)
    for field in group.pop("_fields").values():
        field["scenarios"].sort(key=place)


def field_where(obj: dict[str, Any], field: dict[str, Any]) -> str | None:
    """Where a field of a merged object changed, when not in every scenario the object changed in."""
    if set(field["scenarios"]) == set(obj["scenarios"]):
        return None
    if len(field["scenarios"]) > 1 and "default" not in field["scenarios"]:
        return f"in {len(field['scenarios'])} of {len(obj['rendered'])} scenarios"  # named above
    return scenarios_phrase(field["scenarios"], obj["rendered"])


def version_phrases(objects: list[dict[str, Any]]) -> list[str]:
    """`OCIRepository konflate tag 0.6.0 → 0.6.1` for each version field an object changes (what a
    release's chart bump says of itself), each once."""
    found = {
        f"{o['key']['kind']} {o['key']['name']} {last} {f['before']} → {f['after']}"
        for o in objects
        for f in o["fields"]
        if (last := f["path"].rsplit(".", 1)[-1]) in VERSION_FIELDS
        and isinstance(f["before"], str)
        and isinstance(f["after"], str)
    }
    return sorted(found)


# What installs a release; a Flux Kustomization builds and installs none.
_RELEASE_KINDS = ("HelmRelease", "Application")


def own_names(obj: dict[str, Any]) -> dict[str, str]:
    """The texts a field value may be that name its object: its own name, its release's name."""
    names = {}
    _, _, release = obj["review"].split("#", 1)[0].partition("@")  # `chart@release id`
    if release.count("/") >= 3:
        key, _ = split_release_id(release)
        if key.kind in _RELEASE_KINDS and key.name:
            names[key.name] = "its release's name"
    if obj["key"]["name"]:
        names[obj["key"]["name"]] = "the object's name"
    return names
