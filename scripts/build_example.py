#!/usr/bin/env python3
"""Builds the example platform repository's git history from examples/platform.

Usage: python3 scripts/build_example.py [--example NAME] DEST
       python3 scripts/build_example.py DEST [NAME]

NAME is a folder under examples/ (default: platform; `tenants` is the tenant platform, `fleet` the
GitOps fleet repository).

Reads examples/EXAMPLE/history.yaml (EXAMPLE is `platform` unless named) and the state folders under
examples/EXAMPLE/states/ (format in examples/platform/README.md) and turns them into a real git repository in DEST: one commit per state,
with the fixed authors, dates and messages of history.yaml, so the commit shas are the same on every
run and every machine. Tags: `state-<folder>` per state, `demo-base` on the first state and `demo-head`
on the last. DEST is recreated from scratch; the script refuses to delete anything but an empty folder
or a previous build. Prints one line per commit. Needs only the standard library, PyYAML and git.
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover - depends on the interpreter
    sys.exit("build_example: PyYAML is missing; run it with .venv/bin/python or pip install PyYAML")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_DIR = EXAMPLES / "platform"
BRANCH = "main"
BUILD_MARKER = "aftershock-example-build"  # inside DEST/.git: DEST is ours to delete
TITLE_PATTERN = re.compile(
    r"^(build|chore|ci|docs|feat|fix|perf|refactor|revert|style|test)(\([a-z0-9-]+\))?!?: \S.{0,70}$"
)
STATE_KEYS = {"directory", "author", "date", "message", "delete", "symlinks"}


class ExampleError(Exception):
    """A problem with the example's input or destination, reported as one line."""


@dataclass(frozen=True)
class Person:
    name: str
    email: str

    @property
    def ident(self) -> str:
        return f"{self.name} <{self.email}>"


@dataclass(frozen=True)
class State:
    """One state of the repository: a folder of files applied over the previous state, as one commit."""

    directory: str
    author: Person
    date: str  # ISO 8601 with a UTC offset
    message: str
    deletions: tuple[str, ...] = ()
    symlinks: tuple[tuple[str, str], ...] = ()  # (path, relative target)

    @property
    def tag(self) -> str:
        return f"state-{self.directory}"

    @property
    def title(self) -> str:
        return self.message.splitlines()[0]


def load_history(example_dir: Path) -> list[State]:
    """Read history.yaml into states, oldest first, and check each one."""
    path = example_dir / "history.yaml"
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ExampleError(f"cannot read {path}: {error}") from error
    if not isinstance(document, dict) or not document.get("states"):
        raise ExampleError(
            f"{path}: expected a mapping with 'authors' and a non-empty 'states' list"
        )
    authors = {}
    for handle, entry in (document.get("authors") or {}).items():
        if not isinstance(entry, dict) or set(entry) != {"name", "email"}:
            raise ExampleError(f"{path}: author {handle!r} needs exactly 'name' and 'email'")
        authors[handle] = Person(name=str(entry["name"]), email=str(entry["email"]))
    states = [_parse_state(entry, authors, path) for entry in document["states"]]
    _check_order(states, path)
    for state in states:
        _check_message(state, path)
        if not (example_dir / "states" / state.directory).is_dir():
            raise ExampleError(
                f"{path}: state {state.directory!r} has no folder states/{state.directory}"
            )
    return states


def _parse_state(entry: dict, authors: dict[str, Person], path: Path) -> State:
    unknown = set(entry) - STATE_KEYS
    missing = {"directory", "author", "date", "message"} - set(entry)
    if unknown or missing:
        raise ExampleError(
            f"{path}: state {entry.get('directory')!r}: unknown keys {sorted(unknown)}, "
            f"missing keys {sorted(missing)}"
        )
    if entry["author"] not in authors:
        raise ExampleError(
            f"{path}: state {entry['directory']!r}: author {entry['author']!r} is not under 'authors'"
        )
    return State(
        directory=str(entry["directory"]),
        author=authors[entry["author"]],
        date=str(entry["date"]),
        message=str(entry["message"]),
        deletions=tuple(entry.get("delete") or ()),
        symlinks=tuple((entry.get("symlinks") or {}).items()),
    )


