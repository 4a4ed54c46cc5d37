"""Rule secret-in-configmap: a credential stored in a ConfigMap."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from aftershock.diff.paths import KeySegment, format_path
from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map
from aftershock.rules.support.credentials import (
    assigned_secrets,
    assigned_weak_secrets,
    looks_like_secret,
    looks_like_weak_secret,
)
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.safety.credential_text import is_sensitive_name, known_format

# why a value is a credential, how sure, and whether that is only inferred; None: it is not one
Reason = tuple[str, Confidence | None, Evidence | None] | None


def _reason(key: str, value: str) -> Reason:
    """Why the value is a credential, how sure, and whether that is only inferred (from names)."""
    found = known_format(value)
    if found:
        return f"holds a {found}", Confidence.HIGH, None
    if is_sensitive_name(key) and looks_like_secret(value):
        return "is named like a credential and looks like one", None, Evidence.INFERRED
    names = assigned_secrets(value)
    if names:
        return (
            f"assigns {', '.join(names[:3])} to literal values",
            Confidence.LOW,
            Evidence.INFERRED,
        )
    weak = [key] if looks_like_weak_secret(key, value) else assigned_weak_secrets(value)
    if weak:
        return (
            f"sets {', '.join(weak[:3])} to a short or simple literal, perhaps a default",
            Confidence.LOW,
            Evidence.INFERRED,
        )
    return None


def issues(
    obj: RenderedObject, ctx: RuleContext, read: dict[tuple[str, str], Reason] | None = None
) -> Iterator[Issue]:
    """The credentials of a ConfigMap's `data`; `read` keeps the reason of each (key, value) seen,
    for the same entry of the same ConfigMap rendered in every scenario (and at both refs)."""
    if obj.key.group != "" or obj.key.kind != "ConfigMap":
        return
    seen = {} if read is None else read
    for key, value in sorted(as_map(obj.body.get("data")).items(), key=lambda item: str(item[0])):
        if not isinstance(value, str):
            continue
        entry = (str(key), value)
        if entry not in seen:
            seen[entry] = _reason(*entry)
        reason = seen[entry]
        if reason is None:
            continue
        why, confidence, evidence = reason
        path = format_path((KeySegment("data"), KeySegment(str(key))))
        yield Issue(
            facet=f"data {key}",
            message=f"stores a credential in {path} ({len(value.encode())} bytes; it {why})",
            field=path,
            tokens=(str(key),),
            confidence=confidence,
            evidence=evidence,
            facts=(Fact("key", str(key)), Fact("bytes", len(value.encode())), Fact("reason", why)),
            summary=f"credential in {path}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    read: dict[tuple[str, str], Reason] = {}
    return judge_objects(ctx, partial(issues, read=read), kinds=frozenset({("", "ConfigMap")}))


RULE = Rule(
    id="secret-in-configmap",
    title="Credential in a ConfigMap",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="ConfigMap `data` entries that contain a well-known credential format (high confidence), whose key "
        "is named like a credential with a real-looking value (medium), or whose text assigns literals to "
        "password/secret/token/api_key settings (low). Short or simple values (`password: abc123`) under a "
        "key ending in a credential word are reported at low confidence, not dropped. Values are never "
        "shown, only their size.",
        why="ConfigMaps are not meant for secrets: they are readable by anyone with `get configmaps`, shown "
        "in plain text by tools, never encrypted at rest, and end up in Git through the chart's values.",
        example="    kind: ConfigMap\n    data:\n      application.yaml: |\n        datasource:\n          password: hunter2-prod",
        fix="Keep the credential in a Secret (created outside the chart) and mount it, or reference it from the "
        "configuration through an environment variable fed by `secretKeyRef`.",
    ),
)
