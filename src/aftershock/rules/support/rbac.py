"""RBAC objects read defensively: the policy rules of Roles and ClusterRoles, what they allow, and which
roles are reserved (names Kubernetes reserves, ClusterRoles aggregated into the default roles)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.model.objects import RenderedObject
from aftershock.rules.support.access import as_list, as_map, text

RBAC_GROUP = "rbac.authorization.k8s.io"
ROLE_KINDS = ("Role", "ClusterRole")
BINDING_KINDS = ("RoleBinding", "ClusterRoleBinding")
ROLES = frozenset(
    (RBAC_GROUP, kind) for kind in ROLE_KINDS
)  # (group, kind), as judge_objects takes
BINDINGS = frozenset((RBAC_GROUP, kind) for kind in BINDING_KINDS)
READ_VERBS = ("get", "list", "watch")
WRITE_VERBS = ("create", "update", "patch", "delete", "deletecollection")


@dataclass(frozen=True)
class PolicyRule:
    """One entry of a role's `rules`, with its position for field paths."""

    index: int
    api_groups: frozenset[str]
    resources: frozenset[str]
    verbs: frozenset[str]
    resource_names: frozenset[str]
    non_resource_urls: frozenset[str]

    def allows(self, group: str, resource: str, verb: str) -> bool:
        """Whether the entry grants `verb` on `resource` (a "resource/subresource" string) in `group`."""
        if self.non_resource_urls and not self.resources:
            return False
        group_ok = "*" in self.api_groups or group in self.api_groups
        resource_ok = (
            "*" in self.resources
            or resource in self.resources
            or ("/" in resource and f"*/{resource.split('/', 1)[1]}" in self.resources)
        )
        verb_ok = "*" in self.verbs or verb in self.verbs
        return group_ok and resource_ok and verb_ok

    @property
    def describe(self) -> str:
        groups = ",".join(sorted(g or '""' for g in self.api_groups)) or "-"
        resources = (
            ",".join(sorted(self.resources)) or ",".join(sorted(self.non_resource_urls)) or "-"
        )
        names = f" names={','.join(sorted(self.resource_names))}" if self.resource_names else ""
        return f"verbs={','.join(sorted(self.verbs))} on {resources} in apiGroups={groups}{names}"


Permission = tuple[str, str, str, str]  # (API group, resource, verb, resource name); "*" grants any


def permissions(rules: Iterable[PolicyRule]) -> frozenset[Permission]:
    """What the rules grant, as the product verbs × resources × API groups (× names, "*" when unnamed)."""
    return frozenset(
        (group, resource, verb, name)
        for rule in rules
        if rule.resources
        for group in rule.api_groups
        for resource in rule.resources
        for verb in rule.verbs
        for name in (rule.resource_names or {"*"})
    )


def covered(granted: frozenset[Permission], wanted: frozenset[Permission]) -> bool:
    """Whether every permission in `wanted` is granted by one in `granted` (`*` standing for any value,
    `*/sub` for any resource's subresource), so comparing roles never depends on how they are written."""
    return all(any(_covers(have, want) for have in granted) for want in wanted)


def _covers(have: Permission, want: Permission) -> bool:
    group, resource, verb, name = have
    return (
        (group == "*" or group == want[0])
        and _resource_covers(resource, want[1])
        and (verb == "*" or verb == want[2])
        and (name == "*" or name == want[3])
    )


def _resource_covers(have: str, want: str) -> bool:
    if have in ("*", want):
        return True
    return have.startswith("*/") and "/" in want and want.split("/", 1)[1] == have[2:]


def is_role(obj: RenderedObject) -> bool:
    return obj.key.group == RBAC_GROUP and obj.key.kind in ROLE_KINDS


def is_binding(obj: RenderedObject) -> bool:
    return obj.key.group == RBAC_GROUP and obj.key.kind in BINDING_KINDS


def policy_rules(obj: RenderedObject) -> tuple[PolicyRule, ...]:
    """The rules of a Role or ClusterRole (an aggregated ClusterRole's own rules only)."""
    if not is_role(obj):
        return ()
    return tuple(
        _rule(index, as_map(entry)) for index, entry in enumerate(as_list(obj.body.get("rules")))
    )


def _rule(index: int, entry: Mapping[str, Any]) -> PolicyRule:
    def words(field: str) -> frozenset[str]:
        return frozenset(text(item) for item in as_list(entry.get(field)))

    return PolicyRule(
        index,
        words("apiGroups"),
        words("resources"),
        words("verbs"),
        words("resourceNames"),
        words("nonResourceURLs"),
    )


def allowed_verbs(
    rules: Iterable[PolicyRule], group: str, resource: str, verbs: Iterable[str]
) -> frozenset[str]:
    """The subset of `verbs` some rule allows on (group, resource)."""
    rules = tuple(rules)
    return frozenset(
        verb for verb in verbs if any(rule.allows(group, resource, verb) for rule in rules)
    )


def matching_rules(
    rules: Iterable[PolicyRule], group: str, resource: str, verbs: Iterable[str]
) -> Iterator[PolicyRule]:
    verbs = tuple(verbs)
    for rule in rules:
        if any(rule.allows(group, resource, verb) for verb in verbs):
            yield rule


def rules_path(rule: PolicyRule | None = None) -> str:
    return "rules" if rule is None else f"rules[{rule.index}]"


def role_ref(obj: RenderedObject) -> tuple[str, str]:
    """(kind, name) of a binding's roleRef."""
    ref = as_map(obj.body.get("roleRef"))
    return text(ref.get("kind")), text(ref.get("name"))


# Default roles that aggregate ClusterRoles labelled aggregate-to-<role> and already hold create on pods
# and workloads, Secrets read and write, and pods/exec (Kubernetes' bootstrap policy); `view` holds none.
AGGREGATING_DEFAULTS = ("admin", "edit")
AGGREGATE_LABEL = "rbac.authorization.k8s.io/aggregate-to-"


@dataclass(frozen=True)
class ReservedRoles:
    """Options of the RBAC rules about grants the default roles hold: which roles count as reserved."""

    exempt_roles: tuple[str, ...] = (
        "system:*",
    )  # globs over role names: Kubernetes' reserved prefix
    aggregated_defaults: bool = (
        True  # ClusterRoles aggregated only into admin/edit add nothing they lack
    )


def reserved_reason(obj: RenderedObject, options: ReservedRoles | None) -> str | None:
    """Why a role is reserved (its findings are graded info), or None."""
    options = options or ReservedRoles()
    name = obj.key.name
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in options.exempt_roles):
        return f"{name} matches a reserved role name"
    if not options.aggregated_defaults or obj.key.kind != "ClusterRole":
        return None
    labels = as_map(as_map(obj.body.get("metadata")).get("labels"))
    into = {
        key[len(AGGREGATE_LABEL) :]
        for key, value in labels.items()
        if str(key).startswith(AGGREGATE_LABEL) and text(value) == "true"
    }
    if into and into <= set(AGGREGATING_DEFAULTS):
        return f"aggregated into {', '.join(sorted(into))}, which already hold it"
    return None
