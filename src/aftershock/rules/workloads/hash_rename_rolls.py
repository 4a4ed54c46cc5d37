"""Rule hash-rename-replaces-all: an object named by a hash of its content is renamed, and what
references it replaces every machine or every node's pod.

Naming a template by its content hash (`worker-{{ $spec | sha256sum | trunc 8 }}`, kustomize's
generator suffix) makes every change of it a new name, and every object that references the name
rolls. For a Deployment that is the point (new configuration, new pods); for a Cluster API
MachineDeployment or control plane it replaces every machine, and for a DaemonSet every node's pod.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.diff import ObjectChangeKind
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.index import ObjectPair

_HASHED = re.compile(r"^(?P<stem>.+?)-(?P<hash>[a-z0-9]{5,})$")
MACHINE_KINDS = frozenset(
    {"MachineDeployment", "MachineSet", "MachinePool", "KubeadmControlPlane", "RKE2ControlPlane"}
)
NODE_KINDS = frozenset({"DaemonSet"})


def hash_renamed(old: str, new: str) -> bool:
    """Whether two names are one stem with different hash-like suffixes (both holding a digit)."""
    a, b = _HASHED.match(old), _HASHED.match(new)
    return bool(
        a
        and b
        and a.group("stem") == b.group("stem")
        and a.group("hash") != b.group("hash")
        and any(c.isdigit() for c in a.group("hash") + b.group("hash"))
    )


def _names(value: Any) -> Iterator[str]:
    """Every string a reference field holds: `name`, `secretName`, `claimName` … at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and str(key).endswith(("name", "Name")):
                yield item
            else:
                yield from _names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _names(item)


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        change = pair.change
        if change is None or change.kind is not ObjectChangeKind.RENAMED or pair.head is None:
            continue
        previous = change.previous_key
        if previous is None or not hash_renamed(previous.name, pair.key.name):
            continue
        heads = pair.chart.head_objects
        referrers = [
            o
            for o in heads
            if o.key.kind in MACHINE_KINDS | NODE_KINDS
            and pair.key.name in set(_names(o.body.get("spec")))
        ]
        if referrers:
            yield _concern(ctx, pair, previous.name, referrers)


def _concern(
    ctx: RuleContext, pair: ObjectPair, old: str, referrers: list[RenderedObject]
) -> Concern:
    machines = [o for o in referrers if o.key.kind in MACHINE_KINDS]
    what = "every machine they manage is replaced" if machines else "every node's pod is replaced"
    named = ", ".join(str(o.key) for o in referrers[:3])
    return Concern(
        subject=pair.subject("hash-rename"),
        message=f"{pair.display} is renamed from {old} (a content hash in its name) and {named} "
        f"reference{'s' if len(referrers) == 1 else ''} the new name: {what}",
        delta=Delta.INTRODUCED,
        severity=Severity.HIGH if machines else Severity.MEDIUM,
        facts=(Fact("previous", old), Fact("referrers", [str(o.key) for o in referrers])),
        location=ctx.index.locate_object(pair, (pair.key.name,), in_change=True),
        path=pair.impact_path("metadata.name", "renames"),
        scope_paths=pair.scope_paths,
    )


RULE = Rule(
    id="hash-rename-replaces-all",
    title="Content-hash rename replaces every machine or node's pod",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="An object the change renames from one content-hash name to another (`worker-1a2b3c4d` to "
        "`worker-9f8e7d6c`, a kustomize generator's suffix), referenced by name from a Cluster API "
        "MachineDeployment, MachineSet, MachinePool or control plane (High: every machine is replaced) "
        "or a DaemonSet (Medium: every node's pod). A Deployment rolled by a renamed ConfigMap is the "
        "pattern working as meant and is not reported.",
        why="Hash names make any edit of the template, a comment or a default included, a new object, "
        "and the controllers that reference it replace what they run to match: a fleet of machines "
        "drained and recreated for a change that did not need it.",
        example="    kind: AWSMachineTemplate\n    metadata:\n"
        "      name: workers-{{ .Values.workers | toJson | sha256sum | trunc 8 }}",
        fix="Hash only what must roll the machines (the fields that change them), or stage the change "
        "to a maintenance window; check the referrers' rollout settings (maxUnavailable).",
    ),
)
