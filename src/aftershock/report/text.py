"""Short human phrases shared by the Markdown and terminal formats, computed from the JSON document."""

from __future__ import annotations

import json
from typing import Any

from aftershock.diff.fields import diff_documents
from aftershock.diff.text_edits import comparable_value, is_digest, line_diff
from aftershock.model.releases import split_release_id
from aftershock.model.units import chart_move

MAX_VALUE_CHARS = 80
MAX_JSON_EDITS = 3  # inner changes a JSON text's line names before it counts the rest
DIGEST_CHARS = 12


def value_text(value: Any, present: bool = True) -> str:
    """A field value for humans: redacted Secret values show only their size."""
    if not present:
        return "absent"
    if isinstance(value, dict) and value.get("redacted") is True:
        # an empty value holds nothing to hide: say it is empty, not "redacted"
        return f"<redacted: {value['bytes']} bytes>" if value["bytes"] else '""'
    if is_digest(value):  # its first characters tell it apart; the rest is noise
        return json.dumps(value[: value.find(":") + 1 + DIGEST_CHARS] + "…", ensure_ascii=False)
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def field_line(field: dict[str, Any]) -> str:
    change = field["change"]
    if change == "added":
        return f"{field['path']}: added {value_text(field['after'])}"
    if change == "removed":
        return f"{field['path']}: removed (was {value_text(field['before'])})"
    if change == "reordered":
        return f"{field['path']}: same entries, new order"
    if text_diff(field) is not None:
        return f"{field['path']}: text changed"
    if (edits := json_edits(field)) is not None:
        more = f"; and {len(edits) - MAX_JSON_EDITS} more" if len(edits) > MAX_JSON_EDITS else ""
        return f"{field['path']}: JSON changed: " + "; ".join(edits[:MAX_JSON_EDITS]) + more
    return f"{field['path']}: {value_text(field['before'])} → {value_text(field['after'])}"


def json_edits(field: dict[str, Any]) -> list[str] | None:
    """The inner changes of a one-line text holding a JSON object or array at both sides (an
    annotation such as a load balancer's or a dashboard's settings), each as a field line, when
    the whole would not fit: cut at MAX_VALUE_CHARS, the two sides read alike. Else None."""
    before, after = field.get("before"), field.get("after")
    if field.get("change") != "modified" or not isinstance(before, str):
        return None
    if not isinstance(after, str) or max(len(before), len(after)) <= MAX_VALUE_CHARS - 2:
        return None
    parsed = [_json_container(before), _json_container(after)]
    if parsed[0] is None or parsed[1] is None:
        return None
    return [
        field_line(
            {
                "path": c.path or "(whole)",
                "change": c.kind.value,
                "before": c.before,
                "after": c.after,
            }
        )
        for c in diff_documents(parsed[0], parsed[1])
    ]


def _json_container(text: str) -> dict[str, Any] | list[Any] | None:
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def text_diff(field: dict[str, Any], context: int = 1) -> list[str] | None:
    """A line diff for a modified multi-line string (e.g. a config file in a ConfigMap), else None."""
    if field.get("change") != "modified":
        return None
    return line_diff(field.get("before"), field.get("after"), context)


def comparable_field(field: dict[str, Any]) -> dict[str, Any]:
    """A field change as two scenarios' changes compare: a text by its edit, a digest as changed
    (`diff.text_edits`), as the graph compares them."""
    value = comparable_value(field.get("before"), field.get("after"))
    if field.get("change") != "modified" or value is None:
        return field
    return {**field, "before": None, "after": list(value) if isinstance(value, tuple) else value}


MAX_SCENARIO_LABEL = 64
MAX_ERROR_CHARS = 160
MAX_NAMES = 5  # names a phrase lists (scenarios, templates, keys) before it counts the rest


def fixed_phrases(reviews: list[dict[str, Any]]) -> list[str]:
    """What an install's renders say the change fixes: templates that failed at base and render at
    head (their objects show as added), and scenarios that failed at base and render at head, said
    of the first (`renders in scenario X, which failed at base …: <Helm's error>`)."""
    phrases = []
    templates = sorted(
        {t["template"] for r in reviews for t in r.get("templates_fixed_at_head", ())}
    )
    if templates:
        where = sorted(
            {r["scenario"] for r in reviews if r.get("templates_fixed_at_head")},
            key=lambda s: (s != "default", s),
        )
        # fixed in a test's or a toggle's values only: the chart's defaults rendered at both refs
        scenarios = (
            ""
            if "default" in where
            else f" in scenario {scenario_label(where[0])}"
            + (f" (and {len(where) - 1} more)" if len(where) > 1 else "")
        )
        phrases.append(
            f"{len(templates)} template(s) fixed{scenarios}: failed at base, render at head: "
            + first_names(templates)
        )
    fixed = [r for r in reviews if r["outcome"] == "fixed"]
    if fixed:
        first = fixed[0]
        error = " ".join(str((first["base"] or {}).get("error") or "render failed").split())
        if len(error) > MAX_ERROR_CHARS:
            error = error[: MAX_ERROR_CHARS - 1] + "…"
        more = f" (and {len(fixed) - 1} more scenario(s))" if len(fixed) > 1 else ""
        phrases.append(
            f"renders in scenario {scenario_label(first['scenario'])}{more}, which failed at base "
            f"(the change fixes it): {error}"
        )
    return phrases


