"""Judging what Roles and ClusterRoles grant: a rule's issues over each role's policy rules, graded
info when the role is reserved (see `rbac.reserved_reason`). Objects with no policy rules have no issues."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from aftershock.findings.model import Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, RuleContext
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import (
    ROLES,
    PolicyRule,
    ReservedRoles,
    policy_rules,
    reserved_reason,
)

GrantFinder = Callable[[RenderedObject, tuple[PolicyRule, ...]], Iterable[Issue]]


def judge_role_grants(ctx: RuleContext, find: GrantFinder) -> Iterator[Concern]:
    """Concerns of an RBAC rule whose issues come from a role's policy rules, reserved roles graded info."""

    def graded(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
        rules = ctx.index.per_object("policy rules", obj, policy_rules)
        if not rules:
            return iter(())
        reserved = ctx.options if isinstance(ctx.options, ReservedRoles) else None
        return grade_reserved(obj, reserved, find(obj, rules))

    return judge_objects(ctx, graded, kinds=ROLES)


def grade_reserved(
    obj: RenderedObject, options: ReservedRoles | None, found: Iterable[Issue]
) -> Iterator[Issue]:
    """The issues of a reserved role at severity info, saying why; the others as they are."""
    reason = reserved_reason(obj, options)
    for issue in found:
        if reason is None:
            yield issue
        else:
            yield replace(
                issue, severity=Severity.INFO, message=f"{issue.message} (reserved: {reason})"
            )
