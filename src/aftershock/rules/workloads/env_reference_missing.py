"""Rule env-reference-missing: env valueFrom or envFrom names a ConfigMap, Secret or key the release does
not create."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.pods import Container, PodSpec, containers_of
from aftershock.rules.support.release import ReleaseObjects, judge_pods_in_release

REFS = (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret"))
SOURCES = (("configMapRef", "ConfigMap"), ("secretRef", "Secret"))
DATA_FIELDS = {"ConfigMap": ("data", "binaryData"), "Secret": ("data", "stringData")}


def references(container: Container) -> Iterator[tuple[str, str, str, str | None]]:
    """(path, kind, name, key or None) of each non-optional reference of the container."""
    for index, entry in enumerate(as_list(container.body.get("env"))):
        value_from = as_map(as_map(entry).get("valueFrom"))
        for field, kind in REFS:
            ref = as_map(value_from.get(field))
            if ref and ref.get("optional") is not True:
                yield (
                    container.path("env") + f"[{index}].valueFrom.{field}",
                    kind,
                    text(ref.get("name")),
                    text(ref.get("key")),
                )
    for index, entry in enumerate(as_list(container.body.get("envFrom"))):
        for field, kind in SOURCES:
            ref = as_map(as_map(entry).get(field))
            if ref and ref.get("optional") is not True:
                yield (
                    container.path("envFrom") + f"[{index}].{field}",
                    kind,
                    text(ref.get("name")),
                    None,
                )


def issues(obj: RenderedObject, pod: PodSpec, release: ReleaseObjects) -> Iterator[Issue]:
    for container in containers_of(pod):
        for path, kind, name, key in references(container):
            if not name:
                continue
            found = release.named(kind, obj.key.namespace, name)
            if not found and name in release.supplied:
                continue  # the user's values name it: an object made outside the chart, by design
            if not found:
                yield Issue(
                    facet=f"{container.label} {kind} {name}",
                    message=f"reads {kind} {name} in {container.label}, "
                    f"which the release does not create ({path})",
                    field=path,
                    tokens=(name,),
                    facts=(Fact("reference", f"{kind}/{name}"),),
                    summary=f"a missing {kind} {name}",
                )
            elif key and not any(
                key in as_map(o.body.get(f)) for o in found for f in DATA_FIELDS[kind]
            ):
                yield Issue(
                    facet=f"{container.label} {kind} {name} {key}",
                    message=f"reads key {key} of {kind} {name} "
                    f"in {container.label}, which it does not have ({path})",
                    field=path,
                    tokens=(key,),
                    confidence=Confidence.HIGH,
                    facts=(Fact("reference", f"{kind}/{name}/{key}"),),
                    summary=f"a missing key {key}",
                )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pods_in_release(ctx, issues)


RULE = Rule(
    id="env-reference-missing",
    title="Environment reads a ConfigMap, Secret or key the release does not create",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.LOW,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="`env[].valueFrom.configMapKeyRef`/`secretKeyRef` and `envFrom[].configMapRef`/`secretRef` that are not "
        "`optional: true` and name a ConfigMap or Secret that no object rendered with the workload is (low "
        "confidence: it may be created by hand, by another release or by an operator), or a key that the "
        "rendered ConfigMap or Secret does not hold (high confidence). A name the render's own values supply "
        "(a release's or a scenario's, e.g. `existingSecret: db-credentials`) is left out: the user names an "
        "object made elsewhere, by design.",
        why="The kubelet refuses to start the container (CreateContainerConfigError) until the object and key "
        "exist: the rollout stalls with no error at install time.",
        example="    env:\n      - name: DB_URL\n        valueFrom:\n          configMapKeyRef: {name: app-config, key: "
        "database_url}   # the ConfigMap has key db_url",
        fix="Render the reference from the same values as the object, mark references to objects made "
        "elsewhere `optional: true` when the container can start without them, or document where they come from.",
    ),
)
