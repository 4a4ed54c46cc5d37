"""One name per output format across commands: `text` (the human-readable report; `terminal` is kept
as its alias), `markdown`, `json`, `html`, `sarif`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

Command = TypeVar("Command", bound=Callable[..., Any])

TEXT = "text"
ALIASES = {"terminal": TEXT}


class FormatChoice(click.Choice[str]):
    """A click.Choice of format names that accepts the aliases and gives back the one name."""

    def __init__(self, choices: list[str]) -> None:
        super().__init__(choices)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = ALIASES.get(value.lower(), value)
        return super().convert(value, param, ctx)


def format_option(choices: list[str]) -> Callable[[Command], Command]:
    """`--format` with these choices (text first, the default)."""
    return click.option(
        "--format",
        "fmt",
        type=FormatChoice(choices),
        default=TEXT,
        show_default=True,
        help="Output format (`terminal` is an alias of `text`).",
    )
