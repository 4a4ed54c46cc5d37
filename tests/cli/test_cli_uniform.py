"""One CLI: one name per format (with `terminal` as the alias of `text`), `--debug` after the command
name, exit statuses in every --help, `aftershock config schema` equal to the shipped copy, and the
review options `.aftershock.yaml` sets (at the base ref) under the flags the command line gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
from click.testing import CliRunner

from aftershock.cli.main import cli
from aftershock.config.schema import config_schema, config_schema_text, shipped_schema_text
from conftest import PROJECT
from gitrepo import Symlink, commit, make_repo

CHART = {
    "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    "c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}-x'}\ndata: {a: '{{ .Values.a }}'}\n",
    "c/values.yaml": "a: 1\n",
}


def _commands(group, prefix=()):
    for name, command in group.commands.items():
        yield (*prefix, name), command
        if hasattr(command, "commands"):
            yield from _commands(command, (*prefix, name))


def test_every_command_lists_exit_statuses_and_takes_debug():
    runner = CliRunner()
    for path, _ in _commands(cli):
        result = runner.invoke(cli, [*path, "--help"], prog_name="aftershock")
        assert result.exit_code == 0, path
        assert "Exit status: 0 clean; 1 internal error; 2 bad input" in result.output, path
        assert "--debug" in result.output, path


def _run(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(PROJECT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "aftershock.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def test_debug_after_the_command_shows_the_traceback(tmp_path):
    repo = make_repo(tmp_path)
    commit(repo, CHART, "base")
    plain = _run("review", "--base", "nope", "--no-state", cwd=repo)
    debug = _run("review", "--base", "nope", "--no-state", "--debug", cwd=repo)
    assert (
        plain.returncode == 2
        and "Traceback" not in plain.stderr
        and "unknown git ref" in plain.stderr
    )
    assert "Traceback" in debug.stderr and "GitError" in debug.stderr


def test_config_sets_review_options_and_flags_win(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            **CHART,
            ".aftershock.yaml": "review: {release_name: shop, max_scenarios: 2, tests: false}\n",
        },
        "base",
    )
    commit(repo, {"c/values.yaml": "a: 2\n"}, "head")
    configured = _run("review", "--base", base, "--no-state", "--format", "json", cwd=repo)
    doc = json.loads(configured.stdout)
    assert doc["options"]["release_name"] == "shop" and doc["tests"] is None
    flagged = _run(
        "review",
        "--base",
        base,
        "--no-state",
        "--format",
        "json",
        "--release-name",
        "cli",
        cwd=repo,
    )
    assert json.loads(flagged.stdout)["options"]["release_name"] == "cli"
    for alias in ("terminal", "text"):
        shown = _run("review", "--base", base, "--no-state", "--format", alias, cwd=repo)
        assert shown.returncode == 0 and "aftershock review" in shown.stdout, shown.stderr
        radius = _run("radius", "--base", base, "--format", alias, cwd=repo)
        assert radius.returncode == 0, radius.stderr


def test_a_linked_config_file_sets_review_options_too(tmp_path):
    """The options are read from the base ref's one config file; a link to it is followed."""
    repo = make_repo(tmp_path)
    files = {
        **CHART,
        "ci/aftershock.yaml": "review: {release_name: shop, tests: false}\n",
        ".aftershock.yaml": Symlink("ci/aftershock.yaml"),
    }
    base = commit(repo, files, "base")
    commit(repo, {"c/values.yaml": "a: 2\n"}, "head")
    configured = _run("review", "--base", base, "--no-state", "--format", "json", cwd=repo)
    assert json.loads(configured.stdout)["options"]["release_name"] == "shop", configured.stderr


def test_config_schema_is_the_shipped_copy_and_validates_a_config():
    assert shipped_schema_text() == config_schema_text(), "run scripts/write_config_schema.py"
    printed = CliRunner().invoke(cli, ["config", "schema"])
    assert printed.exit_code == 0 and json.loads(printed.output) == config_schema()
    schema = config_schema()
    jsonschema.validate(
        {"review": {"max_scenarios": 3}, "rules": {"x": {"enabled": False}}}, schema
    )
    try:
        jsonschema.validate({"review": {"max_scenario": 3}}, schema)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a misspelt setting must not validate")


def test_base_tests_come_from_the_config_and_the_flag_wins(tmp_path):
    suite = "suite: s\ntemplates: [templates/cm.yaml]\ntests:\n  - it: is a map\n    asserts: [{isKind: {of: ConfigMap}}]\n"
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**CHART, "c/tests/cm_test.yaml": suite, ".aftershock.yaml": "review: {base_tests: all}\n"},
        "base",
    )
    commit(repo, {"c/values.yaml": "a: 2\n"}, "head")

    def base_side(*flags: str) -> dict:
        done = _run("review", "--base", base, "--no-state", "--format", "json", *flags, cwd=repo)
        assert done.returncode == 0, done.stderr
        (chart,) = json.loads(done.stdout)["tests"]["charts"]
        return chart["base"]

    configured, flagged = base_side(), base_side("--base-tests", "needed")
    assert (configured["passed"], configured["not_run"]) == (1, 0)
    assert (flagged["passed"], flagged["not_run"]) == (0, 1)


def test_help_lists_each_command_as_its_own_help_begins_without_importing_it():
    import importlib

    from aftershock.cli.main import COMMANDS, SHORT_HELP

    assert set(SHORT_HELP) == set(COMMANDS)
    for name, (module, attribute) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        own = " ".join((command.help or "").split())
        assert own.startswith(SHORT_HELP[name].removesuffix("...").rstrip()), name
    listed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "aftershock.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "aftershock.cli.review" not in listed.stderr  # no command's module was imported
    assert all(name in listed.stdout for name in COMMANDS)


LEAVING = """
import atexit, sys
from aftershock.cli.main import main
ran = sys.argv[1]
atexit.register(lambda: open(ran, "w").write("handlers ran"))


import os
freed = os.open(ran + ".freed", os.O_CREAT | os.O_WRONLY)


class Held:  # freed by the interpreter's teardown, which `leave` skips
    def __del__(self, write=os.write, fd=freed):
        write(fd, b"torn down")


held = Held()
sys.argv = ["aftershock", *sys.argv[2:]]
main()
"""


def test_the_command_ends_the_process_with_its_status_and_runs_the_exit_handlers(tmp_path):
    """`main` ends the process without the interpreter's teardown (`leave`): the status a command
    gives, the exit handlers run, and what was printed reaches the pipe."""
    for args, status in ((["--version"], 0), (["no-such-command"], 2), (["rules", "--x"], 2)):
        ran = tmp_path / f"ran-{status}-{len(args[0])}"
        done = subprocess.run(
            [sys.executable, "-c", LEAVING, str(ran), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == status, (args, done.stderr)
        assert ran.read_text() == "handlers ran"
        assert (tmp_path / f"{ran.name}.freed").read_text() == ""  # no teardown freed what was held
        assert (done.stdout + done.stderr).strip(), args  # the version, or the one-line error
    # a command that raises SystemExit with a message: the message, and status 1
    done = subprocess.run(
        [sys.executable, "-c", "from aftershock.cli.main import leave; leave('gone')"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr.strip() == "gone"
