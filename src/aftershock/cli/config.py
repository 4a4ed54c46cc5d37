"""`aftershock config schema`: the JSON Schema of `.aftershock.yaml`, for editors and CI checks."""

from __future__ import annotations

import click

from aftershock.config.schema import config_schema_text
from aftershock.model.errors import HELP


@click.group("config", epilog=HELP)
def config_group() -> None:
    """The repository configuration file, `.aftershock.yaml`."""


@config_group.command("schema", epilog=HELP)
def schema_command() -> None:
    """Print the JSON Schema of `.aftershock.yaml` (generated from the model aftershock validates it with)."""
    click.echo(config_schema_text(), nl=False)
