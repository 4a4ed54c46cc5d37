"""Rule env-duplicate-name: a container lists the same environment variable twice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        entries = as_list(container.body.get("env"))
        if len(entries) < 2:
            continue  # nothing to set twice
        counts = Counter(text(as_map(entry).get("name")) for entry in entries)
        twice = sorted(name for name, count in counts.items() if name and count > 1)
        if twice:
            listed = ", ".join(twice)
            yield Issue(
                facet=container.label,
                message=f"sets {listed} more than once in {container.label} (the last wins)",
                field=container.path("env"),
                tokens=tuple(twice),
                items=frozenset(twice),
                facts=(Fact("names", twice),),
                summary=f"{listed} twice",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"env"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="env-duplicate-name",
    title="Environment variable set twice",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Containers whose `env` list names the same variable more than once. More names is a widening.",
        why="The kubelet keeps the last entry, so a value a values file sets can be silently replaced by one "
        "a template appends; and `kubectl apply` merges env by name, so the duplicate breaks later patches.",
        example="    env:\n      - name: LOG_LEVEL\n        value: info\n      - name: LOG_LEVEL\n        value: debug",
        fix="Keep one entry per name; when values and templates both set a variable, merge them with a map "
        "keyed by name in the template.",
    ),
)
