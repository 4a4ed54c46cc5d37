"""The content key of a chart folder: what Helm loads from it, as one sha256 (pure but for reading files).

Every file under the folder but those the chart's `.helmignore` names, symlinks followed, is hashed
by name and the sha256 of its bytes; each folder over its entries, a subfolder by its own digest, so
a folder linked into many charts (a library) is read once per batch (`DigestMemo`); never an
absolute path. A file is read once per batch too, by inode: the copies a review makes of a chart
(one per template rendered alone, one per line trace) hard-link the files they keep. Nothing is
written while a batch is keyed, so an inode cannot be freed and reused meanwhile; the memo is
dropped with the batch. When
no file of the chart mentions `.Files`, no template can read a file as text: then only what a
render reads counts (Chart.yaml, values.yaml, the schema, the lock files, templates/ and subchart
archives, of the chart and its subcharts), so editing docs, CI files or CRDs changes no key; a caller
may also ask for each values.yaml to count by the values it holds (parsing it), so that editing its
comments changes none either, even in a chart that reads files: Helm loads a (sub)chart's own
values.yaml as its values and never puts it among `.Files` (nor Chart.yaml, values.schema.json,
templates/ or charts/), so no template can read its text. The digest also says whether a template
may render differently each time (random or clock functions).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from aftershock.gocompat import yamlio
from aftershock.ingest.helmignore import HelmIgnore, parse_helmignore
from aftershock.model.errors import AftershockError
from aftershock.render.plan import TEMPLATE_SUFFIXES, may_be_nondeterministic

_VALUES_FILE = "values.yaml"
# A path inside the chart: the subchart folders on the way, then the path in that (sub)chart.
_IN_A_CHART = re.compile(r"((?:charts/[^/]+/)*)(.*)", re.DOTALL)
# What a render reads besides its templates/ (and the values file), when no template reads files.
_RENDER_INPUTS = frozenset(
    {"Chart.yaml", "values.schema.json", "Chart.lock", "requirements.yaml", "requirements.lock"}
)
_SUBCHART_ARCHIVE = re.compile(r"charts/[^/]+\.tgz")


@dataclass(frozen=True)
class FolderDigest:
    text: str  # over every file's bytes (each values.yaml by its values, when asked)
    loaded: str  # over what a render reads without `.Files` only
    volatile: bool  # a template may call random or clock functions
    reads_files: bool  # some file mentions `.Files`: a template may read any file among them
    reads_nothing: bool = False  # nothing in the folder counts in `loaded` (it adds no entry there)


@dataclass(frozen=True)
class _FileFacts:
    """What the digests need of one file's bytes."""

    stamp: tuple[int, int]  # (size, mtime in ns) when read
    sha: str  # sha256 of the bytes
    reads_files: bool  # mentions `.Files`
    varies: bool | None  # its text may render differently each time; None when not asked
    values: str | None  # its values as canonical JSON (None: Helm could fail on the text)
    values_asked: bool


@dataclass
class DigestMemo:
    """What one batch has hashed: folders by (device, inode, path prefix in the chart, the chart's
    ignore rules, values by content), files by (device, inode)."""

    folders: dict[tuple[int, int, str, HelmIgnore, bool], FolderDigest] = field(
        default_factory=dict
    )
    files: dict[tuple[int, int], _FileFacts] = field(default_factory=dict)


def chart_digest(
    chart_dir: str,
    memo: DigestMemo | None = None,
    *,
    values_by_content: bool = False,
) -> tuple[str, bool] | None:
    """(sha256 of what Helm loads from the chart folder, whether a template may render differently
    each time).

    None when the folder cannot be hashed as Helm would read it: a symlink loop, a dangling
    link, a special file or an unreadable file. The inner renderer then reports it its own way.
    `memo` keeps what a batch hashed already (a library linked into every chart, a copy's files).
    `values_by_content`: a values.yaml counts by the values it holds (it is parsed) rather than by
    its bytes, for callers that render the same chart folders many times.
    """
    try:
        ignore = _chart_ignore(Path(chart_dir))
        walk = _Walk(ignore, values_by_content, DigestMemo() if memo is None else memo)
        found = _hash_folder(os.fspath(chart_dir), "", frozenset(), walk)
    except (OSError, UnicodeDecodeError, _Unhashable):
        return None
    return (found.text if found.reads_files else found.loaded), found.volatile


def _chart_ignore(chart_dir: Path) -> HelmIgnore:
    """The chart's .helmignore: Helm loads no file it names (its rules apply to the whole walk of
    the chart's folder, subcharts' files included), so those files cannot change a render."""
    try:
        text = (chart_dir / ".helmignore").read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    return parse_helmignore(text)


class _Unhashable(Exception):
    pass


@dataclass(frozen=True)
class _Walk:
    ignore: HelmIgnore
    values_by_content: bool
    memo: DigestMemo


