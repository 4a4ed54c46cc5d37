"""Secret values never leave the diff: changes under a core Secret's `data`/`stringData` are
rebuilt from the bodies as per-key changes whose values are RedactedValue(bytes=N).

The generic changes under those fields are discarded, not edited, so nothing of a value can slip
through a path, a REORDERED list or a nested structure. Per key: ADDED, REMOVED or MODIFIED, named
by key (`data.password`, `data["tls.crt"]`), with N = the decoded length of a `data` value (base64,
as Kubernetes decodes it; the text's UTF-8 length when it is not valid base64), or the UTF-8 length
of a `stringData` value. A whole map added or removed becomes one change per key. When a field is
not a map at all (a malformed Secret), one change on the field itself carries the redacted sizes.
`before`/`after` is None only where the value is absent. A change under a Secret's
`metadata.annotations` shows sizes only too (`kubectl.kubernetes.io/last-applied-configuration`
holds the whole object, data included).

In any other object, a credential-named field (`data.DB_PASSWORD`, the `value` of an env var
`env[name=API_KEY]`, see `credential_text.is_sensitive_name`) shows sizes only as well, and so do
such fields inside an added, removed or modified map or list. A `key` names a credential but where
it names a label, a node field, a taint or another object's key (the entries of `matchExpressions`,
`matchFields`, `tolerations`, `items`, and a `*KeyRef`): those are shown. A CustomResourceDefinition's schemas
are the one exception: they describe fields and hold no credentials, so a `password` property shows
in clear, all but the values it gives (`crd_schema`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any

from aftershock.diff.crd_schema import (
    ANY_ENTRY,
    Roots,
    descend,
    schema_depth,
    schema_place,
    schema_roots,
    schema_shown,
    step,
)
from aftershock.diff.fields import field_change
from aftershock.diff.paths import KeySegment, MatchSegment, key_text, parse_path
from aftershock.diff.values import deep_equal, is_map, key_token
from aftershock.model.diff import FieldChange, FieldChangeKind, RedactedValue
from aftershock.model.objects import ObjectKey
from aftershock.safety.credential_text import is_sensitive_name

SECRET_FIELDS = ("data", "stringData")
# The lists whose entries' `key` names a label, a node field, a taint or a ConfigMap's or Secret's
# key (apimachinery's selector requirements, tolerations, KeyToPath items); `*KeyRef` maps as well.
_KEY_NAMING = frozenset({"matchExpressions", "matchFields", "tolerations", "items"})

_ABSENT: Any = object()


def is_secret(key: ObjectKey) -> bool:
    return key.group == "" and key.kind == "Secret"


def redact_secret_changes(
    key: ObjectKey,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    changes: Sequence[FieldChange],
) -> tuple[FieldChange, ...]:
    """`changes` (the diff of `before` into `after`) with Secret values redacted; other kinds as is.

    The redacted changes of a field take the place of the first change under it.
    """
    if not is_secret(key):
        roots = schema_roots(key)
        return tuple(_credentials_hidden(change, roots) for change in changes)
    out: list[FieldChange] = []
    done: set[str] = set()
    for change in changes:
        segments = parse_path(change.path)
        if not segments:
            out.append(_redact_whole_body(change))
            continue
        first = segments[0]
        if _under_annotations(segments):
            out.append(_sizes_only(change))
        elif not (isinstance(first, KeySegment) and first.key in SECRET_FIELDS):
            out.append(change)
        elif first.key not in done:
            done.add(first.key)
            field = first.key
            out.extend(_field_changes(field, before.get(field, _ABSENT), after.get(field, _ABSENT)))
    return tuple(out)


def shown_body(key: ObjectKey, body: Mapping[str, Any]) -> Mapping[str, Any]:
    """The whole object as a report may show it: a Secret's `data`/`stringData` values and its
    annotations as sizes; in any other object, credential-named fields as sizes (a CRD's schemas
    in clear). The same rules as its changes."""
    if not is_secret(key):
        hidden = _hide_credentials(dict(body), schema_roots(key))
        return hidden if isinstance(hidden, dict) else body
    shown = dict(body)
    for field in SECRET_FIELDS:
        value = body.get(field)
        if isinstance(value, Mapping):
            shown[field] = {k: redacted(field, v) for k, v in value.items()}
        elif value is not None:
            shown[field] = redacted(field, value)
    metadata = body.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("annotations"), Mapping):
        sized = {k: redacted("stringData", v) for k, v in metadata["annotations"].items()}
        shown["metadata"] = {**metadata, "annotations": sized}
    return shown


def _credentials_hidden(change: FieldChange, roots: Roots) -> FieldChange:
    """`change` with the values of credential-named fields as sizes (see the module docstring);
    `roots`: where the object holds schemas, shown but for the values they give."""
    segments = parse_path(change.path) if change.path else ()
    depth = schema_depth(segments, roots)
    if depth is not None:
        return _in_schema(change, segments[depth:])
    if _names_credential_on(segments) and not _is_reference(segments):
        return _sizes_only(change)
    for segment in segments:
        roots = descend(roots, step(segment))
    within = next((s.key for s in reversed(segments) if isinstance(s, KeySegment)), "")
    before = _hide_credentials(change.before, roots, within)
    after = _hide_credentials(change.after, roots, within)
    if before is change.before and after is change.after:
        return change
    return FieldChange(
        path=change.path, kind=change.kind, before=before, after=after, path_parts=change.path_parts
    )


def _names_credential_on(segments: Sequence[Any]) -> bool:
    """Whether a segment of the path names a credential (`data.DB_PASSWORD`, `env[name=API_KEY]`)."""
    within = ""
    for segment in segments:
        if isinstance(segment, KeySegment):
            if _credential_key(segment.key, within):
                return True
            within = segment.key
        elif (
            isinstance(segment, MatchSegment)
            and segment.field == "name"
            and is_sensitive_name(str(segment.value))
        ):
            return True
    return False


def _credential_key(key: object, within: str) -> bool:
    """A map key that names a credential, `within` the key holding the map (a list's own key for
    its entries): the `key` of a selector requirement, a toleration, a KeyToPath item or a `*KeyRef`
    names a label, a taint or a ConfigMap's or Secret's key, not a credential."""
    if not isinstance(key, str) or not is_sensitive_name(key):
        return False
    return not (key == "key" and (within in _KEY_NAMING or within.endswith("KeyRef")))


def _is_reference(segments: Sequence[Any]) -> bool:
    """`env[name=API_KEY].valueFrom...`: where a credential comes from, not the credential."""
    return any(isinstance(s, KeySegment) and s.key == "valueFrom" for s in segments)


def _in_schema(change: FieldChange, inside: Sequence[Any]) -> FieldChange:
    """A change inside a CRD's schema: shown, but for the values credential-named properties give."""
    place = schema_place(inside)
    if place is None:
        return _sizes_only(change)
    properties, credential = place
    before, after = (
        schema_shown(value, _sized, properties=properties, credential=credential)
        for value in (change.before, change.after)
    )
    if before is change.before and after is change.after:
        return change
    return FieldChange(
        path=change.path, kind=change.kind, before=before, after=after, path_parts=change.path_parts
    )


