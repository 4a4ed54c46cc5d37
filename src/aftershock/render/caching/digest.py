"""The content key of a chart folder: what Helm loads from it, as one sha256 (pure but for reading files).

Every file under the folder but those the chart's `.helmignore` names, symlinks followed, is hashed
by name and bytes; each folder over its entries, a subfolder by its own digest, so a folder linked
into many charts (a library) is read once per batch (`FolderDigests`); never an absolute path. When
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
from dataclasses import dataclass
from pathlib import Path

from aftershock.gocompat import yamlio
from aftershock.ingest.helmignore import HelmIgnore, parse_helmignore
from aftershock.model.errors import AftershockError
from aftershock.render.plan import may_be_nondeterministic

_SCANNED_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt", ".json")
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


# (device, inode, path prefix in the chart, the chart's ignore rules, values by content) -> the folder's digest
FolderDigests = dict[tuple[int, int, str, HelmIgnore, bool], FolderDigest]


def chart_digest(
    chart_dir: str,
    folders: FolderDigests | None = None,
    *,
    values_by_content: bool = False,
) -> tuple[str, bool] | None:
    """(sha256 of what Helm loads from the chart folder, whether a template may render differently
    each time).

    None when the folder cannot be hashed as Helm would read it: a symlink loop, a dangling
    link, a special file or an unreadable file. The inner renderer then reports it its own way.
    `folders` keeps the digests of folders already hashed (a library linked into every chart).
    `values_by_content`: a values.yaml counts by the values it holds (it is parsed) rather than by
    its bytes, for callers that render the same chart folders many times.
    """
    try:
        ignore = _chart_ignore(Path(chart_dir))
        known = {} if folders is None else folders
        found = _hash_folder(
            Path(chart_dir), "", frozenset(), _Walk(ignore, values_by_content, known)
        )
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
    known: FolderDigests


def _hash_folder(
    folder: Path, prefix: str, ancestors: frozenset[tuple[int, int]], walk: _Walk
) -> FolderDigest:
    """The folder's digests over its entries' names and contents (a subfolder's by its own digests)."""
    info = folder.stat()
    identity = (info.st_dev, info.st_ino)
    if identity in ancestors:
        raise _Unhashable(f"symlink loop at {folder}")
    ignore, known = walk.ignore, walk.known
    key = (info.st_dev, info.st_ino, prefix, ignore, walk.values_by_content)
    if key in known:
        return known[key]
    ancestors = ancestors | {identity}
    text, loaded = hashlib.sha256(), hashlib.sha256()
    volatile = reads_files = False
    counted = 0  # entries in `loaded`
    for name in sorted(os.listdir(folder)):
        path, relative = folder / name, prefix + name
        mode = path.stat().st_mode  # follows symlinks, as Helm's loader does
        encoded = name.encode("utf-8", "surrogateescape")
        if stat.S_ISDIR(mode):
            if not ignore.ignores_folder(relative):
                sub = _hash_folder(path, relative + "/", ancestors, walk)
                text.update(b"D%d:%s\0%s" % (len(encoded), encoded, sub.text.encode("ascii")))
                if not sub.reads_nothing:
                    loaded.update(
                        b"D%d:%s\0%s" % (len(encoded), encoded, sub.loaded.encode("ascii"))
                    )
                    counted += 1
                volatile, reads_files = volatile or sub.volatile, reads_files or sub.reads_files
        elif stat.S_ISREG(mode):
            if ignore.ignores_file(relative):
                continue
            data = path.read_bytes()
            values = _values_entry(relative, encoded, data) if walk.values_by_content else None
            if values is None:
                text.update(b"F%d:%s\0%d:" % (len(encoded), encoded, len(data)))
                text.update(data)
            else:  # not in `.Files`: a template sees only the values it holds
                text.update(values)
            entry = values or _loaded_entry(relative, encoded, data)
            loaded.update(entry)
            counted += bool(entry)
            if name.endswith(_SCANNED_SUFFIXES):
                volatile = volatile or may_be_nondeterministic([data.decode("utf-8", "replace")])
            reads_files = reads_files or b".Files" in data
        else:
            raise _Unhashable(f"special file {path}")
    known[key] = FolderDigest(
        text.hexdigest(), loaded.hexdigest(), volatile, reads_files, counted == 0
    )
    return known[key]


def _values_entry(relative: str, encoded: bytes, data: bytes) -> bytes | None:
    """A (sub)chart's own values.yaml as the values it holds; None for any other file, or for a
    values file Helm could fail on (then its error depends on the text)."""
    match = _IN_A_CHART.fullmatch(relative)
    if (match.group(2) if match else relative) != _VALUES_FILE:
        return None
    values = _values_json(data)
    return None if values is None else b"V%d:%s\0%s" % (len(encoded), encoded, values.encode())


def _loaded_entry(relative: str, encoded: bytes, data: bytes) -> bytes:
    """What a file adds to the `loaded` digest: nothing for a file a render cannot read without
    `.Files` (docs, CI files, CRDs), any other file by its bytes."""
    match = _IN_A_CHART.fullmatch(relative)
    own = match.group(2) if match else relative
    if not (
        own in _RENDER_INPUTS
        or own == _VALUES_FILE
        or own.startswith("templates/")
        or _SUBCHART_ARCHIVE.fullmatch(own)
    ):
        return b""
    return b"F%d:%s\0%d:%s" % (len(encoded), encoded, len(data), data)


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