def _hash_folder(
    folder: str, prefix: str, ancestors: frozenset[tuple[int, int]], walk: _Walk
) -> FolderDigest:
    """The folder's digests over its entries' names and contents (a subfolder's by its own digests).
    Paths are strings, not `Path`s: a review keys thousands of folders, and building a `Path` per
    entry was a third of a digest's time."""
    info = os.stat(folder)
    identity = (info.st_dev, info.st_ino)
    if identity in ancestors:
        raise _Unhashable(f"symlink loop at {folder}")
    ignore, known = walk.ignore, walk.memo.folders
    key = (info.st_dev, info.st_ino, prefix, ignore, walk.values_by_content)
    if key in known:
        return known[key]
    ancestors = ancestors | {identity}
    text, loaded = hashlib.sha256(), hashlib.sha256()
    volatile = reads_files = False
    counted = 0  # entries in `loaded`
    for name in sorted(os.listdir(folder)):
        path, relative = os.path.join(folder, name), prefix + name
        entry_info = os.stat(path)  # follows symlinks, as Helm's loader does
        encoded = name.encode("utf-8", "surrogateescape")
        if stat.S_ISDIR(entry_info.st_mode):
            if not ignore.ignores_folder(relative):
                sub = _hash_folder(path, relative + "/", ancestors, walk)
                text.update(b"D%d:%s\0%s" % (len(encoded), encoded, sub.text.encode("ascii")))
                if not sub.reads_nothing:
                    loaded.update(
                        b"D%d:%s\0%s" % (len(encoded), encoded, sub.loaded.encode("ascii"))
                    )
                    counted += 1
                volatile, reads_files = volatile or sub.volatile, reads_files or sub.reads_files
        elif stat.S_ISREG(entry_info.st_mode):
            if ignore.ignores_file(relative):
                continue
            scanned = name.endswith(TEMPLATE_SUFFIXES)
            values_file = walk.values_by_content and _is_values_file(relative)
            facts = _file_facts(path, entry_info, scanned, values_file, walk.memo)
            text_entry, entry = _file_entries(encoded, relative, facts, values_file)
            text.update(text_entry)
            loaded.update(entry)
            counted += bool(entry)
            volatile = volatile or (scanned and bool(facts.varies))
            reads_files = reads_files or facts.reads_files
        else:
            raise _Unhashable(f"special file {path}")
    known[key] = FolderDigest(
        text.hexdigest(), loaded.hexdigest(), volatile, reads_files, counted == 0
    )
    return known[key]


def _file_entries(
    encoded: bytes, relative: str, facts: _FileFacts, values_file: bool
) -> tuple[bytes, bytes]:
    """What a file adds to the `text` digest and to the `loaded` one: its name and bytes' sha256,
    or a values file's values (a template sees only those); nothing to `loaded` for a file a render
    cannot read without `.Files` (docs, CI files, CRDs)."""
    if values_file and facts.values is not None:
        values = b"V%d:%s\0%s" % (len(encoded), encoded, facts.values.encode())
        return values, values
    entry = b"F%d:%s\0%d:%s" % (len(encoded), encoded, facts.stamp[0], facts.sha.encode("ascii"))
    return entry, entry if _is_loaded(relative) else b""


def _file_facts(
    path: str, info: os.stat_result, scanned: bool, values_file: bool, memo: DigestMemo
) -> _FileFacts:
    """The file's facts, read once per batch: again only when a fact not asked before is wanted."""
    stamp = (info.st_size, info.st_mtime_ns)
    known = memo.files.get((info.st_dev, info.st_ino))
    if (
        known is not None
        and known.stamp == stamp
        and (known.varies is not None or not scanned)
        and (known.values_asked or not values_file)
    ):
        return known
    data = read_file(path)
    sha = hashlib.sha256(data).hexdigest()
    scan = scanned or (known is not None and known.varies is not None)
    parse = values_file or (known is not None and known.values_asked)
    facts = _FileFacts(
        stamp,
        sha,
        b".Files" in data,
        _text_varies(sha, data) if scan else None,
        _values_json(data) if parse else None,
        parse,
    )
    memo.files[(info.st_dev, info.st_ino)] = facts
    return facts


def read_file(path: str) -> bytes:
    """The bytes of the file at `path` (each read a digest makes)."""
    with open(path, "rb") as opened:
        return opened.read()


# sha256 of a text -> whether it may render differently each time: a pure function of the bytes,
# asked again for every copy and both refs of a file (the costliest part of a digest)
_VARIES: dict[str, bool] = {}
_MAX_VARIES = 65536


def _text_varies(sha: str, data: bytes) -> bool:
    found = _VARIES.get(sha)
    if found is None:
        if len(_VARIES) >= _MAX_VARIES:
            _VARIES.clear()
        found = _VARIES[sha] = may_be_nondeterministic([data.decode("utf-8", "replace")])
    return found


def _own_path(relative: str) -> str:
    """The path inside the (sub)chart that holds the file."""
    match = _IN_A_CHART.fullmatch(relative)
    return match.group(2) if match else relative


def _is_values_file(relative: str) -> bool:
    """A (sub)chart's own values.yaml: Helm loads it as values, never among `.Files`."""
    return _own_path(relative) == _VALUES_FILE


def _is_loaded(relative: str) -> bool:
    """Whether a render reads the file without `.Files`: not docs, CI files or CRDs."""
    own = _own_path(relative)
    return (
        own in _RENDER_INPUTS
        or own == _VALUES_FILE
        or own.startswith("templates/")
        or bool(_SUBCHART_ARCHIVE.fullmatch(own))
    )


@functools.lru_cache(maxsize=256)  # the copies of one chart hold the same values.yaml
def _values_json(data: bytes) -> str | None:
    """The values as canonical JSON (an int and a float stay apart), or None when Helm could fail on
    the text (then its error, with line numbers, depends on the text itself)."""
    try:
        values = yamlio.load_one(data.decode("utf-8"), source=_VALUES_FILE)
        return json.dumps(
            values, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (AftershockError, UnicodeDecodeError, ValueError, TypeError):
        return None
