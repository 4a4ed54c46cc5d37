"""The root exception and its kinds, which the CLI turns into one line, and the exit statuses every
aftershock command and the GitHub Action share (with their --help text)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_INTERNAL = (
    1  # a bug or an environment aftershock did not expect: one line, --debug for the traceback
)
EXIT_BAD_INPUT = 2  # bad input or options: one line saying what, where and what to do
EXIT_PARTIAL = (
    3  # the report was written, but parts could not be reviewed (listed under "not reviewed")
)
EXIT_RISK = 4  # the merge risk reached --fail-on-risk
EXIT_INTERRUPTED = 130

HELP = (
    "Exit status: 0 clean; 1 internal error; 2 bad input; "
    "3 partial (parts not reviewed, report written); 4 merge risk reached --fail-on-risk."
)


class AftershockError(Exception):
    """Root of every error aftershock raises on bad input.

    The message is one line: what went wrong, where, and what to do.
    """

    exit_code = EXIT_BAD_INPUT

    def __init__(self, what: str, *, where: str = "", hint: str = "") -> None:
        self.what = what
        self.where = where
        self.hint = hint
        super().__init__(self.line())

    def line(self) -> str:
        parts = [self.what]
        if self.where:
            parts[0] = f"{self.what} ({self.where})"
        if self.hint:
            parts.append(self.hint)
        return ": ".join(parts) if len(parts) == 1 else f"{parts[0]}; {parts[1]}"


class GitError(AftershockError):
    """A git command failed, the folder is no repository, or a ref is unknown."""


class EmptyRangeError(AftershockError):
    """base..head holds no change to review."""


class UnsafeRepositoryError(AftershockError):
    """The repository under review tries to reach outside itself (an escaping symlink)."""


class OverBoundError(AftershockError):
    """A file the review needs is over a bound every read is held to (its size, its YAML alias
    expansion): that file is *not reviewed* with this reason, and the rest of the review goes on."""


class FileTooLargeError(OverBoundError):
    """A file that would be read is over the configured size limit."""


class MalformedInputError(AftershockError):
    """A YAML or JSON file of the repository cannot be parsed."""


class ExcessiveAliasingError(OverBoundError, MalformedInputError):
    """A YAML document whose aliases expand past go-yaml's bound (an alias bomb, "billion laughs")."""


class RenderError(AftershockError):
    """Helm could not render a chart; the message carries Helm's own text."""


class ConfigError(AftershockError):
    """A command-line option or configuration value is invalid."""