def _hide_credentials(value: Any, roots: Roots = (), within: str = "") -> Any:
    """`value` (a map or list) with credential-named entries as sizes; the same object when it has
    none. `roots`: the paths below `value` to schemas, shown but for the values they give;
    `within`: the key holding `value`."""
    if isinstance(value, list):
        below = descend(roots, ANY_ENTRY)
        items = [_hide_credentials(v, below, within) for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    if not isinstance(value, dict):
        return value
    named = value.get("name")
    credential = isinstance(named, str) and is_sensitive_name(named)
    hidden = {
        k: _entry_hidden(k, v, credential, descend(roots, k), within) for k, v in value.items()
    }
    return hidden if any(hidden[k] is not value[k] for k in value) else value


def _entry_hidden(key: Any, value: Any, named_credential: bool, roots: Roots, within: str) -> Any:
    if () in roots:
        return schema_shown(value, _sized)
    if roots:
        return _hide_credentials(value, roots, str(key))
    if (named_credential and key == "value") or _credential_key(key, within):
        return _sized(value)
    return _hide_credentials(value, (), str(key))


def _sized(value: Any) -> Any:
    if value is None or isinstance(value, (bool, RedactedValue)):
        return value
    return redacted("stringData", value)


def redacted(field: str, value: Any) -> RedactedValue:
    """The size-only stand-in for a value found under `field` ("data" or "stringData")."""
    if value is None:
        return RedactedValue(bytes=0)
    if isinstance(value, str):
        return RedactedValue(bytes=_decoded_size(value) if field == "data" else len(value.encode()))
    text = json.dumps(value, default=str, skipkeys=True, ensure_ascii=False)
    return RedactedValue(bytes=len(text.encode()))


def _decoded_size(text: str) -> int:
    cleaned = text.replace("\r", "").replace("\n", "")  # Go's base64 decoder skips line breaks
    try:
        return len(base64.b64decode(cleaned, validate=True))
    except ValueError:
        return len(text.encode())


def _field_changes(field: str, before: Any, after: Any) -> list[FieldChange]:
    old, new = _as_map(before), _as_map(after)
    if old is None or new is None:
        return [_change((KeySegment(field),), field, before, after)]
    changes = _per_key_changes(field, old, new)
    if not changes and not deep_equal(before, after):
        # absent vs null vs {}: nothing secret in it, so the values are shown as they are
        kind = _kind(before, after)
        shown_before = None if before is _ABSENT else before
        shown_after = None if after is _ABSENT else after
        changes.append(field_change((KeySegment(field),), kind, shown_before, shown_after))
    return changes


def _per_key_changes(
    field: str, old: Mapping[Any, Any], new: Mapping[Any, Any]
) -> list[FieldChange]:
    new_by_token = {key_token(key): (key, value) for key, value in new.items()}
    old_tokens = set()
    changes = []
    for key, value in old.items():
        token = key_token(key)
        old_tokens.add(token)
        new_value = new_by_token.get(token, (key, _ABSENT))[1]
        if not deep_equal(value, new_value):
            changes.append(
                _change((KeySegment(field), KeySegment(key_text(key))), field, value, new_value)
            )
    for token, (key, value) in new_by_token.items():
        if token not in old_tokens:
            changes.append(
                _change((KeySegment(field), KeySegment(key_text(key))), field, _ABSENT, value)
            )
    return changes


def _change(path: tuple[KeySegment, ...], field: str, before: Any, after: Any) -> FieldChange:
    shown_before = None if before is _ABSENT else redacted(field, before)
    shown_after = None if after is _ABSENT else redacted(field, after)
    return field_change(path, _kind(before, after), shown_before, shown_after)


def _kind(before: Any, after: Any) -> FieldChangeKind:
    if before is _ABSENT:
        return FieldChangeKind.ADDED
    if after is _ABSENT:
        return FieldChangeKind.REMOVED
    return FieldChangeKind.MODIFIED


def _as_map(value: Any) -> Mapping[Any, Any] | None:
    """Absent and null read as an empty map (Kubernetes does the same); None for a non-map."""
    if value is _ABSENT or value is None:
        return {}
    return value if is_map(value) else None


def _under_annotations(segments: Sequence[Any]) -> bool:
    keys = [s.key for s in segments[:2] if isinstance(s, KeySegment)]
    return keys[:1] == ["metadata"] and (len(segments) == 1 or keys == ["metadata", "annotations"])


def _sizes_only(change: FieldChange) -> FieldChange:
    """The change with its values as sizes; idempotent, as the diff may redact a change twice."""

    def size(value: Any) -> RedactedValue | None:
        return (
            value
            if value is None or isinstance(value, RedactedValue)
            else redacted("stringData", value)
        )

    before, after = size(change.before), size(change.after)
    return FieldChange(
        path=change.path, kind=change.kind, before=before, after=after, path_parts=change.path_parts
    )


def _redact_whole_body(change: FieldChange) -> FieldChange:
    """A change of the whole document (never seen for two objects, kept safe all the same)."""
    before = None if change.before is None else RedactedValue(bytes=0)
    after = None if change.after is None else RedactedValue(bytes=0)
    return FieldChange(
        path=change.path, kind=change.kind, before=before, after=after, path_parts=()
    )
