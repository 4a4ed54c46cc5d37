"""Noise removed before diffing, which also decides whether an object changed at all.

Two kinds of noise:
- Helm bookkeeping: the `helm.sh/chart` label (it carries the chart version, bumped by every
  release) and `checksum/*` annotations (hashes of other rendered files, whose real change shows
  on those files). Dropped wherever an ObjectMeta sits: `metadata`, `spec.template.metadata`,
  `spec.jobTemplate.spec.template.metadata` and `spec.volumeClaimTemplates[*].metadata`. Every other
  label, `app.kubernetes.io/version` included, is content. A labels/annotations map emptied by
  this is dropped too.
- Unstable values (randAlpha, genCA, uuidv4, now, ...): `find_unstable_paths` compares two renders
  of the same input; `normalize` then removes those paths from an object, so they never show as
  changes (a map key or an identity-matched list entry is deleted, a positional list entry is
  replaced by UNSTABLE_MASK so later positions stay put). Two renders of one input agree by chance
  where a template lists a small map in Go's random order (`keys`, `values`); so for such a chart
  `reordered_paths` also counts as unstable a field whose base and head differ only in the order
  of its pieces, or a list only in the order of its entries.
  In a multi-line text (a script, a config file) only the lines that vary are unstable, when they
  vary in order only (`diff.varying.lines`): an edit to another line of it still shows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from aftershock.diff.fields import diff_documents, entry_matches
from aftershock.diff.matching import pair_by_key, slots_of
from aftershock.diff.paths import (
    IndexSegment,
    KeySegment,
    MatchSegment,
    Segment,
    key_text,
    parse_path,
)
from aftershock.diff.values import is_list, is_map, thaw
from aftershock.diff.varying.lines import (
    PIECES,
    masked_lines,
    multiline_texts,
    reordered_lines,
    varying_lines,
)
from aftershock.model.diff import FieldChange, FieldChangeKind, UnstableField
from aftershock.model.objects import ObjectKey, RenderedObject

NOISE_LABELS = frozenset({"helm.sh/chart"})
NOISE_ANNOTATION_PREFIXES = ("checksum/",)
UNSTABLE_MASK = "<unstable>"

UnstablePaths = frozenset[UnstableField]

# Where an ObjectMeta sits (besides each entry of spec.volumeClaimTemplates).
_META_PATHS: tuple[tuple[str, ...], ...] = (
    ("metadata",),
    ("spec", "template", "metadata"),
    ("spec", "jobTemplate", "spec", "template", "metadata"),
)


def normalize(obj: RenderedObject, unstable: UnstablePaths = frozenset()) -> RenderedObject:
    """`obj` with Helm noise dropped and its unstable paths removed. The original is never edited:
    what changes is copied (the whole body when unstable paths go; else only the maps on the way
    to the noise), and the rest is shared, read-only, with it."""
    body = without_unstable(_without_noise(obj.body), obj.key, unstable)
    return obj if body is obj.body else replace(obj, body=body)


def without_unstable(body: Any, key: ObjectKey, unstable: UnstablePaths) -> Any:
    """`body` (of the object `key`) with its unstable fields removed and its unstable lines masked:
    a copy, or `body` itself when none of them is its own."""
    own = [field for field in unstable if field.key == key]
    if not own:
        return body
    body = thaw(body)  # unstable paths may be anywhere: a whole copy to edit
    whole = sorted({field.path for field in own if field.line is None})
    for path in whole:
        _remove_path(body, parse_path(path))
    lines: defaultdict[str, set[str]] = defaultdict(set)
    for field in own:
        if field.line is not None and field.path not in whole:
            lines[field.path].add(field.line)
    for path, signatures in sorted(lines.items()):
        _mask_text(body, parse_path(path), frozenset(signatures))
    return body


def _without_noise(body: Any) -> Any:
    """`body` itself when no ObjectMeta in it carries noise, else a copy of the maps leading to each noisy one."""
    if not is_map(body):
        return body
    result = body
    for path in _META_PATHS:
        meta = _lookup(result, path)
        if is_map(meta) and _has_noise(meta):
            result = _replaced(result, path, _quiet(meta))
    claims = _lookup(result, ("spec", "volumeClaimTemplates"))
    if is_list(claims) and any(
        is_map(c) and is_map(c.get("metadata")) and _has_noise(c["metadata"]) for c in claims
    ):
        quiet = [
            _replaced(c, ("metadata",), _quiet(c["metadata"]))
            if is_map(c) and is_map(c.get("metadata"))
            else c
            for c in claims
        ]
        result = _replaced(result, ("spec", "volumeClaimTemplates"), quiet)
    return result


def _has_noise(meta: Any) -> bool:
    labels, annotations = meta.get("labels"), meta.get("annotations")
    return (is_map(labels) and any(isinstance(k, str) and k in NOISE_LABELS for k in labels)) or (
        is_map(annotations)
        and any(isinstance(k, str) and k.startswith(NOISE_ANNOTATION_PREFIXES) for k in annotations)
    )


def _quiet(meta: Any) -> dict[str, Any]:
    copy = dict(meta)
    _drop_noise(copy)
    return copy


def _replaced(body: Any, keys: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of the maps along `keys` (which all exist) with `value` at the end."""
    copy = dict(body)
    copy[keys[0]] = value if len(keys) == 1 else _replaced(body[keys[0]], keys[1:], value)
    return copy


