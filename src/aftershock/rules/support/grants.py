"""Judging what Roles and ClusterRoles grant: a rule's issues over each role's policy rules, graded
info when the role is reserved (see `rbac.reserved_reason`). Objects with no policy rules have no issues."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, RuleContext
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.rbac import (
    ROLES,
    PolicyRule,
    ReservedRoles,
    grade_reserved,
    policy_rules,
)

GrantFinder = Callable[[RenderedObject, tuple[PolicyRule, ...]], Iterable[Issue]]


def judge_role_grants(ctx: RuleContext, find: GrantFinder) -> Iterator[Concern]:
    """Concerns of an RBAC rule whose issues come from a role's policy rules, reserved roles graded info."""

    def graded(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
        rules = policy_rules(obj)
        if not rules:
            return iter(())
        reserved = ctx.options if isinstance(ctx.options, ReservedRoles) else None
        return grade_reserved(obj, reserved, find(obj, rules))

    return judge_objects(ctx, graded, kinds=ROLES)
