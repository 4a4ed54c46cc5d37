"""`aftershock rules` and `aftershock explain RULE`: the rule catalogue and one rule's documentation."""

from __future__ import annotations

import json

import click

from aftershock.cli.formats import format_option
from aftershock.rules.catalog import explain, list_rules, rule_catalog


@click.command("rules")
@format_option(["text", "json"])
def rules_command(fmt: str) -> None:
    """List every rule: id, category, default severity and title."""
    click.echo(json.dumps(rule_catalog(), indent=2) if fmt == "json" else list_rules().rstrip())


@click.command("explain")
@click.argument("rule_id")
def explain_command(rule_id: str) -> None:
    """Print a rule's documentation: what it checks, why it matters, an example, how to fix."""
    click.echo(explain(rule_id).rstrip())
