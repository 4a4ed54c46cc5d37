"""`aftershock` command group: turns every AftershockError into one line and a non-zero exit."""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from typing import NoReturn

import click

from aftershock import __version__
from aftershock.model.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    HELP,
    AftershockError,
)

# Each command's module, imported only when the command runs: `aftershock rules` loads no
# renderer, `review` no server, `--help` none (it lists SHORT_HELP; a test keeps it in step).
COMMANDS = {
    "review": ("aftershock.cli.review", "review_command"),
    "radius": ("aftershock.cli.radius", "radius_command"),
    "test": ("aftershock.cli.test", "test_command"),
    "rules": ("aftershock.cli.rules", "rules_command"),
    "explain": ("aftershock.cli.rules", "explain_command"),
    "dismiss": ("aftershock.cli.state", "dismiss_command"),
    "reopen": ("aftershock.cli.state", "reopen_command"),
    "history": ("aftershock.cli.state", "history_command"),
    "serve": ("aftershock.cli.serve", "serve_command"),
    "worker": ("aftershock.cli.worker", "worker_command"),
    "config": ("aftershock.cli.config", "config_group"),
    "charts": ("aftershock.cli.charts", "charts_group"),
}
SERVER_COMMANDS = ("serve", "worker")  # the `server` extra's packages: starlette, uvicorn, rq, ...
SHORT_HELP = {
    "charts": "Charts from outside the repository: the chart cache a review...",
    "config": "The repository configuration file, `.aftershock.yaml`.",
    "dismiss": "Dismiss a finding of the target's last review: it is not...",
    "explain": "Print a rule's documentation: what it checks, why it matters,...",
    "history": "The past reviews of a target, newest first: when, base..head,...",
    "radius": "The blast radius of base..head through commits, files, units,...",
    "reopen": "Withdraw the dismissal of a finding: the next review raises it...",
    "review": "Review base..head: commits, files, units, rendered objects...",
    "rules": "List every rule: id, category, default severity and title.",
    "serve": "Receive GitHub webhooks at POST /webhook; /healthz and...",
    "test": "Run every helm-unittest suite (tests/*_test.yaml, or -f) of...",
    "worker": "Run queued reviews; start as many as the renders need (each...",
}


class AftershockGroup(click.Group):
    """A click group whose errors never print a traceback unless --debug is given, and whose
    commands are imported when asked for (COMMANDS)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `--help`, without importing every command."""
        rows = [(name, SHORT_HELP[name]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module, name = COMMANDS[cmd_name]
            try:
                command = _imported(module, name)
            except ModuleNotFoundError as missing:
                if cmd_name not in SERVER_COMMANDS or ctx.meta.get("aftershock.debug"):
                    raise
                _server_packages_missing(cmd_name, missing)
            assert isinstance(command, click.Command)
            _uniform(command)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

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
        except ModuleNotFoundError as missing:
            command = ctx.invoked_subcommand or ""
            if ctx.meta.get("aftershock.debug") or command not in SERVER_COMMANDS:
                raise
            _server_packages_missing(command, missing)
        except Exception as error:
            if ctx.meta.get("aftershock.debug"):
                raise
            _fail(
                f"internal error: {type(error).__name__}: {error}; rerun with --debug for details",
                EXIT_INTERNAL,
            )


def _server_packages_missing(command: str, missing: ModuleNotFoundError) -> NoReturn:
    _fail(
        f"`aftershock {command}` needs the service's packages ({missing.name} is not installed): "
        "pip install 'aftershock[server]'",
        EXIT_BAD_INPUT,
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


def _imported(module: str, name: str) -> object:
    """`name` of `module`, imported with the cyclic collector paused: imports make some 100,000
    objects that live as long as the process, and a collection every 700 allocations walks them all
    again (7 % of a review's start-up). They are then frozen out of every later collection."""
    gc.disable()
    try:
        return getattr(importlib.import_module(module), name)
    finally:
        gc.freeze()
        gc.enable()


def main() -> None:
    """The `aftershock` console command."""
    try:
        cli(prog_name="aftershock")
    except SystemExit as done:
        leave(done.code)
    leave(0)


def leave(code: object) -> NoReturn:
    """End the process once a command finished, without tearing the interpreter down, as mypy
    does: a review of a large change holds about a GiB of objects, and freeing them one by one
    took 1.5 s of a whole-tree review. The exit handlers still run (they stop the kustomize
    worker), and the output is flushed; the status is what `sys.exit` would give."""
    if code is None or isinstance(code, int):
        status = code or 0
    else:
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or stream: nothing more to say
            pass
    os._exit(status)
