"""`aftershock` command group: turns every AftershockError into one line and a non-zero exit."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from aftershock import __version__
from aftershock.cli.charts import charts_group
from aftershock.cli.config import config_group
from aftershock.cli.radius import radius_command
from aftershock.cli.review import review_command
from aftershock.cli.rules import explain_command, rules_command
from aftershock.cli.serve import serve_command
from aftershock.cli.state import dismiss_command, history_command, reopen_command
from aftershock.cli.test import test_command
from aftershock.cli.worker import worker_command
from aftershock.model.errors import AftershockError
from aftershock.model.exitcodes import EXIT_INTERNAL, EXIT_INTERRUPTED, HELP


class AftershockGroup(click.Group):
    """A click group whose errors never print a traceback unless --debug is given."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except AftershockError as error:
            if ctx.meta.get("aftershock.debug"):
                raise
            _fail(error.line(), error.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPTED)
        except Exception as error:
            if ctx.meta.get("aftershock.debug"):
                raise
            _fail(
                f"internal error: {type(error).__name__}: {error}; rerun with --debug for details",
                EXIT_INTERNAL,
            )


def _fail(line: str, code: int) -> NoReturn:
    click.echo(f"aftershock: error: {line}", err=True)
    sys.exit(code)


@click.group(cls=AftershockGroup, epilog=HELP)
@click.version_option(__version__, prog_name="aftershock")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Review a change to a Helm/Kubernetes repository by rendering it at base and head."""
    ctx.meta["aftershock.debug"] = debug


cli.add_command(review_command)
cli.add_command(radius_command)
cli.add_command(test_command)
cli.add_command(rules_command)
cli.add_command(explain_command)
cli.add_command(dismiss_command)
cli.add_command(reopen_command)
cli.add_command(history_command)
cli.add_command(serve_command)
cli.add_command(worker_command)
cli.add_command(config_group)
cli.add_command(charts_group)


def _debug_anywhere(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta["aftershock.debug"] = True  # meta is shared by the whole context chain
    return value


def _uniform(command: click.Command) -> None:
    """Every command accepts --debug after its name too, and lists the exit statuses in its --help."""
    command.epilog = command.epilog or HELP
    if not any(p.name == "debug" for p in command.params):
        command.params.append(
            click.Option(
                ["--debug"],
                is_flag=True,
                expose_value=False,
                callback=_debug_anywhere,
                help="Show tracebacks instead of one-line errors.",
            )
        )
    for sub in getattr(command, "commands", {}).values():
        _uniform(sub)


for _command in cli.commands.values():
    _uniform(_command)


def main() -> None:
    cli(prog_name="aftershock")
