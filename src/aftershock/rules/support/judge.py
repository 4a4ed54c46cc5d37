"""Judging a rule on the change: find its issues in each object at base and at head, and compare.

An `Issue` is one problem a rule sees in one object on one side, identified within the object by
its `facet`. Comparing the two sides per facet gives the delta:
- only at head: INTRODUCED; only at base: RESOLVED;
- at both: WIDENED when head has a higher `grade` or `items` base lacked, NARROWED when it has a
  lower grade or fewer items (and nothing new), PRE_EXISTING when equal. Issues that carry RBAC
  `grants` are compared as permission sets instead (`*` covering any value), never as strings.
An object that did not change is judged at head only: all its issues are PRE_EXISTING.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from aftershock.findings.model import Confidence, Delta, Evidence, Fact, Location, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, RuleContext
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.rbac import Permission, covered


@dataclass(frozen=True)
class Issue:
    facet: str  # e.g. "container app" or "hostPID"; unique per object for one rule
    message: str  # a clause after the object's name, e.g. "shares the host PID namespace (hostPID: true)"
    field: str  # the field path in the object that shows it
    tokens: tuple[
        str, ...
    ] = ()  # words to look for in changed lines (default: the field's last key)
    grade: int = 0
    items: frozenset[str] = frozenset()
    severity: Severity | None = None
    confidence: Confidence | None = None
    facts: tuple[Fact, ...] = ()
    summary: str = ""  # short state for "before: ..." (default: the message)
    evidence: Evidence | None = None  # when this issue is inferred although the rule observes
    grants: frozenset[Permission] | None = (
        None  # RBAC permissions the issue is about, compared as sets
    )


IssueFinder = Callable[[RenderedObject, RuleContext], Iterable[Issue]]


def judge_objects(
    ctx: RuleContext, find: IssueFinder, kinds: frozenset[tuple[str, str]] | None = None
) -> Iterator[Concern]:
    """Concerns of one rule over every object pair of the review; with `kinds` ((group, kind)),
    over the pairs of those kinds only, for a rule that finds no issue in other objects."""
    pairs = ctx.index.pairs if kinds is None else ctx.index.pairs_of(kinds)
    yield from _judge_pairs(ctx, pairs, find)


def judge_pod_objects(
    ctx: RuleContext, find: IssueFinder, needs: frozenset[str] | None = None
) -> Iterator[Concern]:
    """`judge_objects` for a rule whose issues are all in pod specs: objects without one are skipped.
    With `needs`, so are those with no mapping key of these names anywhere in their pod spec: for a
    rule every issue of which is a field so named (`hostPath`), most pods have nothing for it to read."""
    pairs = ctx.index.pod_pairs if needs is None else ctx.index.pod_pairs_with(needs)
    yield from _judge_pairs(ctx, pairs, find)


def _judge_pairs(
    ctx: RuleContext, pairs: Iterable[ObjectPair], find: IssueFinder
) -> Iterator[Concern]:
    """The concerns of each pair, its issues found at each side and compared (an unchanged object at
    head only), in one loop: most pairs have no issue, and a generator per pair and rule was a good
    part of the rule pass."""
    for pair in pairs:
        base_obj, head_obj = pair.base, pair.head
        if pair.unchanged:
            assert head_obj is not None  # unchanged: present on both sides
            for issue in _by_facet(find(head_obj, ctx)).values():
                yield concern(ctx, pair, Delta.PRE_EXISTING, issue, None)
            continue
        base: dict[str, Issue] = {}
        head: dict[str, Issue] = {}
        if base_obj is not None:
            for issue in find(base_obj, ctx):
                base.setdefault(issue.facet, issue)
        if head_obj is not None:
            for issue in find(head_obj, ctx):
                head.setdefault(issue.facet, issue)
        if base or head:
            yield from _deltas(ctx, pair, base, head)


PairIssueFinder = Callable[[ObjectPair, RenderedObject, RuleContext], Iterable[Issue]]


def judge_pairs_with_others(
    ctx: RuleContext, pairs: Iterable[ObjectPair], find: PairIssueFinder
) -> Iterator[Concern]:
    """`_judge_pairs` for issues that depend on more than the object (`find` is given the pair: its
    release's other objects), so an unchanged object is judged at both sides too."""
    for pair in pairs:
        base = _by_facet(find(pair, pair.base, ctx)) if pair.base is not None else {}
        head = _by_facet(find(pair, pair.head, ctx)) if pair.head is not None else {}
        if base or head:
            yield from _deltas(ctx, pair, base, head)


def _deltas(
    ctx: RuleContext, pair: ObjectPair, base: dict[str, Issue], head: dict[str, Issue]
) -> Iterator[Concern]:
    """The concerns of a pair's issues at base and at head, compared facet by facet."""
    for facet in sorted(head.keys() | base.keys()):
        before, after = base.get(facet), head.get(facet)
        if after is None:
            assert before is not None
            if pair.head is not None:  # an object deleted outright is not a fix of its issues
                yield concern(ctx, pair, Delta.RESOLVED, before, None)
        elif before is None:
            yield concern(ctx, pair, Delta.INTRODUCED, after, None)
        else:
            yield concern(ctx, pair, compare(before, after), after, before)


def compare(before: Issue, after: Issue) -> Delta:
    if before.grants is not None and after.grants is not None:
        gained = after.grade > before.grade or not covered(before.grants, after.grants)
        lost = after.grade < before.grade or not covered(after.grants, before.grants)
    else:
        gained = after.grade > before.grade or bool(after.items - before.items)
        lost = after.grade < before.grade or bool(before.items - after.items)
    if gained:
        return Delta.WIDENED
    if lost:
        return Delta.NARROWED
    return Delta.PRE_EXISTING


def concern(
    ctx: RuleContext, pair: ObjectPair, delta: Delta, issue: Issue, before: Issue | None
) -> Concern:
    """The Concern for one issue of one pair; `before` is the base issue when both sides have it."""
    message = f"{pair.display} {issue.message}"
    if delta is Delta.RESOLVED:
        message = f"{pair.display} no longer {issue.summary or issue.message}"
    elif before is not None and delta in (Delta.WIDENED, Delta.NARROWED):
        message += f" (before: {before.summary or before.message})"
    elif delta is Delta.INTRODUCED and pair.base is None:
        message += " (new object)"
    tokens = issue.tokens or (_last_key(issue.field),)
    location = line_in_source(
        ctx,
        ctx.index.locate_object(pair, tokens, in_change=delta is not Delta.PRE_EXISTING),
        tokens,
    )
    return Concern(
        subject=pair.subject(issue.facet),
        message=message,
        delta=delta,
        facts=(Fact("field", issue.field), *issue.facts),
        location=location,
        path=pair.impact_path(issue.field),
        severity=Severity.INFO
        if delta is Delta.NARROWED and issue.grants is not None
        else issue.severity,  # fewer permissions
        confidence=issue.confidence,
        scope_paths=pair.scope_paths,
        evidence=issue.evidence,
    )


def line_in_source(
    ctx: RuleContext, location: Location | None, tokens: tuple[str, ...]
) -> Location | None:
    """A location without a line gets the first line of its file (at head) holding one of the tokens,
    so a concern the change did not touch still points somewhere (code scanning wants a line)."""
    if location is None or location.line is not None:
        return location
    text = ctx.sources.head.get(location.file)
    if not text:
        return location
    for number, line in enumerate(text.split("\n"), 1):
        if any(token and token in line for token in tokens):
            return Location(location.file, number)
    return location


def _by_facet(issues: Iterable[Issue]) -> dict[str, Issue]:
    found: dict[str, Issue] = {}
    for issue in issues:
        found.setdefault(issue.facet, issue)
    return found


def _last_key(field: str) -> str:
    tail = field.rsplit(".", 1)[-1]
    return tail.split("[", 1)[0]
