"""Rule sa-token-automount: pods get a service account token mounted that they may not need."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.judge import Issue, judge_pairs_with_others
from aftershock.rules.support.pods import PodSpec, has_containers


def _service_accounts(objects: Sequence[RenderedObject]) -> dict[tuple[str, str], RenderedObject]:
    return {
        (o.key.namespace, o.key.name): o
        for o in objects
        if o.key.group == "" and o.key.kind == "ServiceAccount"
    }


def issues(
    pod: PodSpec | None,
    obj: RenderedObject,
    accounts: dict[tuple[str, str], RenderedObject],
    every_template: bool = True,
) -> Iterator[Issue]:
    """`pod`: the object's pod spec (`ReviewIndex.pod_spec`). `every_template`: the render holds all
    of the chart's templates, so a ServiceAccount it does not show is not the chart's."""
    if pod is None or not has_containers(pod):
        return
    account = (
        text(pod.spec.get("serviceAccountName"))
        or text(pod.spec.get("serviceAccount"))
        or "default"
    )
    own = pod.spec.get("automountServiceAccountToken")
    path = pod.path("automountServiceAccountToken")
    if own is False:
        return
    if own is True:
        yield Issue(
            facet="token",
            message=f"mounts the token of service account {account} ({path}: true)",
            field=path,
            tokens=("automountServiceAccountToken",),
            grade=2,
            facts=(Fact("account", account),),
            summary="automountServiceAccountToken: true",
        )
        return
    sa = accounts.get((obj.key.namespace, account))
    if sa is not None and sa.body.get("automountServiceAccountToken") is False:
        return
    if sa is None and not every_template:
        return  # a template left out of this render may create the account, and disable the token
    where = (
        "the ServiceAccount in this chart does not disable it"
        if sa is not None
        else "nothing disables it"
    )
    yield Issue(
        facet="token",
        message=f"mounts the token of service account {account} ({where})",
        field=path,
        tokens=("automountServiceAccountToken", "serviceAccountName"),
        grade=1,
        facts=(Fact("account", account),),
        summary="token mounted by default",
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    # The service accounts of each side's objects, found once per render rather than once per pair
    # (which was quadratic in a chart's objects); keyed by the objects' identity, kept alive here.
    found: dict[int, tuple[Sequence[RenderedObject], dict[tuple[str, str], RenderedObject]]] = {}

    def accounts_of(objects: Sequence[RenderedObject]) -> dict[tuple[str, str], RenderedObject]:
        entry = found.get(id(objects))
        if entry is None or entry[0] is not objects:
            entry = found[id(objects)] = (objects, _service_accounts(objects))
        return entry[1]

    def find(pair: ObjectPair, obj: RenderedObject, c: RuleContext) -> Iterator[Issue]:
        """Judges an object against the service accounts of its own side of the pair."""
        objects = pair.chart.base_objects if obj is pair.base else pair.chart.head_objects
        return issues(c.index.pod_spec(obj), obj, accounts_of(objects), pair.chart.every_template)

    # an object without a pod spec has no issue
    yield from judge_pairs_with_others(ctx, ctx.index.pod_pairs, find)


RULE = Rule(
    id="sa-token-automount",
    title="Service account token mounted",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Pod specs whose service account token is mounted: `automountServiceAccountToken: true` on the pod "
        "(graded higher), or unset on the pod while the ServiceAccount rendered by the same chart (if any) "
        "does not set it to `false`. A ServiceAccount created elsewhere cannot be seen, hence medium "
        "confidence. A change that re-enables the token is a widening.",
        why="Every process in the pod can read the token and call the API server as the service account; most "
        "applications never call the API, and a stolen token is the usual first step from a compromised pod "
        "to the cluster.",
        example="    spec:\n      serviceAccountName: orders\n      # automountServiceAccountToken not set",
        fix="Set `automountServiceAccountToken: false` on the ServiceAccount (or the pod); workloads that call "
        "the API can mount a projected token with a short expiry and an audience instead.",
    ),
)
