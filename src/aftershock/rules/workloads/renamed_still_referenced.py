"""Rule renamed-still-referenced: the change renames an object, and another object of the same render
still names it by its old name where a workload names the objects it talks to or waits for (an
environment value, an argument, a command)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.diff import ObjectChangeKind
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartOutcome, ChartReview
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.index import ObjectPair, pair_objects
from aftershock.rules.support.judge import line_in_source
from aftershock.rules.support.pods import containers_of

# Shorter names (`web`, `redis`) are words of a command line as often as names of an object.
MIN_NAME_LENGTH = 6
_CONTAINER_LISTS = {
    "initContainers": "init container",
    "ephemeralContainers": "ephemeral container",
}
# A name inside a free text: bounded by what cannot be part of a Kubernetes name (nor a subdomain's
# dot before it), and followed by nothing, a list's comma, a port (`:5432`), a path or a dot of a DNS
# name under it (`db-primary.ns.svc`).
_BEFORE = r"(?<![A-Za-z0-9_.-])"
_AFTER = r"(?![A-Za-z0-9_-])"


def _mentions(value: str, name: str) -> bool:
    """Whether `value` names `name`: whole, as an item of a list, a host, or a DNS name's first label."""
    if name not in value:  # the plain test first: most values name nothing renamed
        return False
    return re.search(_BEFORE + re.escape(name) + _AFTER, value) is not None


def _free_texts(obj: RenderedObject, ctx: RuleContext) -> Iterator[tuple[str, str, str]]:
    """(field path, what it is, value) of each environment value, argument and command word of the
    object's containers: where a workload names another object in text."""
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        what = f"{_CONTAINER_LISTS.get(container.list_name, 'container')} {container.name}"
        for entry in as_list(container.body.get("env")):
            name, value = text(as_map(entry).get("name")), as_map(entry).get("value")
            if name and isinstance(value, str):
                yield container.path("env") + f"[name={name}].value", f"{name} of {what}", value
        for key in ("args", "command"):
            for number, word in enumerate(as_list(container.body.get(key))):
                if isinstance(word, str):
                    yield container.path(key) + f"[{number}]", f"{key} of {what}", word


def _renames(chart: ChartReview) -> list[tuple[ObjectKey, ObjectKey]]:
    """(old key, new key) of each object the change renames in this render."""
    return [
        (change.previous_key, change.key)
        for change in chart.changes
        if change.kind is ObjectChangeKind.RENAMED
        and change.previous_key is not None
        and change.previous_key.name != change.key.name
        and len(change.previous_key.name) >= MIN_NAME_LENGTH
    ]


def _stale(
    ctx: RuleContext, pair: ObjectPair, old: ObjectKey, new: ObjectKey
) -> Iterator[tuple[str, str]]:
    """(field, what) of each free text that named `old` at base and still does at head, without the
    new name: the reference the rename left behind."""
    assert pair.base is not None and pair.head is not None
    before = {
        field for field, _, value in _free_texts(pair.base, ctx) if _mentions(value, old.name)
    }
    for field, what, value in _free_texts(pair.head, ctx):
        if field in before and _mentions(value, old.name) and not _mentions(value, new.name):
            yield field, what


def _concerns(ctx: RuleContext, chart: ChartReview) -> Iterator[Concern]:
    renames = _renames(chart)
    if not renames:
        return
    pairs = [p for p in pair_objects(chart) if p.base is not None and p.head is not None]
    for old, new in renames:
        for pair in pairs:
            if pair.key in (old, new):
                continue
            for field, what in _stale(ctx, pair, old, new):
                token = what.split(" of ", 1)[0]
                location = ctx.index.locate_object(pair, (token,), in_change=False)
                yield Concern(
                    subject=pair.subject(f"{field} names a renamed {old.kind}"),
                    delta=Delta.INTRODUCED,
                    message=(
                        f"{pair.display} still names {old.kind} {old.name} in {what}, which the "
                        f"change renames to {new.name}: whatever waits for or connects to it by the "
                        "old name finds nothing"
                    ),
                    location=line_in_source(ctx, location, (token,)),
                    path=pair.impact_path(field, "names"),
                    facts=(Fact("field", field), Fact("old", old.id), Fact("new", new.id)),
                    scope_paths=pair.scope_paths,
                )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for chart in ctx.review.chart_reviews:
        # made-up values too: the two names come from one render, whatever value made the edit act
        if chart.outcome is ChartOutcome.CHANGED:
            yield from _concerns(ctx, chart)


RULE = Rule(
    id="renamed-still-referenced",
    title="Renamed object still named by its old name",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="An object the change renames (deleted at its old name, created at a new one, in the same "
        "render) whose old name another object of that render still holds, unchanged since base, in an "
        "environment value, an argument or a command word of one of its containers: whole, as an item of a "
        "list, as a host (`db-primary:5432`) or as the first label of a DNS name (`db-primary.ns.svc`). Names "
        "shorter than six characters are left out (`web` is a word as often as a name), as are the fields "
        "other rules read as references (`serviceAccountName`, `configMapKeyRef`, an Ingress backend). "
        "Judged in every scenario, the made-up values of a probe included: both names come from one render, "
        "so they part for every value the edit acts on. Inferred: the text may name something else.",
        why="Kubernetes resolves nothing in free text. A migration Job whose name gains a sanitised tag while "
        "the `DEPENDENCY_JOBS` of the init container that waits for it keeps the old one blocks the "
        "Deployment's pods on a Job that never exists; a Service renamed under a `DB_HOST` makes clients "
        "fail to resolve it. The rename's own template looks right, and the diff of the object that breaks "
        "is empty.",
        example='    # job-migration.yaml: name: {{ .Release.Name }}-migration-{{ .Values.image.tag | replace "." "-" }}\n'
        "    # deployment.yaml, unchanged:\n"
        "    - name: DEPENDENCY_JOBS\n"
        "      value: {{ .Release.Name }}-migration-{{ .Values.image.tag }}",
        fix='Render both names from one named template (`{{ include "app.migrationJob" . }}`), or change '
        "every place that names the object in the same commit.",
    ),
)
