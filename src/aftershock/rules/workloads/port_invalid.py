"""Rule port-invalid: a container port or a Service targetPort that the API server rejects.

Port names are checked as apimachinery's IsValidPortName does (IANA_SVC_NAME: at most 15 characters,
lowercase letters, digits and single hyphens inside, at least one letter); hand-written for fidelity."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, is_map
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.pods import containers_of

_PORT_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
_LETTER = re.compile(r"[a-z]")


def port_name_problem(name: str) -> str | None:
    if len(name) > 15:
        return "must be no more than 15 characters"
    if not _PORT_NAME.match(name) or "--" in name:
        return "must be lowercase letters, digits and single inner hyphens"
    if not _LETTER.search(name):
        return "must contain at least one letter"
    return None


def port_value_problem(value: Any) -> str | None:
    """What is wrong with an IntOrString port (a number, or a name), or None."""
    if isinstance(value, bool):
        return "must be a number or a name"
    if isinstance(value, int):
        return None if 1 <= value <= 65535 else "must be between 1 and 65535"
    if isinstance(value, str):
        return port_value_problem(int(value)) if value.isdigit() else port_name_problem(value)
    return None


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    for container in containers_of(pod) if pod is not None else ():
        for index, entry in enumerate(as_list(container.body.get("ports"))):
            if not is_map(entry):
                continue
            path = container.path("ports") + f"[{index}]"
            for field, value in (
                ("name", entry.get("name")),
                ("containerPort", entry.get("containerPort")),
            ):
                problem = (
                    port_name_problem(value)
                    if field == "name" and isinstance(value, str)
                    else (
                        port_value_problem(value)
                        if field == "containerPort" and value is not None
                        else None
                    )
                )
                if problem:
                    yield _issue(
                        f"{container.label} {field} {value}", f"{path}.{field}", value, problem
                    )
    if obj.key.kind == "Service" and obj.key.group == "":
        for index, entry in enumerate(as_list(as_map(obj.body.get("spec")).get("ports"))):
            value = as_map(entry).get("targetPort")
            problem = port_value_problem(value) if value is not None else None
            if problem:
                yield _issue(
                    f"targetPort {value}", f"spec.ports[{index}].targetPort", value, problem
                )


def _issue(facet: str, path: str, value: Any, problem: str) -> Issue:
    return Issue(
        facet=facet,
        message=f"sets {path} to {value!r}, which {problem}",
        field=path,
        tokens=(str(value),),
        facts=(Fact("value", str(value)),),
        summary=f"{value!r}",
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues)


RULE = Rule(
    id="port-invalid",
    title="Port name or number the API server rejects",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Container port names that are not IANA service names (more than 15 characters, characters other "
        "than lowercase letters, digits and inner hyphens, or no letter), container port numbers outside "
        "1-65535, and Service `targetPort`s with either problem.",
        why="The API server rejects the object, so the release fails at install or upgrade although the render "
        "looks fine; a port name built from a long release name is the usual cause.",
        example="    ports:\n      - name: metrics-prometheus   # 18 characters\n        containerPort: 9090",
        fix="Use short fixed port names (`http`, `metrics`) instead of names derived from the release.",
    ),
)
