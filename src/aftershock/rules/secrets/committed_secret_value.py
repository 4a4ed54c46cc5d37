"""Rule secret-value-committed: the change puts a new value into a Secret rendered from the repository."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from typing import Any

import yaml

from aftershock.diff.paths import KeySegment, parse_path
from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.gocompat.yamlnodes import safe_load_all
from aftershock.model.diff import FieldChangeKind, ObjectChange, RedactedValue
from aftershock.model.errors import AftershockError
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.index import ObjectPair
from aftershock.safety.credential_text import (
    embedded_credentials,
    is_sensitive_name,
    known_format,
)

SECRET_FIELDS = ("data", "stringData")


def _secret_changes(ctx: RuleContext) -> Iterator[tuple[ObjectPair, ObjectChange]]:
    for pair in ctx.index.pairs:
        if (
            pair.head is not None
            and pair.key.group == ""
            and pair.key.kind == "Secret"
            and pair.change is not None
        ):
            yield pair, pair.change


def _carries_manifests(body: Any, field: str, key: str) -> bool:
    """A value that is Kubernetes objects to apply (a ManagedResource's Secret carries its manifests),
    none of them a Secret: it is no credential. A carried Secret still is."""
    text = _text_of(body, field, key)
    if text is None or "apiVersion" not in text:
        return False
    try:
        documents = [d for d in safe_load_all(text) if d is not None]
    except (yaml.YAMLError, AftershockError):
        return False
    return bool(documents) and all(_plain_object(d) for d in documents)


def _plain_object(document: Any) -> bool:
    if not isinstance(document, dict) or not isinstance(document.get("apiVersion"), str):
        return False
    kind = document.get("kind")
    if kind == "List" and isinstance(document.get("items"), list):
        return all(_plain_object(item) for item in document["items"])
    return isinstance(kind, str) and kind != "Secret"


_RANDOM = re.compile(r"[A-Za-z0-9+/=_\-.~!@#$%^&*]{12,}")


def _credential_shaped(body: Any, field: str, key: str) -> bool:
    """Whether a value could be a credential: its key names one, it has a known credential format,
    a config text in it holds one (`password: x`), or it is one token of 12 or more characters
    mixing letters and digits (a generated secret). Configuration (`LOG_LEVEL: info`, a config
    file without credentials) is not."""
    if is_sensitive_name(key):
        return True
    text = _text_of(body, field, key)
    if text is None:
        return True  # nothing to read, or not text (binary key material): said
    if known_format(text) or embedded_credentials(text):
        return True
    token = text.strip()
    return (
        "\n" not in token
        and _RANDOM.fullmatch(token) is not None
        and any(c.isdigit() for c in token)
        and any(c.isalpha() for c in token)
    )


def _same_embedded(pair: ObjectPair, field: str, key: str) -> bool:
    """Whether the value is a text holding credentials (a config file, a manifest) whose credentials
    are the same at both refs: the change edited the text around them, not them."""
    texts = [_text_of(side.body, field, key) if side else None for side in (pair.base, pair.head)]
    if any(t is None for t in texts) or is_sensitive_name(key):
        return False
    before, after = (embedded_credentials(t or "") for t in texts)
    return bool(after) and before == after


def _text_of(body: Any, field: str, key: str) -> str | None:
    """The value of `field`.`key` as text (`data` decoded from base64); None when it is absent,
    not a string, or not text."""
    data = body.get(field) if isinstance(body, dict) else None
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str):
        return None
    return value if field == "stringData" else _decoded(value)


def _decoded(value: str) -> str | None:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, change in _secret_changes(ctx):
        for field in change.fields:
            segments = parse_path(field.path)
            if (
                len(segments) != 2
                or not isinstance(segments[0], KeySegment)
                or segments[0].key not in SECRET_FIELDS
                or not isinstance(segments[1], KeySegment)
            ):
                continue
            if (
                field.kind is FieldChangeKind.REMOVED
                or not isinstance(field.after, RedactedValue)
                or field.after.bytes == 0
            ):
                continue
            if pair.head and _carries_manifests(pair.head.body, segments[0].key, segments[1].key):
                continue
            if pair.head and not _credential_shaped(
                pair.head.body, segments[0].key, segments[1].key
            ):
                continue  # configuration a Secret carries: no credential in it
            if _same_embedded(pair, segments[0].key, segments[1].key):
                continue  # a text whose credentials did not change: only what is around them
            key = segments[1].text
            verb = "adds" if field.kind is FieldChangeKind.ADDED else "changes"
            size = field.after.bytes
            location = ctx.index.locate_object(pair, (segments[1].key,), in_change=True)
            yield Concern(
                subject=pair.subject(f"{segments[0].key}.{key}"),
                message=f"{pair.display}: the change {verb} the value of {field.path} ({size} bytes), which the chart "
                "renders from the repository, so the credential is committed to Git",
                delta=Delta.INTRODUCED,
                location=location,
                path=pair.impact_path(field.path, "changes"),
                facts=(
                    Fact("field", field.path),
                    Fact("change", field.kind.value),
                    Fact("bytes", size),
                ),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="secret-value-committed",
    title="Secret value committed to the repository",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Secrets whose rendered `data` or `stringData` keys the change adds or changes to a non-empty value. "
        "Renders use the chart's own values and values that vary between two renders (randAlphaNum, genCA, ...) "
        "are masked by the diff, so a changed value comes from the repository's files. Values the change does "
        "not touch are not reported (charts often ship placeholders), nor a value that is Kubernetes objects to "
        "apply none of which is a Secret (the manifests a ManagedResource's Secret carries), nor configuration "
        "with no credential shape (`LOG_LEVEL: debug`, a config file without a password line): a value counts "
        "when its key names a credential, it has a known credential format or holds one (`password: x`, a "
        "URL's user info), or it is one generated-looking token (12 or more characters, letters and digits). "
        "The value is never "
        "shown, only its size.",
        why="A credential in a chart's values or templates is in Git history for good, readable by everyone "
        "with access to the repository and its forks; rotating it by committing the new value repeats the "
        "leak.",
        example="    # values.yaml\n    secret:\n      data:\n        WEBHOOK_SIGNING_KEY: whsec_new_value_here",
        fix="Create the Secret outside the chart (External Secrets, Sealed Secrets, SOPS, the secret store) and "
        "reference it by name (`existingSecret`), then rotate the credential that was committed.",
    ),
)