def _check_order(states: list[State], path: Path) -> None:
    previous: datetime.datetime | None = None
    for state in states:
        try:
            moment = datetime.datetime.fromisoformat(state.date)
        except ValueError as error:
            raise ExampleError(
                f"{path}: state {state.directory!r}: bad date {state.date!r}"
            ) from error
        if moment.tzinfo is None:
            raise ExampleError(
                f"{path}: state {state.directory!r}: date {state.date!r} needs a UTC offset"
            )
        if previous is not None and moment <= previous:
            raise ExampleError(f"{path}: state {state.directory!r}: dates must increase")
        previous = moment
    directories = [state.directory for state in states]
    if directories != sorted(set(directories)):
        raise ExampleError(
            f"{path}: state folders must be unique and listed in order: {directories}"
        )


def _check_message(state: State, path: Path) -> None:
    """Conventional Commits title, a blank line, a body, and the author's Signed-off-by trailer."""
    lines = state.message.rstrip("\n").splitlines()
    where = f"{path}: state {state.directory!r}"
    if not TITLE_PATTERN.match(lines[0]):
        raise ExampleError(
            f"{where}: title {lines[0]!r} is not a Conventional Commits title of at most 72 characters"
        )
    if len(lines) < 3 or lines[1] != "":
        raise ExampleError(f"{where}: the message needs a blank line and a body after the title")
    if lines[-1] != f"Signed-off-by: {state.author.ident}":
        raise ExampleError(f"{where}: the last line must be 'Signed-off-by: {state.author.ident}'")


def prepare_destination(dest: Path) -> None:
    """Delete a previous build at dest (never anything else) and create an empty folder."""
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise ExampleError(f"{dest} exists and is not a folder; choose another destination")
    if dest.is_dir() and any(dest.iterdir()):
        if not (dest / ".git" / BUILD_MARKER).is_file():
            raise ExampleError(
                f"{dest} is not empty and not a previous example build; choose another destination"
            )
        shutil.rmtree(dest)
    dest.mkdir(parents=True, exist_ok=True)


