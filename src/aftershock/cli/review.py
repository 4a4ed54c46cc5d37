"""`aftershock review`: options in, one review out in the chosen format, recorded in the review state
unless --no-state (see `aftershock.pipeline.state`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aftershock.cli.formats import TEXT, format_option
from aftershock.cli.option_declarations import review_options, state_options
from aftershock.cli.options import review_backend, review_settings, state_settings
from aftershock.cli.paths import check_output_file
from aftershock.judgement.result import ReviewResult
from aftershock.model.errors import EXIT_PARTIAL, EXIT_RISK, ConfigError
from aftershock.model.review import Review
from aftershock.pipeline import review_change
from aftershock.pipeline.stage_clock import StageClock, process_cpu, startup_timing
from aftershock.report.canonical import observation_document, review_document
from aftershock.report.escape import one_line, visible_name
from aftershock.report.formats import OutputFormat, write_report
from aftershock.report.gaps import labelled_gaps
from aftershock.report.sarif import BASELINE_CHOICES, sarif_document
from aftershock.report.text import install_label
from aftershock.verdict.model import RiskLevel

if TYPE_CHECKING:
    from aftershock.judgement.stateful import StatefulReview

RISK_LEVELS = [level.value for level in RiskLevel]


@click.command("review")
@review_options
@state_options
@format_option([TEXT, *(f.value for f in OutputFormat if f is not OutputFormat.TERMINAL)])
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the report to FILE.",
)
@click.option(
    "--fail-on-risk",
    "fail_on",
    type=click.Choice(RISK_LEVELS),
    default=None,
    help="Exit with status 4 when the merge risk reaches this level.",
)
@click.option(
    "--sarif-baseline",
    "sarif_baseline",
    type=click.Choice(BASELINE_CHOICES),
    default="omit",
    show_default=True,
    help="SARIF: leave out the concerns the change did not introduce or widen, or keep them as `unchanged`.",
)
@click.option(
    "--quiet",
    is_flag=True,
    default=False,
    help="Print only the verdicts and the status (three lines, for pre-commit); text format only.",
)
@click.option(
    "--pretty",
    is_flag=True,
    default=False,
    help="Indent JSON and SARIF output (compact by default).",
)
@click.option(
    "--profile",
    is_flag=True,
    default=False,
    help="Print where the review's time went, stage by stage (wall and CPU seconds), to stderr; "
    "the JSON carries them as `timings`.",
)
@click.pass_context
def review_command(
    ctx: click.Context,
    fmt: str,
    output: str | None,
    fail_on: str | None,
    sarif_baseline: str,
    quiet: bool,
    pretty: bool,
    profile: bool,
) -> None:
    """Review base..head: commits, files, units, rendered objects that changed, what they reach,
    findings and verdicts, and what became of each finding since the last review of the target."""
    out_format = OutputFormat.TERMINAL if fmt == TEXT else OutputFormat(fmt)
    if quiet and out_format is not OutputFormat.TERMINAL:
        raise ConfigError(
            f"--quiet prints a summary in text, not --format {fmt}",
            hint="drop --quiet, or use --format text",
        )
    if output is not None:
        check_output_file(output, "--output")
    progress = not quiet and out_format not in (OutputFormat.JSON, OutputFormat.SARIF)
    started = startup_timing()  # the imports and the options, before the review
    observed: list[tuple[Review, dict[str, Any]]] = []  # made while a large review is judged
    result, stateful = _run(
        ctx,
        progress=progress,
        profile=profile,
        beside_judge=lambda review: observed.append((review, observation_document(review))),
    )
    if stateful is not None and stateful.plan.force_pushed:
        click.echo(f"aftershock: {stateful.plan.reason}", err=True)
    clock = StageClock(cpu=process_cpu)
    with clock.stage("document"):
        made = next((doc for review, doc in observed if review is result.review), None)
        doc = review_document(result.review, result.judgement, stateful, made)
        sarif = (
            sarif_document(result.review, result.judgement.findings, baseline=sarif_baseline)
            if out_format is OutputFormat.SARIF
            else None
        )
    timings = (started, *result.timings, *clock.timings())
    if profile:  # not by default: the document stays the same from run to run
        doc["timings"] = [asdict(t) for t in timings]
    with clock.stage("write"):
        if not quiet or output is not None:  # with --output, the whole report still goes there
            _write(doc, out_format, output, sarif, pretty)
    if profile:  # writing is timed after the document that says the other timings
        from aftershock.report.terminal import profile_lines  # the terminal report's, loaded here

        click.echo("\n".join(profile_lines((*timings, clock.timings()[-1]))), err=True)
    if quiet:
        from aftershock.report.terminal import quiet_lines  # the terminal report's, loaded here

        click.echo("\n".join(quiet_lines(doc)))
    report_warnings(doc)
    report_gaps(doc)
    merge = result.judgement.verdicts.merge
    if fail_on is not None and merge.level.rank >= RiskLevel(fail_on).rank:
        click.echo(f"aftershock: {merge.title} reaches --fail-on-risk {fail_on}", err=True)
        sys.exit(EXIT_RISK)


def _run(
    ctx: click.Context,
    *,
    progress: bool,
    profile: bool,
    beside_judge: Callable[[Review], None],
) -> tuple[ReviewResult, StatefulReview | None]:
    settings, state = review_settings(ctx), state_settings(ctx)
    request = replace(settings.request, profile=profile)
    with review_backend(settings, progress=progress) as (backend, callbacks):
        if state is None:
            return review_change(request, backend, callbacks, beside_judge=beside_judge), None
        # the state store (SQLAlchemy) is loaded only for a review that keeps state
        from aftershock.pipeline.state import review_with_state

        stateful = review_with_state(request, backend, callbacks, state, beside_judge)
        return stateful.result, stateful


def report_warnings(doc: dict[str, Any]) -> None:
    """One stderr line per warning a renderer gave a build (kustomize's deprecations), once for both
    refs when both gave it."""
    sides: dict[tuple[str, str], list[str]] = {}
    for entry in doc["chart_reviews"]:
        for side in ("base", "head"):
            for warning in (entry.get(side) or {}).get("warnings", ()):
                sides.setdefault((_build_name(entry), warning), []).append(side)
    for (part, warning), at in sides.items():
        where = " and ".join(dict.fromkeys(at))
        click.echo(
            f"aftershock: warning: {visible_name(part)} at {where}: {one_line(warning)}", err=True
        )


def _build_name(entry: dict[str, Any]) -> str:
    """A Flux Kustomization's build as the chart lines name it (`. via Kustomization ns/name`),
    a kustomization's as `kustomization <folder>`."""
    return (
        install_label(entry) if entry.get("release") else f"kustomization {entry['chart'] or '.'}"
    )


def report_gaps(doc: dict[str, Any]) -> None:
    """One stderr line per part not reviewed, and exit status 3 when there is any the change itself
    touches (a context gap, failing alike at both refs, is said but does not make the review partial)."""
    for label, group in labelled_gaps(doc):
        side = f" at {group.side}" if group.side else ""
        click.echo(
            f"aftershock: {label}: {visible_name(group.part)}{side}: {one_line(group.reason)}",
            err=True,
        )
    if doc["status"] == "partial":
        sys.exit(EXIT_PARTIAL)


def _write(
    doc: dict[str, Any],
    fmt: OutputFormat,
    output: str | None,
    sarif: dict[str, Any] | None,
    pretty: bool = False,
) -> None:
    if output is None:
        color = fmt is OutputFormat.TERMINAL and sys.stdout.isatty()
        write_report(doc, fmt, sys.stdout, color=color, sarif=sarif, pretty=pretty)
        return
    tmp = Path(output + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as stream:
            write_report(doc, fmt, stream, color=False, sarif=sarif, pretty=pretty)
        tmp.replace(output)
    except OSError as error:  # checked before the review; the disk may still fill up or go away
        tmp.unlink(missing_ok=True)
        raise ConfigError(
            f"cannot write --output {output}", hint=error.strerror or str(error)
        ) from None
