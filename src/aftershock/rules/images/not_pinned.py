"""Rule image-not-pinned: a container image referenced by tag only, without a digest."""

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
        ref = parse_image(image) if image else None
        if (
            ref is not None and not ref.pinned and not ref.mutable_tag
        ):  # latest is image-latest-tag's
            path = container.path("image")
            yield Issue(
                facet=container.label,
                message=f"runs {container.label} from {image} without a digest ({path})",
                field=path,
                tokens=("image", "tag"),
                facts=(Fact("image_name", ref.name),),
                summary=f"{image} by tag",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="image-not-pinned",
    title="Image not pinned by digest",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Container images with a tag other than `latest` and no `@sha256:` digest (images on `latest` or "
        "without a tag are reported by image-latest-tag). The finding's evidence is the image name, not the "
        "tag, so a version bump keeps it the same concern with the same evidence.",
        why="A tag can be re-pushed: whoever controls the registry (or steals its credentials) can change what "
        "runs without any change to the chart, and the review of this change no longer describes production.",
        example="    image: ghcr.io/example/orders:1.4.2",
        fix="Append the digest (`:1.4.2@sha256:...`), and let a bot (Renovate, Dependabot) update tag and "
        "digest together.",
    ),
)
