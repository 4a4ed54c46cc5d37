"""`aftershock radius` on the example history: the blast radius, and why a node is affected and what it reaches."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from aftershock.cli.main import AftershockGroup
from aftershock.cli.radius import radius_command

RANGE = [
    "--base",
    "state-01-orders-replicas",
    "--head",
    "state-02-lib-part-of-label",
    "--workers",
    "1",
]
# The orders chart renders in its render context: the values, name and namespace of its HelmRelease.
WORKLOAD = "workload:charts/apps/orders::apps/Deployment/orders/orders"


@click.group(cls=AftershockGroup)
def cli() -> None:
    """The command under test inside the group that turns errors into one line, as in `aftershock`."""


cli.add_command(radius_command)


@pytest.fixture(scope="module")
def run(example_repo):
    def invoke(*args: str):
        return CliRunner().invoke(cli, ["radius", "--repo", str(example_repo), *RANGE, *args])

    return invoke


def test_without_node_it_prints_the_blast_radius_per_layer(run):
    result = run()
    assert result.exit_code == 0, result.output
    assert "Blast radius of state-01-orders-replicas..state-02-lib-part-of-label" in result.output
    counts = dict(line.split() for line in result.output.split("\n\n")[1].splitlines())
    assert counts == {
        "commit": "1",
        "file": "2",
        "unit": "2",
        "chart": "3",
        "object": counts["object"],
        "workload": "2",
        "namespace": "2",
    }
    assert f"[{WORKLOAD}]" in result.output
    assert "[template:charts/library/platform-lib/templates/_labels.tpl]" in result.output


def test_with_node_it_says_why_and_what_it_reaches(run):
    result = run("--node", "Deployment orders")
    assert result.exit_code == 0, result.output
    why, reaches = result.output.split("What it reaches:")
    lines = [line.strip() for line in why.splitlines()]
    start = lines.index(
        "1. commit 109e85f feat(platform-lib): label every object as part of the platform"
    )
    assert lines[start + 1 : start + 7] == [
        "--touches--> file charts/library/platform-lib/templates/_labels.tpl  (modified)",
        "--maps_to--> template charts/library/platform-lib/templates/_labels.tpl  (template_helpers)",
        "--in_chart--> chart platform-lib  (templates/_labels.tpl)",
        "--includes--> chart orders  (symlink dependency platform-lib)",
        "--renders--> object Deployment.apps orders/orders  (charts/apps/orders/templates/deployment.yaml)",
        "--defines--> workload Deployment orders  (is this workload)",
    ]
    assert "--feeds--> workload Deployment orders  (volume configMap)" in why
    assert (
        reaches.startswith(" 1 node(s)")
        and "namespace orders  (in_namespace)  [namespace:orders]" in reaches
    )


def test_json_answers_carry_the_paths(run):
    result = run("--node", "chart:charts/library/platform-lib", "--format", "json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    node = answer["node"]
    assert node["via"]["edge"] == "in_chart" and node["distance"] == 3
    assert [e["kind"] for e in answer["causes"][0]] == ["touches", "maps_to", "in_chart"]
    effects = {e["id"]: e for e in answer["effects"]}
    step, hops = effects["namespace:orders"], []  # its path from the node, step by step
    while step["id"] != node["id"]:
        hops.append(step["via"]["edge"])
        step = effects.get(step["via"]["node"], node)
    assert hops[0] == "in_namespace" and len(hops) == effects["namespace:orders"]["distance"]
    assert WORKLOAD in effects and "chart:charts/apps/payments" in effects
    assert answer["causes"][0][-1]["target"] == "chart:charts/library/platform-lib"


def test_an_unknown_node_is_one_line_error(run):
    result = run("--node", "no-such-node")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "aftershock: error: no node of the impact graph matches 'no-such-node'; "
        "run `aftershock radius` without --node to list the node ids"
    ]
