"""Rule rollout-everywhere: a pod-template change rolls every node (a DaemonSet) or every tenant (a
workload every release of the chart renders). A template that changes only in fields the review
ignores (`review.ignore_fields`: a chart's version label) is not called a rollout here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.diff.fields import diff_documents
from aftershock.diff.ignored import field_ignored
from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import dig, text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.pods import PodSpec, containers_of, volumes_of

TENANT_KINDS = frozenset({"Deployment", "StatefulSet", "Rollout"})
POD_PRIVILEGE = ("hostNetwork", "hostPID", "hostIPC", "hostUsers")
CONTAINER_PRIVILEGE = ("privileged", "capabilities", "allowPrivilegeEscalation", "runAsUser")


def _images(pod: PodSpec) -> dict[str, str]:
    return {c.label: text(c.body.get("image")) for c in containers_of(pod)}


def _host_paths(pod: PodSpec) -> dict[str, str]:
    return {
        name: text(dig(volume, "hostPath", "path"))
        for _, name, volume in volumes_of(pod)
        if "hostPath" in volume
    }


def _privilege(pod: PodSpec) -> dict[str, Any]:
    found: dict[str, Any] = {key: pod.spec.get(key) for key in POD_PRIVILEGE}
    for container in containers_of(pod):
        for key in CONTAINER_PRIVILEGE:
            found[f"{container.label} {key}"] = container.security_context.get(key)
    return found


def risky_changes(base: PodSpec, head: PodSpec) -> list[str]:
    """What of the images, hostPath volumes and privilege the template change touches, named."""
    found = []
    for name, read in (("the image", _images), ("hostPath volumes", _host_paths)):
        if read(base) != read(head):
            found.append(name)
    before, after = _privilege(base), _privilege(head)
    changed = sorted(
        key for key in before.keys() | after.keys() if before.get(key) != after.get(key)
    )
    if changed:
        found.append(f"privilege ({', '.join(changed)})")
    return found


def rolled(ctx: RuleContext) -> Iterator[tuple[ObjectPair, PodSpec, PodSpec]]:
    """Pairs whose pod template changes and whose update strategy rolls it out by itself."""
    for pair in ctx.index.pod_pairs:
        if pair.base is None or pair.head is None:
            continue
        before, after = ctx.index.pod_spec(pair.base), ctx.index.pod_spec(pair.head)
        template = ("spec", "template")
        if (
            before is None
            or after is None
            or dig(pair.base.body, *template) == dig(pair.head.body, *template)
            or _relabelled_only(ctx, dig(pair.base.body, *template), dig(pair.head.body, *template))
        ):
            continue
        if text(dig(pair.head.body, "spec", "updateStrategy", "type")) == "OnDelete":
            continue  # pods keep the old template until someone deletes them
        yield pair, before, after


def _relabelled_only(ctx: RuleContext, before: Any, after: Any) -> bool:
    """Whether the template changes only in fields the review ignores (a chart's version label)."""
    patterns = ctx.review.ignored_fields
    fields = diff_documents(before, after) if patterns else ()
    return bool(fields) and all(field_ignored(f.path, patterns) for f in fields)


def _concern(ctx: RuleContext, pairs: list[ObjectPair], risky: list[str], reach: str) -> Concern:
    pair = pairs[0]
    tokens = (
        ("image",) if "the image" in risky else ("template",)
    )  # where the line in the change is
    installs = sorted({p.install for p in pairs})
    also = f"; it also changes {', '.join(risky)}" if risky else ""
    return Concern(
        subject=pair.subject("rollout"),
        message=f"{pair.display}: the change to its pod template {reach}{also}",
        delta=Delta.INTRODUCED,
        severity=Severity.MEDIUM if risky else None,
        location=ctx.index.locate_object(pair, tokens, in_change=True),
        path=pair.impact_path("spec.template", "changes"),
        facts=(
            Fact("installs", installs),
            Fact("count", len(installs)),
            Fact("also_changes", risky),
        ),
        scope_paths=pair.scope_paths,
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    groups: dict[tuple[str, ...], list[tuple[ObjectPair, list[str]]]] = {}
    for pair, before, after in rolled(ctx):
        if pair.key.kind == "DaemonSet":
            key: tuple[str, ...] = ("node", pair.chart.chart, pair.key.id)
        elif pair.key.kind in TENANT_KINDS and pair.chart.release:
            key = ("tenant", pair.chart.chart, pair.key.kind, pair.current.template)
        else:
            continue
        groups.setdefault(key, []).append((pair, risky_changes(before, after)))
    releases = _releases_by_chart(ctx)
    for key, members in sorted(groups.items()):
        pairs = [pair for pair, _ in members]
        risky = sorted({name for _, names in members for name in names})
        installs = len({p.install for p in pairs})
        if key[0] == "node":
            where = f" in {installs} releases" if installs > 1 else ""
            yield _concern(ctx, pairs, risky, f"restarts its pod on every node it runs on{where}")
        elif installs >= 2 and installs == releases.get(key[1], 0):
            yield _concern(
                ctx, pairs, risky, f"rolls it in every one of the {installs} releases of {key[1]}"
            )


def _releases_by_chart(ctx: RuleContext) -> Mapping[str, int]:
    found: dict[str, set[str]] = {}
    for pair in ctx.index.pairs:
        if pair.chart.release:
            found.setdefault(pair.chart.chart, set()).add(pair.chart.release)
    return {chart: len(names) for chart, names in found.items()}


RULE = Rule(
    id="rollout-everywhere",
    title="Pod-template change rolls every node or tenant",
    category=Category.RELIABILITY,
    severity=Severity.INFO,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A change to the pod template (`spec.template`) of a DaemonSet whose update strategy is not "
        "OnDelete, or of a Deployment, StatefulSet or Rollout that every release of the chart in the review "
        "renders and changes (two or more releases: a per-tenant chart). Info with the count of releases "
        "it rolls in; medium when the same change also touches a container image, a hostPath volume or "
        "privilege (privileged, capabilities, allowPrivilegeEscalation, runAsUser, hostNetwork/PID/IPC).",
        why="Such a change restarts a pod on every node, or in every tenant, at once: one bad image or "
        "mount is an outage everywhere, not in one place, and a node agent restarting drops what it serves "
        "on that node (networking, logs, storage) while it rolls.",
        example="    kind: DaemonSet\n    spec:\n      template:\n        spec:\n          containers:\n"
        "    -       - image: registry.example.com/agent:1.4.0\n    +       - image: registry.example.com/agent:1.5.0",
        fix="Roll it in stages: `updateStrategy.rollingUpdate.maxUnavailable` small (or `maxSurge`), a canary "
        "node pool or tenant first, and keep image, mount and privilege changes in separate changes from "
        "routine ones so each can be rolled back alone.",
    ),
)
