"""Rule image-latest-tag: a container image on `latest` or without a tag."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import text
from aftershock.rules.support.images import parse_image
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        image = text(container.body.get("image"))
        if image and parse_image(image).mutable_tag:
            path = container.path("image")
            yield Issue(
                facet=container.label,
                message=f"runs {container.label} from {image}, a mutable tag ({path})",
                field=path,
                tokens=("image", "tag", "latest"),
                facts=(Fact("image", image),),
                summary=image,
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="image-latest-tag",
    title="Image on latest or without a tag",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Container images (all container lists) whose reference has no digest and whose tag is `latest` or "
        "absent (which pulls `latest`).",
        why="`latest` moves: two nodes can run different code under one Deployment, a rollback does not roll "
        "back the image, and a reviewer cannot tell what the change deploys. With `imagePullPolicy: Always` "
        "every restart can pull something new.",
        example="    containers:\n      - name: app\n        image: ghcr.io/example/orders:latest",
        fix="Use a release tag, or better a digest (`image: ghcr.io/example/orders:1.4.2@sha256:...`).",
    ),
)