def git_environment(person: Person | None = None, date: str | None = None) -> dict[str, str]:
    """The environment for git: no user or system config, no inherited GIT_* variables, fixed identity."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", LC_ALL="C", TZ="UTC")
    if person is not None and date is not None:
        env.update(
            GIT_AUTHOR_NAME=person.name,
            GIT_AUTHOR_EMAIL=person.email,
            GIT_AUTHOR_DATE=date,
            GIT_COMMITTER_NAME=person.name,
            GIT_COMMITTER_EMAIL=person.email,
            GIT_COMMITTER_DATE=date,
        )
    return env


def run_git(dest: Path, args: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    command = [
        "git",
        "-c",
        f"core.hooksPath={os.devnull}",
        "-c",
        "commit.gpgSign=false",
        "-C",
        str(dest),
        *args,
    ]
    result = subprocess.run(
        command, input=stdin, capture_output=True, text=True, env=env, check=False
    )
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        reason = detail[-1] if detail else f"exit status {result.returncode}"
        raise ExampleError(f"git {' '.join(args[:2])} failed in {dest}: {reason}")
    return result.stdout.strip()


def _inside(root: Path, relative: str, what: str) -> Path:
    """root/relative, refusing absolute paths and '..' escapes."""
    candidate = Path(os.path.normpath(root / relative))
    if Path(relative).is_absolute() or not candidate.is_relative_to(root):
        raise ExampleError(f"{what} {relative!r} leaves the repository")
    return candidate


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def apply_state(state: State, example_dir: Path, dest: Path) -> None:
    """Deletions first, then the state's files over the tree, then its symlinks."""
    for relative in state.deletions:
        target = _inside(dest, relative, f"state {state.directory}: deletion")
        if not target.exists() and not target.is_symlink():
            raise ExampleError(
                f"state {state.directory}: cannot delete {relative!r}, it does not exist"
            )
        _remove(target)
    source_root = example_dir / "states" / state.directory
    for source in sorted(source_root.rglob("*")):
        if source.is_symlink():
            raise ExampleError(
                f"{source}: symlinks belong under 'symlinks' in history.yaml, not in a state folder"
            )
        if source.is_dir():
            continue
        target = dest / source.relative_to(source_root)
        if target.is_symlink() or target.is_dir():
            _remove(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        target.chmod(0o644)  # git records only the executable bit; keep it off everywhere
    for relative, link_target in state.symlinks:
        link = _inside(dest, relative, f"state {state.directory}: symlink")
        resolved = os.path.join(os.path.dirname(relative), link_target)
        _inside(dest, resolved, f"state {state.directory}: symlink target")
        if link.exists() or link.is_symlink():
            _remove(link)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(link_target, link)


def commit_state(state: State, dest: Path) -> str:
    """Commit the work tree as the state's commit and tag it; returns the commit sha."""
    env = git_environment(state.author, state.date)
    run_git(dest, ["add", "--all"], env)
    if not run_git(dest, ["status", "--porcelain"], env):
        raise ExampleError(
            f"state {state.directory} changes nothing; every state must be a real commit"
        )
    # pinned to 'whitespace': lines starting with '#' stay in the message, as written
    run_git(
        dest, ["commit", "--quiet", "--cleanup=whitespace", "--file=-"], env, stdin=state.message
    )
    run_git(dest, ["tag", state.tag], env)
    return run_git(dest, ["rev-parse", "HEAD"], env)


def build(example_dir: Path, dest: Path) -> list[tuple[State, str]]:
    """Build the whole history in dest; returns (state, sha) pairs and prints one line per commit."""
    states = load_history(example_dir)
    prepare_destination(dest)
    env = git_environment()
    run_git(dest, ["init", "--quiet", f"--initial-branch={BRANCH}"], env)
    (dest / ".git" / BUILD_MARKER).write_text("built by scripts/build_example.py; safe to delete\n")
    built: list[tuple[State, str]] = []
    for state in states:
        apply_state(state, example_dir, dest)
        sha = commit_state(state, dest)
        built.append((state, sha))
        print(f"{sha[:12]} {state.tag:<40} {state.title}", flush=True)
    run_git(dest, ["tag", "demo-base", built[0][1]], env)
    run_git(dest, ["tag", "demo-head", built[-1][1]], env)
    return built


def main(argv: list[str]) -> int:
    example_dir = EXAMPLE_DIR
    if len(argv) == 3 and argv[0] == "--example":
        argv = [argv[2], argv[1]]
    if len(argv) == 2 and not argv[1].startswith("-"):
        example_dir, argv = EXAMPLE_DIR.parent / argv[1], argv[:1]
        if (
            not (example_dir / "history.yaml").is_file()
            or "/" in example_dir.name
            or example_dir.name.startswith(".")
        ):
            print(
                f"build_example: no example {example_dir.name!r} under examples/ (a folder with a history.yaml)",
                file=sys.stderr,
            )
            return 2
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python3 scripts/build_example.py [--example NAME] DEST", file=sys.stderr)
        return 2
    dest = Path(argv[0]).resolve()
    if dest in EXAMPLE_DIR.parents or dest.is_relative_to(EXAMPLE_DIR.parent):
        print(
            f"build_example: {dest} contains the project or lies inside examples/; choose another destination",
            file=sys.stderr,
        )
        return 2
    try:
        build(example_dir, dest)
    except ExampleError as error:
        print(f"build_example: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # stdout closed early, e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
