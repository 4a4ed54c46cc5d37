"""The entry point `aftershock test` calls: run the suites, print the report, write JUnit."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from aftershock.helmtest.filepatterns import DEFAULT_PATTERN
from aftershock.helmtest.junit import write_junit
from aftershock.model.errors import AftershockError
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.testrun.runner import run_suites
from aftershock.testrun.summary import write_report


def run(
    paths: list[str],
    *,
    junit: str | None,
    workers: int | None,
    color: bool,
    out: TextIO,
    update_snapshots: bool = False,
    test_files: tuple[str, ...] = (DEFAULT_PATTERN,),
) -> int:
    """Run every helm-unittest suite under `paths`; 0 when all pass, 1 when one fails, 2 on error.

    `update_snapshots` writes snapshot files as `helm unittest -u` does; it is off by default,
    and a review never turns it on. `test_files` are helm-unittest's `-f` patterns.
    """
    try:
        with SdkRenderer(
            workers=workers, parse_documents=False
        ) as renderer:  # the runner reads YAML as helm-unittest does
            result = run_suites(
                paths, renderer, update_snapshots=update_snapshots, test_files=test_files
            )
    except AftershockError as exc:
        out.write(f"Error: {exc.line()}\n")
        return exc.exit_code
    write_report(result, out, color)
    if junit:
        try:
            write_junit(result, Path(junit))
        except OSError as exc:
            out.write(
                f"Error: cannot write the JUnit report ({junit}): {exc.strerror}; "
                "check that its folder exists and is writable\n"
            )
            return 2
    return 0 if result.passed else 1
