"""`aftershock review`: options in, one review out in the chosen format."""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from pathlib import Path

import click

from aftershock.cli.progress import render_progress
from aftershock.pipeline import ReviewRequest, open_renderer, run_review
from aftershock.report.canonical import review_document
from aftershock.report.formats import OutputFormat, write_report

EXIT_PARTIAL = 3


@click.command("review")
@click.option("--repo", "repo", default=".", show_default=True, help="Repository to review.")
@click.option("--base", "base", default=None, help="Base ref [default: merge-base of head with the default branch].")
@click.option("--head", "head", default="HEAD", show_default=True, help="Head ref.")
@click.option("--format", "fmt", type=click.Choice([f.value for f in OutputFormat]), default="terminal", show_default=True)
@click.option("--output", "output", type=click.Path(dir_okay=False), default=None, help="Write the report to FILE.")
@click.option("--renderer", type=click.Choice(["sdk", "helm"]), default="sdk", show_default=True,
              help="sdk: embedded Helm (helm-python-sdk); helm: a helm binary.")
@click.option("--helm-binary", default="helm", show_default=True, help="The helm binary for --renderer helm.")
@click.option("--release-name", default="release", show_default=True)
@click.option("--namespace", default="default", show_default=True)
@click.option("--kube-version", default=None, help="Kubernetes version for .Capabilities, e.g. v1.30.0.")
@click.option("--max-file-size", type=click.IntRange(min=1), default=5 * 2**20, show_default=True, help="Bytes.")
@click.option("--render-timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True, help="Seconds per render.")
@click.option("--max-scenarios", type=click.IntRange(min=1), default=6, show_default=True,
              help="Values scenarios rendered per chart, the default one included.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Render workers [default: CPU count, at most 4].")
def review_command(
    repo: str, base: str | None, head: str, fmt: str, output: str | None, renderer: str, helm_binary: str,
    release_name: str, namespace: str, kube_version: str | None, max_file_size: int, render_timeout: float,
    max_scenarios: int, workers: int | None,
) -> None:
    """Review base..head: commits, files, units, and rendered objects that changed."""
    request = ReviewRequest(
        repo=Path(repo), base=base, head=head, release_name=release_name, namespace=namespace,
        kube_version=kube_version, max_file_bytes=max_file_size, max_scenarios=max_scenarios,
    )
    out_format = OutputFormat(fmt)
    with open_renderer(renderer, helm_binary=helm_binary, timeout_seconds=render_timeout, workers=workers) as backend:
        progress = render_progress() if _wants_progress(out_format) else nullcontext(None)
        with progress as callbacks:
            review = run_review(request, backend, callbacks)
    doc = review_document(review)
    _write(doc, out_format, output)
    for item in doc["not_reviewed"]:
        side = f" at {item['side']}" if item["side"] else ""
        click.echo(f"aftershock: not reviewed: {item['part']}{side}: {item['reason']}", err=True)
    if doc["not_reviewed"]:
        sys.exit(EXIT_PARTIAL)


def _wants_progress(fmt: OutputFormat) -> bool:
    return fmt is not OutputFormat.JSON and sys.stderr.isatty() and not os.environ.get("CI")


def _write(doc: dict, fmt: OutputFormat, output: str | None) -> None:
    if output is None:
        color = fmt is OutputFormat.TERMINAL and sys.stdout.isatty()
        write_report(doc, fmt, sys.stdout, color=color)
        return
    tmp = Path(output + ".tmp")
    with tmp.open("w", encoding="utf-8") as stream:
        write_report(doc, fmt, stream, color=False)
    tmp.replace(output)