def find_unstable_paths(
    first: Sequence[RenderedObject], second: Sequence[RenderedObject]
) -> UnstablePaths:
    """(key, path) of every field that differs between two renders of the same input.

    Objects are paired by key (and occurrence, for duplicate keys); an object present in only one
    render (e.g. a random name) has no counterpart and yields nothing.
    """
    found: set[UnstableField] = set()
    for key, change in _paired_changes(first, second):
        texts = multiline_texts(change.before, change.after)
        lines = varying_lines(*texts) if texts else None
        if lines:
            found.update(_line_fields(key, change.path, lines))
        else:
            found.add(UnstableField(key, change.path))
    return frozenset(found)


def _paired_changes(
    first: Sequence[RenderedObject], second: Sequence[RenderedObject]
) -> Iterator[tuple[ObjectKey, FieldChange]]:
    """Each field change between the objects of `first` and `second` paired by key, Helm noise
    dropped, with the key of its object in `first`."""
    pairs, _, _ = pair_by_key(slots_of(first), slots_of(second))
    for pair in pairs:
        left, right = normalize(pair.base.obj), normalize(pair.head.obj)
        for change in diff_documents(left.body, right.body):
            yield pair.base.key, change


def _line_fields(key: ObjectKey, path: str, lines: Iterable[str]) -> set[UnstableField]:
    return {UnstableField(key, path, line) for line in lines}


def reordered_paths(
    base: Sequence[RenderedObject], head: Sequence[RenderedObject]
) -> UnstablePaths:
    """(key, path) of every field that differs between base and head only in order: a list with the
    same entries, or a text with the same pieces (words and single other characters) in another
    order, as a template joining a map's keys or values in Go's random order gives."""
    found: set[UnstableField] = set()
    for key, change in _paired_changes(base, head):
        texts = multiline_texts(change.before, change.after)
        if texts:  # only the lines that moved: another line's edit still shows
            found.update(_line_fields(key, change.path, reordered_lines(*texts)))
        elif change.kind is FieldChangeKind.REORDERED or _same_pieces(change.before, change.after):
            found.add(UnstableField(key, change.path))
    return frozenset(found)


def _same_pieces(before: Any, after: Any) -> bool:
    return (
        isinstance(before, str)
        and isinstance(after, str)
        and len(before) == len(after)
        and Counter(PIECES.findall(before)) == Counter(PIECES.findall(after))
    )


def _lookup(body: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not is_map(body):
            return None
        body = body.get(key)
    return body


def _drop_noise(meta: dict[str, Any]) -> None:
    _drop_keys(meta, "labels", lambda name: name in NOISE_LABELS)
    _drop_keys(meta, "annotations", lambda name: name.startswith(NOISE_ANNOTATION_PREFIXES))


def _drop_keys(meta: dict[str, Any], field: str, is_noise: Callable[[str], bool]) -> None:
    entries = meta.get(field)
    if not is_map(entries):
        return
    kept = {
        key: value for key, value in entries.items() if not (isinstance(key, str) and is_noise(key))
    }
    if len(kept) == len(entries):
        return
    if kept:
        meta[field] = kept
    else:
        del meta[field]


def _remove_path(body: Any, segments: tuple[Segment, ...]) -> None:
    """Removes the value at `segments` from `body` (a thawed copy), if it is there."""
    if not segments:
        return
    parent = body
    for segment in segments[:-1]:
        parent = _child(parent, segment)
        if parent is None:
            return
    last = segments[-1]
    # A thawed copy holds only dicts and lists, so those are the containers to edit.
    if isinstance(last, KeySegment) and isinstance(parent, dict):
        for key in [key for key in parent if key_text(key) == last.key]:
            del parent[key]
    elif isinstance(last, MatchSegment) and isinstance(parent, list):
        parent[:] = [entry for entry in parent if not entry_matches(entry, last)]
    elif isinstance(last, IndexSegment) and isinstance(parent, list) and last.index < len(parent):
        parent[last.index] = UNSTABLE_MASK


def _mask_text(body: Any, segments: tuple[Segment, ...], signatures: frozenset[str]) -> None:
    """Masks the lines with these signatures in the text at `segments` of `body` (a thawed copy),
    if a text is there."""
    parent = body
    for segment in segments[:-1]:
        parent = _child(parent, segment)
    last = segments[-1] if segments else None
    text = _child(parent, last) if last is not None else None
    if not isinstance(text, str):
        return
    masked = masked_lines(text, signatures, UNSTABLE_MASK)
    if isinstance(last, KeySegment) and isinstance(parent, dict):
        for key in [key for key in parent if key_text(key) == last.key]:
            parent[key] = masked
    elif isinstance(last, IndexSegment) and isinstance(parent, list):
        parent[last.index] = masked


def _child(value: Any, segment: Segment) -> Any:
    if isinstance(segment, KeySegment) and is_map(value):
        return next((item for key, item in value.items() if key_text(key) == segment.key), None)
    if isinstance(segment, MatchSegment) and is_list(value):
        return next((entry for entry in value if entry_matches(entry, segment)), None)
    if isinstance(segment, IndexSegment) and is_list(value) and segment.index < len(value):
        return value[segment.index]
    return None
