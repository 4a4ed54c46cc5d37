"""Rule object-schema-invalid: a rendered object the Kubernetes API would reject by its schema (wrong types,
unknown fields, missing required fields), as kubeconform checks it, offline."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

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
from aftershock.model.objects import RenderedObject
from aftershock.rules.api.unknown_kinds import unknown_in_known_group, unknown_kinds
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, IssueFinder, judge_objects
from aftershock.rules.support.kubeschema import (
    NO_DEFINITIONS,
    builtin_kinds,
    builtin_schema,
    crd_schemas,
    schema_version,
    validate,
    validate_builtin,
)


def _all_objects(ctx: RuleContext) -> Iterator[RenderedObject]:
    for chart in ctx.review.chart_reviews:
        yield from chart.base_objects
        yield from chart.head_objects


def issues_for(crds: Mapping[tuple[str, str, str], Any]) -> IssueFinder:
    def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
        api_version, kind = obj.body.get("apiVersion"), obj.body.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return
        version = schema_version(ctx.kube_version)
        group, _, ver = api_version.rpartition("/")
        crd = crds.get((group, ver, kind))
        if crd is not None:
            errors = validate(obj.body, crd, NO_DEFINITIONS)
            source = "its CRD"
        else:
            schema = builtin_schema(version, api_version, kind)
            if schema is None:
                return  # listed once per review by `unvalidated`
            errors = validate_builtin(obj.body, schema, version)
            source = f"the Kubernetes {version[0]}.{version[1]} schema"
        for error in errors:
            yield Issue(
                facet=f"schema {error.path}",
                message=f"does not validate against {source}: {error.path} {error.message}",
                field=error.path,
                tokens=(error.path.rsplit(".", 1)[-1].split("[", 1)[0],),
                confidence=Confidence.MEDIUM if crd is not None else None,
                facts=(Fact("error", f"{error.path} {error.message}"),),
                summary=error.message,
            )

    return issues


def unvalidated(ctx: RuleContext, crds: Mapping[tuple[str, str, str], Any]) -> Iterator[Concern]:
    """One info line per review for the kinds with neither a built-in schema nor a CRD, in a group
    neither owns (a CRD installed apart): left alone, listed apart, never actionable (they were not
    validated, not rejected). Unknown kinds of a known group are `unknown_kinds`'."""
    version = schema_version(ctx.kube_version)
    known = builtin_kinds(version) | set(crds)
    # (apiVersion, kind) -> whether such objects go unvalidated: the same few pairs recur.
    verdicts: dict[tuple[str, str], bool] = {}
    kinds: dict[tuple[str, str, str], set[str]] = {}
    for pair in ctx.index.pairs:
        for side, obj in (("base", pair.base), ("head", pair.head)):
            if obj is None:
                continue
            api_version, kind = obj.body.get("apiVersion"), obj.body.get("kind")
            if not isinstance(api_version, str) or not isinstance(kind, str):
                continue
            found = verdicts.get((api_version, kind))
            if found is None:
                found = verdicts[(api_version, kind)] = _unvalidated(
                    version, api_version, kind, crds, known
                )
            if found:
                kinds.setdefault((pair.install, api_version, kind), set()).add(side)
    if not kinds:
        return
    named = sorted({f"{kind} ({api_version})" for _, api_version, kind in kinds})
    shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
    installs = sorted({install for install, _, _ in kinds})
    yield Concern(
        subject=Subject(SubjectKind.CHART, "review", "review", "objects not validated"),
        message=f"{len(named)} kind(s) not validated: no schema for Kubernetes "
        f"{version[0]}.{version[1]} nor a CRD among the reviewed objects: {shown}",
        delta=Delta.PRE_EXISTING,  # said once, apart: nothing the change is judged by
        severity=Severity.INFO,
        facts=(Fact("kinds", named), Fact("installs", installs)),
        scope_paths=tuple(sorted({i.split("@", 1)[0] for i in installs})),
        title="Objects not validated: no schema for their kind",
    )


def _unvalidated(
    version: tuple[int, int],
    api_version: str,
    kind: str,
    crds: Mapping[tuple[str, str, str], Any],
    known: Collection[tuple[str, str, str]],
) -> bool:
    gvk = (api_version.rpartition("/")[0], api_version.rpartition("/")[2], kind)
    return (
        gvk not in crds
        and builtin_schema(version, api_version, kind) is None
        and unknown_in_known_group(gvk, known) is None
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    crds = crd_schemas(_all_objects(ctx))
    yield from judge_objects(ctx, issues_for(crds))
    yield from unvalidated(ctx, crds)
    yield from unknown_kinds(ctx, crds)


RULE = Rule(
    id="object-schema-invalid",
    title="Object the Kubernetes API rejects by its schema",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=("https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation",),
    doc=RuleDoc(
        what="Every rendered object validated offline against the strict schema of its kind for the target "
        "Kubernetes version (the schemas the `kubernetes-validate` package ships, 1.25 to 1.37; the nearest "
        "older one is used), or against the `openAPIV3Schema` of a CustomResourceDefinition among the reviewed "
        "objects (medium confidence; unknown fields of custom resources are pruned, not rejected, so only "
        "types and constraints count). Wrong types, unknown fields (`replicas` on a DaemonSet) and missing "
        "required fields are reported, the first five per object. A kind in a group Kubernetes or a reviewed "
        "CRD owns that neither knows (`apps/v11`, `Deploymnet`: a typo) is medium, said once per apiVersion and "
        "kind with the closest known one: the apply fails. Kinds of other groups (custom resources whose CRD "
        'is installed apart) are left alone and listed in one info line per review ("Objects not '
        'validated"), apart, never actionable: they were not validated, not rejected; retired APIs are '
        "`deprecated-api`'s.",
        why="Helm renders anything; the API server (or Helm's own client-side validation) then refuses the "
        "object and the release fails at install or upgrade, or, with lax validation, the field is silently "
        "dropped and the setting never applies.",
        example="    kind: DaemonSet\n    spec:\n      replicas: 3   # not a field of DaemonSetSpec",
        fix="Fix the template: move the field where the kind has it, quote or unquote the value so that it has "
        "the schema's type, or drop what the kind does not support.",
    ),
)