def first_names(names: list[str]) -> str:
    """The first MAX_NAMES names, then how many more the JSON holds."""
    shown = ", ".join(names[:MAX_NAMES])
    more = len(names) - MAX_NAMES
    return shown + (f" and {more} more (in the JSON)" if more > 0 else "")


def scenario_label(name: str) -> str:
    """A scenario's short label for people: its id cut to MAX_SCENARIO_LABEL characters (a test's
    name can be a sentence), a long test's suite by its file name alone (`test:unittests/route/
    a_test.yaml/…` reads `test:a_test.yaml/…`, so the cut falls in the test's own words); the JSON
    keeps the full id."""
    if len(name) <= MAX_SCENARIO_LABEL:
        return name
    prefix, _, rest = name.partition(":")
    suite, sep, test = rest.partition("_test.yaml/")
    if sep and "/" in suite:
        name = f"{prefix}:{suite.rsplit('/', 1)[1]}{sep}{test}"
    return name if len(name) <= MAX_SCENARIO_LABEL else name[: MAX_SCENARIO_LABEL - 1] + "…"


def object_title(obj: dict[str, Any]) -> str:
    title: str = obj["display"]
    if obj["change"] == "renamed" and obj["previous_key"] and obj.get("generator"):
        title += f" (renamed from {obj['previous_key']['name']}: {generated_rename(obj)})"
    elif obj["change"] == "renamed" and obj["previous_key"]:
        prev = obj["previous_key"]
        title += f" (renamed from {prev['name']}, {round(100 * (obj['similarity'] or 0))}% similar)"
    if "rendered" in obj:  # merged across scenarios (report/shown.py)
        phrase = scenarios_phrase(obj["scenarios"], obj["rendered"])
        return f"{title} [{phrase}]" if phrase else title
    scenario = obj.get("scenario", "default")
    return title if scenario == "default" else f"{title} [scenario {scenario_label(scenario)}]"


def scenarios_phrase(scenarios: list[str], of: list[str]) -> str | None:
    """Where something changed, among the scenarios `of` that rendered it: None when in all of them
    and the default; "only in toggle:x"; "in 2 scenarios: a, b" (not the default); "in 5 of 6
    scenarios; not in: replace-env"."""
    if "default" not in scenarios and len(scenarios) > 1:
        named = ", ".join(scenario_label(n) for n in scenarios[:3])
        return f"in {len(scenarios)} scenarios: {named}" + (
            " and more" if len(scenarios) > 3 else ""
        )
    if "default" in scenarios and set(of) <= set(scenarios):
        return None
    if len(scenarios) == 1:
        return f"only in {scenario_label(scenarios[0])}"
    missing = [scenario_label(n) for n in of if n not in scenarios]
    named = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return f"in {len(scenarios)} of {len(of)} scenarios; not in: {named}"


def generated_rename(obj: dict[str, Any]) -> str:
    """Why a generated object was renamed, and the workloads whose pods the new name rolls."""
    why = f"new content hash of its {obj['generator']}"
    rolls = obj.get("rolls") or []
    if not rolls:
        return f"{why}; no workload's pod template names it"
    names = ", ".join(
        f"{k['kind']} {k['namespace'] + '/' if k['namespace'] else ''}{k['name']}" for k in rolls
    )
    return f"{why}; rolls {names} (pod template changed)"


def headline(doc: dict[str, Any]) -> str:
    """The counts; a change that reaches no Helm chart but renders builds (kustomizations, Flux
    Kustomizations) counts those, not "0 chart(s) affected"."""
    s = doc["summary"]
    reached = (
        f"{s['charts_affected']} chart(s) affected · {s['charts_rendered']} rendered"
        if s["charts_affected"] or not s["charts_rendered"]
        else f"{s['charts_rendered']} build(s) or release(s) rendered"
    )
    return (
        f"{s['commits']} commit(s) · {s['files']} file(s) · {reached} · "
        f"{s['objects_changed']} object(s) changed"
    )


