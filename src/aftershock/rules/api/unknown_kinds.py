"""Objects of a kind nobody serves: an apiVersion or kind in a group Kubernetes or a reviewed CRD owns,
that neither knows (`apps/v11`, `Deploymnet`). The apply fails; said once per apiVersion and kind."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from aftershock.findings.model import Delta, Fact, Severity, Subject, SubjectKind
from aftershock.rules.model import Concern, RuleContext
from aftershock.rules.support.apis import retirement
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.kubeschema import builtin_kinds, schema_version

GroupVersionKind = tuple[str, str, str]


@dataclass
class _Sightings:
    """Where one unknown apiVersion and kind was rendered: installs, sides, the first pair."""

    first: ObjectPair
    installs: dict[str, None] = field(default_factory=dict)
    sides: set[str] = field(default_factory=set)


def unknown_in_known_group(
    gvk: GroupVersionKind, known: Collection[GroupVersionKind]
) -> tuple[str, ...] | None:
    """None when `gvk` is known or its group is nobody's here (a CRD installed apart); else the closest
    known `apiVersion kind` of the group (maybe none)."""
    group = gvk[0]
    if gvk in known:
        return None
    same_group = sorted(f"{g}/{v} {k}" if g else f"{v} {k}" for g, v, k in known if g == group)
    if not same_group:
        return None
    api_version = f"{group}/{gvk[1]}" if group else gvk[1]
    return tuple(difflib.get_close_matches(f"{api_version} {gvk[2]}", same_group, n=1))


def _gvk(body: Mapping[str, Any]) -> GroupVersionKind | None:
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version:
        return None
    group, _, version = api_version.rpartition("/")
    return group, version, kind


def _sightings(
    ctx: RuleContext, known: Collection[GroupVersionKind]
) -> dict[GroupVersionKind, tuple[_Sightings, tuple[str, ...]]]:
    found: dict[GroupVersionKind, tuple[_Sightings, tuple[str, ...]]] = {}
    for pair in ctx.index.pairs:
        for side, obj in (("base", pair.base), ("head", pair.head)):
            gvk = _gvk(obj.body) if obj is not None else None
            if gvk is None or retirement(obj.api_version if obj else "", gvk[2]) is not None:
                continue  # a retired API is deprecated-api's to report
            closest = unknown_in_known_group(gvk, known)
            if closest is None:
                continue
            seen, _ = found.setdefault(gvk, (_Sightings(pair), closest))
            seen.installs[pair.install] = None
            seen.sides.add(side)
    return found


def unknown_kinds(ctx: RuleContext, crds: Collection[GroupVersionKind]) -> Iterator[Concern]:
    """One medium concern per apiVersion and kind that no schema and no reviewed CRD of its group knows."""
    version = schema_version(ctx.kube_version)
    known = builtin_kinds(version) | set(crds)
    for (group, ver, kind), (seen, closest) in sorted(_sightings(ctx, known).items()):
        api_version = f"{group}/{ver}" if group else ver
        installs = list(seen.installs)
        hint = f"; did you mean {closest[0]}?" if closest else ""
        yield Concern(
            subject=Subject(
                SubjectKind.CHART, installs[0], installs[0], f"unknown kind {api_version} {kind}"
            ),
            message=f"{kind} ({api_version}) is neither a kind of Kubernetes {version[0]}.{version[1]} nor "
            f"one a reviewed CRD of its group defines: applying it fails ({', '.join(installs)}){hint}",
            delta=Delta.PRE_EXISTING if seen.sides != {"head"} else Delta.INTRODUCED,
            severity=Severity.MEDIUM,
            location=ctx.index.locate_object(seen.first, (kind, ver), in_change=True),
            facts=(Fact("kind", f"{api_version} {kind}"), Fact("installs", installs)),
            scope_paths=tuple(dict.fromkeys(i.split("@", 1)[0] for i in installs)),
        )
