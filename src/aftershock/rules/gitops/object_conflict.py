"""Rules object-conflict and object-duplicate: one object produced by two sources, or twice by one.

A source is one review scope that deploys what it produces: a chart as its release installs it, a Flux
Kustomization, a kustomization, a folder of plain manifests, or a chart rendered on its own when no
release installs it; a chart kept to test another (`model.units.test_harnesses`: in its `tests/`
folder, or in the folder of the chart it renders) is installed nowhere and is no source. Two sources conflict when they produce the same
object (group, kind, namespace, name) for the same cluster: whichever the controller applies last
wins. Only the scopes the review built or rendered are compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartReview
from aftershock.model.units import Chart, test_harnesses
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.release import name_words

DEFAULT_SCENARIO = "default"


def _scope(review: ChartReview) -> str:
    return f"{review.chart}@{review.release}" if review.release else review.chart


def _deploying(reviews: Sequence[ChartReview], charts: Iterable[Chart]) -> list[ChartReview]:
    """Default-scenario scopes, leaving out a chart rendered on its own when a release installs it too,
    and test harness charts."""
    installed = {r.chart for r in reviews if r.release}
    harnesses = test_harnesses(charts)
    return [
        r
        for r in reviews
        if r.scenario == DEFAULT_SCENARIO
        and (r.release or (r.chart not in installed and r.chart not in harnesses))
    ]


def _producers(
    deploying: Sequence[ChartReview], head: bool
) -> dict[tuple[str, ObjectKey], list[tuple[ChartReview, RenderedObject]]]:
    """(cluster, key) -> every (review, object) producing it on one side, in review order."""
    found: dict[tuple[str, ObjectKey], list[tuple[ChartReview, RenderedObject]]] = {}
    for review in deploying:
        for obj in review.head_objects if head else review.base_objects:
            found.setdefault((review.cluster or "", obj.key), []).append((review, obj))
    return found


def _apart_as_releases(
    key: ObjectKey, producers: list[ChartReview], charts: frozenset[str], default_release: str
) -> bool:
    """Whether every producer is one of the `charts` no release installs, rendered with one release
    name (the review's, `default_release`, unless its context gives another), and the object is named
    with that name as a word (`early-owner-of-release`): installed, each chart is a release of its
    own, and two releases never share a name in one namespace, so they do not collide on it. A chart's
    object beside a release's or a manifest's still does."""
    names = {review.head_inputs.release_name or default_release for review in producers}
    if len(names) != 1 or any(r.release is not None or r.chart not in charts for r in producers):
        return False
    return names.pop() in name_words(key.name)


def _subject(rule: str, cluster: str, key: ObjectKey) -> Subject:
    where = f" in cluster {cluster}" if cluster else ""
    return Subject(SubjectKind.OBJECT, f"{cluster}::{key.id}", f"{key}{where}", facet=rule)


def check_conflicts(ctx: RuleContext) -> Iterator[Concern]:
    deploying = _deploying(ctx.review.chart_reviews, ctx.review.charts)
    head, base = _producers(deploying, True), _producers(deploying, False)
    charts = frozenset(c.path for c in ctx.review.charts)
    # Only keys produced twice can conflict: sorting just those spares sorting every object.
    for cluster, key in sorted(k for k, producers in head.items() if len(producers) >= 2):
        producers = head[(cluster, key)]
        scopes = sorted({_scope(review) for review, _ in producers})
        releases = [r for r, _ in producers]
        if len(scopes) < 2 or _apart_as_releases(
            key, releases, charts, ctx.review.options.release_name
        ):
            continue
        before = {_scope(review) for review, _ in base.get((cluster, key), ())}
        delta = Delta.PRE_EXISTING if len(before) >= 2 else Delta.INTRODUCED
        yield Concern(
            subject=_subject("conflict", cluster, key),
            delta=delta,
            message=f"{key} is produced by {len(scopes)} sources ({', '.join(scopes)}): whichever is applied last wins",
            facts=tuple(Fact("source", s) for s in scopes),
            scope_paths=tuple(sorted({o.template for _, o in producers})),
        )


def _by_key(objects: Sequence[RenderedObject]) -> dict[ObjectKey, list[RenderedObject]]:
    found: dict[ObjectKey, list[RenderedObject]] = {}
    for obj in objects:
        found.setdefault(obj.key, []).append(obj)
    return found


def check_duplicates(ctx: RuleContext) -> Iterator[Concern]:
    for review in _deploying(ctx.review.chart_reviews, ctx.review.charts):
        before = _by_key(review.base_objects)
        for key, objects in sorted(_by_key(review.head_objects).items()):
            if len(objects) < 2:
                continue
            files = sorted({o.template for o in objects})
            yield Concern(
                subject=_subject("duplicate", review.cluster or "", key),
                delta=Delta.PRE_EXISTING if len(before.get(key, ())) >= 2 else Delta.INTRODUCED,
                message=f"{key} is declared {len(objects)} times in {_scope(review)} ({', '.join(files)}): only one of them is applied",
                facts=(Fact("source", _scope(review)),) + tuple(Fact("file", f) for f in files),
                scope_paths=tuple(files),
            )


_DOC_WHY = (
    "Two sources writing one object fight: Flux, Argo CD or kubectl apply each overwrite the other on every "
    "reconciliation, and which definition is live depends on timing, so a review of either source says nothing "
    "certain about the cluster."
)

CONFLICT = Rule(
    id="object-conflict",
    title="Object produced by two sources",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check_conflicts,
    doc=RuleDoc(
        what="An object (group, kind, namespace, name) that two reviewed sources produce for the same cluster: a chart "
        "and a plain manifest, two Flux Kustomizations, a kustomization and a HelmRelease's chart. Charts no "
        "release installs are rendered with the review's release name; an object they name after it "
        "(`owner-of-release`) is no conflict between them: installed, each is its own release, and two "
        "releases never share a name in one namespace.",
        why=_DOC_WHY,
        example="    # clusters/prod/web.yaml (plain)     and charts/web (HelmRelease web in cluster prod)\n"
        "    kind: Deployment                   kind: Deployment\n    metadata: {name: web}              metadata: {name: web}",
        fix="Keep one source for the object: delete the plain manifest, or stop the chart from rendering it.",
    ),
)

DUPLICATE = Rule(
    id="object-duplicate",
    title="Object declared twice in one source",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check_duplicates,
    doc=RuleDoc(
        what="An object whose identity (group, kind, namespace, name) appears twice in the output of one source: two "
        "files of a manifest folder, or two documents of one chart's render.",
        why="Only one of the two definitions is applied (the last one, or neither when the tool refuses the duplicate), "
        "so an edit to the other one silently does nothing.",
        example="    # clusters/prod/a.yaml and clusters/prod/b.yaml\n    kind: ConfigMap\n    metadata: {name: settings}",
        fix="Merge the two definitions into one.",
    ),
)
