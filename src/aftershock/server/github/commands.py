"""Chat commands in pull-request comments, e.g. `@aftershock dismiss 3f2a9c1d false positive` (pure).

A command is the first line of a comment that starts with the mention, outside quotes and code
blocks. Only `dismiss`, `pause` and `resume` change what others see, so only they need write access.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

DEFAULT_MENTION = "aftershock"


class CommandKind(str, enum.Enum):
    HELP = "help"
    REVIEW = "review"  # incremental: what changed since the last reviewed head
    FULL_REVIEW = "full review"
    DISMISS = "dismiss"
    REOPEN = "reopen"
    EXPLAIN = "explain"
    PAUSE = "pause"
    RESUME = "resume"
    UNKNOWN = "unknown"  # addressed to us, but not understood: answered with a hint


@dataclass(frozen=True)
class ChatCommand:
    """`argument` is a fingerprint or rule id; `reason` the rest of a dismiss line; `text` the line as written."""

    kind: CommandKind
    argument: str = ""
    reason: str = ""
    text: str = ""

    @property
    def needs_write_access(self) -> bool:
        return self.kind in (CommandKind.DISMISS, CommandKind.PAUSE, CommandKind.RESUME)


def parse_command(body: str | None, mention: str = DEFAULT_MENTION) -> ChatCommand | None:
    """The command a comment addresses to `@mention`, or None when it addresses none."""
    pattern = re.compile(rf"@{re.escape(mention)}(?:\[bot\])?(?![\w-])(.*)", re.IGNORECASE)
    in_code = False
    for raw in (body or "").splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or line.startswith(">"):
            continue
        match = pattern.match(line)
        if match:
            return _command(match.group(1).strip(), line)
    return None


def _command(rest: str, line: str) -> ChatCommand:
    words = rest.split()
    verb = words[0].lower() if words else "help"
    args = words[1:]
    if verb == "full" and args[:1] and args[0].lower() == "review":
        return ChatCommand(CommandKind.FULL_REVIEW, text=line)
    simple = {
        "help": CommandKind.HELP,
        "review": CommandKind.REVIEW,
        "pause": CommandKind.PAUSE,
        "resume": CommandKind.RESUME,
    }
    if verb in simple and not args:
        return ChatCommand(simple[verb], text=line)
    if verb == "dismiss" and len(args) >= 2:
        return ChatCommand(
            CommandKind.DISMISS, argument=args[0], reason=" ".join(args[1:]), text=line
        )
    if verb in ("reopen", "explain") and len(args) == 1:
        return ChatCommand(CommandKind(verb), argument=args[0], text=line)
    return ChatCommand(CommandKind.UNKNOWN, text=line)


def help_text(mention: str = DEFAULT_MENTION) -> str:
    """The answer to `@mention help`, as Markdown."""
    at = f"@{mention}"
    return "\n".join(
        [
            f"Commands for {at}, one per comment, on a line of their own:",
            "",
            f"- `{at} help`: this list.",
            f"- `{at} review`: review what changed since the last reviewed head (incremental).",
            f"- `{at} full review`: review the whole pull request again.",
            f"- `{at} dismiss <fingerprint> <reason>`: dismiss a finding on its current evidence (write access).",
            f"- `{at} reopen <fingerprint>`: withdraw a dismissal.",
            f"- `{at} explain <fingerprint or rule>`: what a finding or rule means and how to fix it.",
            f"- `{at} pause` / `{at} resume`: stop or restart automatic reviews on push (write access).",
            "",
            "Fingerprints are in the review comment; a unique prefix of at least 8 characters is enough.",
        ]
    )


def usage_hint(command: ChatCommand, mention: str = DEFAULT_MENTION) -> str:
    """The polite answer to a command that was not understood."""
    return (
        f"I did not understand `{command.text}`. "
        f"`dismiss` needs a fingerprint and a reason, `reopen` and `explain` one argument. "
        f"Try `@{mention} help` for the list of commands."
    )


def refusal(login: str, command: ChatCommand) -> str:
    """The polite answer to someone without write access who asked for a write command."""
    what = {
        CommandKind.DISMISS: "dismiss findings",
        CommandKind.PAUSE: "pause reviews",
        CommandKind.RESUME: "resume reviews",
    }
    return (
        f"Sorry @{login}, only people with write access to this repository can "
        f"{what.get(command.kind, 'do that')}. A maintainer can run `{command.text}` for you."
    )
