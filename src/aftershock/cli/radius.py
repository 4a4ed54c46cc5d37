"""`aftershock radius`: the blast radius of a change, or why one node is affected and what it reaches.

What it prints, on stdout and stderr, passes through the review's Secret scrub, as `review`'s does."""

from __future__ import annotations

import json
import sys

import click

from aftershock.cli.formats import format_option
from aftershock.cli.option_declarations import review_options
from aftershock.cli.options import review_settings, run_from_options
from aftershock.graph import blast_radius, build_graph, explain, find_node, graph_document
from aftershock.graph.text import explanation_document, explanation_text, radius_text
from aftershock.model.errors import EXIT_PARTIAL
from aftershock.provenance.document import provenance_edges
from aftershock.report.escape import one_line, visible_name
from aftershock.safety.secret_taint import secret_taint


@click.command("radius")
@review_options
@click.option(
    "--node",
    "node",
    default=None,
    metavar="ID",
    help="A node id (or a unique part of one): say why it is affected and what it reaches.",
)
@format_option(["text", "json"])
@click.pass_context
def radius_command(ctx: click.Context, node: str | None, fmt: str) -> None:
    """The blast radius of base..head through commits, files, units, charts, objects and workloads."""
    review = run_from_options(review_settings(ctx), progress=fmt == "text").review
    graph = build_graph(
        review, provenance_edges(review.provenance) if review.provenance is not None else ()
    )
    radius = blast_radius(graph)
    taint = secret_taint(review)
    if node is None:
        title = f"{review.base.ref}..{review.head.ref}"
        out = (
            json.dumps(taint.scrub(graph_document(graph, radius)), indent=2) + "\n"
            if fmt == "json"
            else taint.scrub_text(radius_text(graph, radius, title))
        )
    else:
        explanation = explain(graph, find_node(graph, node).id)
        if fmt == "json":
            out = (
                json.dumps(taint.scrub(explanation_document(explanation, radius)), indent=2) + "\n"
            )
        else:
            out = taint.scrub_text(explanation_text(graph, explanation))
    click.echo(out, nl=False)
    for item in review.not_reviewed:
        side = f" at {item.side.value}" if item.side else ""
        line = f"{visible_name(item.part)}{side}: {one_line(item.reason)}"
        click.echo(f"aftershock: not reviewed: {taint.scrub_text(line)}", err=True)
    if review.not_reviewed:
        sys.exit(EXIT_PARTIAL)
