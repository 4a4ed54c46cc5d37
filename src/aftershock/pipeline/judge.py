"""Wiring of the rules and verdict stages: the configuration from the base ref, source texts, findings,
less those the repository suppresses at the base ref (`aftershock.findings.suppressions`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aftershock.config.changes import config_notice
from aftershock.config.settings import (
    CONFIG_FILE_NAME,
    AftershockConfig,
    default_config,
    load_config,
    parse_config,
)
from aftershock.findings.dismissals import (
    DISMISSALS_FILE,
    DismissalsFile,
    no_dismissals,
    parse_dismissals,
)
from aftershock.findings.suppressions import apply_suppressions
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.tree import EntryKind
from aftershock.judgement.result import Judgement
from aftershock.model.errors import AftershockError
from aftershock.model.review import Review
from aftershock.render.limits import Deadline
from aftershock.rules.engine import check_config, evaluate
from aftershock.rules.inputs import is_source, source_files, source_folders
from aftershock.rules.model import SourceTexts
from aftershock.safety.secret_taint import secret_taint
from aftershock.verdict import verdicts as judge_verdicts


@dataclass(frozen=True)
class RepositoryFiles:
    """The repository's own say on its review: the dismissals file at both refs, and notices on them."""

    base_dismissals: DismissalsFile = field(default_factory=no_dismissals)
    head_dismissals: DismissalsFile = field(default_factory=no_dismissals)
    notices: tuple[str, ...] = ()


def review_config(explicit: Path | None, base_tree: RefSnapshot) -> tuple[AftershockConfig, str]:
    """`--config FILE` when given, else `.aftershock.yaml` as it is at the BASE ref: a change under
    review must not be able to switch off or soften the rules that review it."""
    if explicit is not None:
        config = load_config(explicit)
        source = str(explicit)
    else:
        text = base_tree.text_or_none(CONFIG_FILE_NAME)
        config = (
            parse_config(text, source=f"{CONFIG_FILE_NAME} at {base_tree.label}")
            if text
            else default_config()
        )
        source = f"{CONFIG_FILE_NAME} at {base_tree.label}" if text else "defaults"
    check_config(config)
    return config, source


def source_texts(review: Review, base_tree: RefSnapshot, head_tree: RefSnapshot) -> SourceTexts:
    """The text files of the affected charts and docs/, every chart's values.yaml and the changed READMEs,
    at both refs, for the rules that read sources."""
    folders, files = source_folders(review), source_files(review)
    return SourceTexts(base=_read(base_tree, folders, files), head=_read(head_tree, folders, files))


def _read(tree: RefSnapshot, folders: tuple[str, ...], files: tuple[str, ...]) -> dict[str, str]:
    """The wanted files: plain files in one batch of blob reads, links one by one; a file that is too
    large, not text, or missing is simply absent to the rules."""
    # paths under the source folders: only their names are left to check
    paths = dict.fromkeys(
        [p for folder in folders for p in tree.tree.paths_under(folder) if is_source(p)]
        + list(files)
    )
    entries = {
        p: e
        for p in paths
        if (e := tree.tree.entries.get(p)) is not None and (e.size or 0) <= tree.max_file_bytes
    }
    blobs = [p for p, e in entries.items() if e.kind is EntryKind.BLOB]
    texts = {
        p: text
        for p, data in tree.tree.read_many(blobs, max_bytes=tree.max_file_bytes)
        if (text := _text(data)) is not None
    }
    for path in (p for p, e in entries.items() if e.kind is EntryKind.SYMLINK):
        try:
            text = tree.text_or_none(path)
        except Exception:
            continue
        if text is not None:
            texts[path] = text
    return texts


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def repository_files(base_tree: RefSnapshot, head_tree: RefSnapshot) -> RepositoryFiles:
    """The dismissals file at both refs (an invalid one at head is a notice, at base bad input), and a
    notice when the change edits `.aftershock.yaml`."""
    base = parse_dismissals(
        base_tree.text_or_none(DISMISSALS_FILE), source=f"{DISMISSALS_FILE} at {base_tree.label}"
    )
    notices = []
    try:
        head = parse_dismissals(
            head_tree.text_or_none(DISMISSALS_FILE),
            source=f"{DISMISSALS_FILE} at {head_tree.label}",
        )
    except AftershockError as error:
        head = no_dismissals()
        notices.append(f"this change makes the dismissals file invalid: {error.line()}")
    edited = config_notice(
        base_tree.text_or_none(CONFIG_FILE_NAME),
        head_tree.text_or_none(CONFIG_FILE_NAME),
        head_tree.label,
    )
    return RepositoryFiles(base, head, tuple(notices) + ((edited,) if edited else ()))


def judge(
    review: Review,
    config: AftershockConfig,
    config_source: str,
    sources: SourceTexts,
    files: RepositoryFiles = RepositoryFiles(),
    deadline: Deadline | None = None,
) -> Judgement:
    """Findings (with every text a Secret holds hidden, so no store or format sees it), less those the
    repository suppresses, and verdicts. Rules not started by the review's `deadline` are not run,
    and say so."""
    evaluated = evaluate(
        review, config, sources=sources, expired=deadline.passed if deadline else None
    )
    taint = secret_taint(review)
    found = tuple(taint.scrub_finding(f) for f in evaluated)
    outcome = apply_suppressions(found, review, files.base_dismissals, files.head_dismissals)
    return Judgement(
        config,
        config_source,
        outcome.kept,
        judge_verdicts(review, outcome.kept),
        outcome.suppressed,
        files.notices + outcome.notices,
    )
