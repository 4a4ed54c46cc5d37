"""Rule secret-in-env: a credential written as a literal environment value."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.diff.paths import KeySegment, MatchSegment, format_path
from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.credentials import (
    looks_like_secret,
    looks_like_weak_secret,
)
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.safety.credential_text import is_sensitive_name, known_format


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        for entry in as_list(container.body.get("env")):
            entry = as_map(entry)
            name, value = text(entry.get("name")), entry.get("value")
            if not name or not isinstance(value, str):
                continue
            found = known_format(value)
            strong = found is not None or (is_sensitive_name(name) and looks_like_secret(value))
            if not strong and not looks_like_weak_secret(name, value):
                continue
            why = (
                f"holds a {found}"
                if found
                else "is named like a credential and looks like one"
                if strong
                else "is named like a credential (a short or simple value, perhaps a default)"
            )
            path = format_path(
                (
                    *container.prefix,
                    KeySegment("env"),
                    MatchSegment("name", name),
                    KeySegment("value"),
                )
            )
            yield Issue(
                facet=f"{container.label} env {name}",
                message=f"sets {name} in {container.label} to a literal {len(value.encode())}-byte value that {why}",
                field=path,
                tokens=(name,),
                confidence=Confidence.HIGH if found else None if strong else Confidence.LOW,
                evidence=None if found else Evidence.INFERRED,
                facts=(
                    Fact("env", name),
                    Fact("bytes", len(value.encode())),
                    Fact("format", found),
                ),
                summary=f"literal {name}",
            )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"env"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="secret-in-env",
    title="Credential in an environment value",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Container `env` entries with a literal `value` (not `valueFrom`) that either contains a well-known "
        "credential format (private key block, AWS key id, GitHub/GitLab/Slack/Stripe/Google tokens, JWT, URL "
        "with a password; high confidence, observed) or whose name says credential (PASSWORD, SECRET, TOKEN, "
        "API_KEY, the *_KEY families such as AZURE_STORAGE_KEY and *_KEY_CONTENT, BEARER, ...; medium "
        "confidence, inferred) with a value that looks like a secret: at least 8 characters with 2.5 bits of "
        "entropy each, and not a placeholder, path, reference, boolean, number, Kubernetes name "
        "(`postgres-credentials`) or URL without user info. A shorter or simpler value (`abc123`, `postgres`) "
        "under a name ending in a credential word (DB_PASSWORD, ADMIN_TOKEN, API_KEY) is reported at low "
        "confidence rather than dropped. The value itself is never shown, only its size.",
        why="A literal env value lives in the chart's values, in Git history, in the rendered manifest Helm "
        "stores in the release Secret, and in the Deployment that anyone with `get deployments` can read.",
        example="    env:\n      - name: DB_PASSWORD\n        value: s3cr3t-passw0rd",
        fix="Move the value into a Secret created outside the chart (External Secrets, Sealed Secrets, the "
        "secret store) and reference it with `valueFrom.secretKeyRef`.",
    ),
)