def status_line(doc: dict[str, Any]) -> str:
    context = sum(bool(n.get("context")) for n in doc["not_reviewed"])
    apart = (
        f" {context} part(s) of the context, failing alike at both refs, are listed apart."
        if context
        else ""
    )
    if doc["status"] == "complete":
        fixed = sum(r["outcome"] == "fixed" for r in doc.get("chart_reviews", ()))
        if fixed:  # those rendered at head only: their base is the failure the change fixes
            return (
                "Review complete: every affected chart was rendered at base and head, except "
                f"{fixed} scenario(s) that failed at base and render at head (the change fixes "
                "them)." + apart
            )
        return "Review complete: every affected chart was rendered at base and head." + apart
    count = len(doc["not_reviewed"]) - context
    return (
        f"Review partial: {count} part(s) not reviewed (listed below); they are not known to be fine."
        + apart
    )


def range_text(doc: dict[str, Any]) -> str:
    return f"{doc['base']['sha'][:7]}..{doc['head']['sha'][:7]}"


def outcome_cell(review: dict[str, Any]) -> str:
    """`changed`, `not reviewed`, ...; a render by template says how many templates it left out, a
    render without dependencies how many of those."""
    text = str(review["outcome"]).replace("_", " ")
    left_out = len(review.get("templates_not_rendered", ()))
    if left_out:
        text += f", by template: {left_out} not rendered"
    without = len(review.get("dependencies_not_rendered", ()))
    if without:
        text += f", without {without} dependenc{'y' if without == 1 else 'ies'}"
    fixed = len(review.get("templates_fixed_at_head", ()))
    if fixed:
        text += f", {fixed} template(s) failing at base fixed at head"
    return text


def render_cell(render: dict[str, Any]) -> str:
    if render["status"] == "ok":
        return f"{render['objects']} objects"
    if render["status"] == "absent":
        return "absent"
    return "render failed"


def without_dependencies(names: str, count: int) -> str:
    """`rendered without dependency d 1.0`, or `… dependencies d 1.0, e 2.0` for `count` of them."""
    return f"rendered without {'dependency' if count == 1 else 'dependencies'} {names}"


def install_label(review: dict[str, Any]) -> str:
    """`charts/apps/orders`, or `charts/apps/orders via HelmRelease flux-system/orders` for a followed
    release (`... in cluster prod` for one of a fleet's cluster tree); `.` for what lies at the
    repository's root (a Flux Kustomization of path `./`). A chart from outside the repository is
    its address and version: `oci://ghcr.io/org/app-template 3.7.3 → 4.0.1 via HelmRelease …`."""
    label = str(review["chart"] or ".") + external_version(review)
    if review.get("release"):
        key, tree = split_release_id(review["release"])
        where = f"{key.namespace}/" if key.namespace else ""
        label += f" via {key.kind} {where}{key.name}" + (f" in cluster {tree}" if tree else "")
    return label


def external_version(review: dict[str, Any]) -> str:
    """` 4.0.1`, or ` 3.7.3 → 4.0.1` when it changes, for a chart from outside the repository (its
    address, unlike a repository path, holds `://` and no version); else nothing."""
    if "://" not in str(review["chart"]):
        return ""
    versions = [(review.get(side) or {}).get("version") for side in ("base", "head")]
    said = list(dict.fromkeys(v for v in versions if v))
    return f" {' → '.join(said)}" if said else ""


def review_label(review: dict[str, Any]) -> str:
    """The install's label, with `[scenario]` for a scenario other than the default."""
    label = install_label(review)
    if review.get("scenario", "default") != "default":
        label += f" [{scenario_label(review['scenario'])}]"
    return label


MAX_SOURCES = 3  # values keys an arrow names when they share their evidence; the rest are counted


def provenance_index(doc: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(object id, field path) -> "← replicaCount (observed)": the standing values keys that produce it."""
    section = doc.get("provenance") or {}
    index = {}
    for entry in section.get("fields", []):
        standing = [v for v in entry["values"] if v["standing"]]
        if not standing:
            continue
        evidence = {v["evidence"] for v in standing}
        if len(standing) > MAX_SOURCES and len(evidence) == 1:  # many candidates, none told apart
            named = ", ".join(v["key"] for v in standing[: MAX_SOURCES - 1])
            text = f"{named} and {len(standing) - MAX_SOURCES + 1} more ({evidence.pop()})"
        else:
            text = ", ".join(f"{v['key']} ({v['evidence']})" for v in standing)
        index[(entry["object"], entry["field"])] = "← " + text
    return index


def chart_moves(files: list[dict[str, Any]]) -> dict[str, str]:
    """Chart folder at head -> the folder it moved from, as said: where the change renames a
    Chart.yaml, the chart renders from its old folder at base (render/plan.py)."""
    moves = (chart_move(f["path"], f["old_path"]) for f in files if f["status"] == "renamed")
    return {new: old or "the repository's root" for new, old in filter(None, moves)}
