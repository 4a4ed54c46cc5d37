"""The exit statuses every aftershock command and the GitHub Action share, and their --help text."""

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
