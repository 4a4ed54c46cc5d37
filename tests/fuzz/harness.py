"""Seeded fuzzing of aftershock's parsing edges, shared by tests/fuzz and benchmarks/bench_fuzz.py.

Inputs are derived from valid seeds three ways: a structure mutation (valid YAML or JSON whose
objects have fields of the wrong type, the class of the exit-70 crashes of issue 12), a text
mutation (truncations, stray YAML tokens, broken indentation) and wholly random values. Each
target calls one parser the way the review does and accepts only the refusal it documents (an
AftershockError, helm-unittest's SuiteError, a MalformedPayload); anything else is a failure with
its traceback, and an input that runs past `HANG_SECONDS` is a hang.
"""

from __future__ import annotations

import copy
import json
import random
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import yaml

HANG_SECONDS = 5.0
ODD_STRINGS = (
    "",
    " ",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "~",
    "null",
    "NaN",
    ".inf",
    "0x1F",
    "0o17",
    "010",
    "1e3",
    "1_000",
    "-",
    ":",
    "- a",
    "a: b",
    "{a: b}",
    "[1, 2]",
    "{{ .Values.x }}",
    "{{",
    "}}",
    "../../etc/passwd",
    "/",
    "*",
    "&anchor",
    "*anchor",
    "!!binary",
    "!!python/object:os.system",
    "%YAML 1.1",
    "@",
    "`",
    "\t",
    "\x00",
    "\u2028",
    "ünïcödé",
    "a" * 300,
    "2001-12-14",
    "12:30:45",
    "true",
    "1.5",
    "-1",
    "ConfigMap",
    "Secret",
    "HelmRelease",
    "values.yaml",
    "a.b.c",
    "..",
    "a..b",
    ".",
    "=",
    "sha256=",
    "0" * 40,
)
ODD_TOKENS = (
    ":",
    "- ",
    "{",
    "}",
    "[",
    "]",
    "&a ",
    "*a",
    "!!str ",
    "!!map ",
    "|",
    ">",
    "'",
    '"',
    "%",
    "@",
    "`",
    "\t",
    "\n",
    "\n---\n",
    "\n...\n",
    "<<: *a\n",
    "? ",
    "#",
    ",",
    "\\",
    "\x00",
    "{{ ",
    " }}",
    "\ufeff",
)


@dataclass(frozen=True)
class Failure:
    target: str
    index: int
    input: str
    traceback: str


@dataclass
class Tally:
    """What one fuzzing run saw, per target and in all."""

    inputs: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    hangs: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    exits: dict[int, int] = field(default_factory=dict)  # CLI runs by exit status

    @property
    def total(self) -> int:
        return sum(self.inputs.values())

    def merge(self, other: Tally) -> None:
        for name, count in other.inputs.items():
            self.inputs[name] = self.inputs.get(name, 0) + count
        self.failures += other.failures
        self.hangs += other.hangs
        self.seconds += other.seconds
        for code, count in other.exits.items():
            self.exits[code] = self.exits.get(code, 0) + count

    def report(self, limit: int = 3) -> str:
        shown = [
            f"{f.target}[{f.index}] input {f.input[:300]!r}\n{f.traceback}"
            for f in (self.failures + self.hangs)[:limit]
        ]
        return (
            f"{len(self.failures)} traceback(s), {len(self.hangs)} hang(s) in {self.total} inputs\n"
            + "\n".join(shown)
        )


class Hang(Exception):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds` (no bound elsewhere: signals reach the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Mutator:
    """Seeded generators of odd values, structure mutations and text mutations."""

    def __init__(self, seed: int, *, finite: bool = False) -> None:
        self.rng = random.Random(seed)
        self.finite = finite  # no NaN or infinity: Helm refuses a whole values file holding one

    def scalar(self) -> Any:
        r = self.rng
        odd_floats = [] if self.finite else [float("nan"), float("inf")]
        return r.choice(
            [
                None,
                True,
                False,
                0,
                -1,
                1.5,
                *odd_floats,
                2**70,
                -(2**63),
                r.randint(-5, 100),
                r.choice(ODD_STRINGS),
                r.choice(ODD_STRINGS),
                "".join(r.choice("ab:-_.{}/ ") for _ in range(r.randint(1, 12))),
            ]
        )

    def value(self, depth: int = 3) -> Any:
        roll = self.rng.random()
        if depth <= 0 or roll < 0.4:
            return self.scalar()
        if roll < 0.7:
            keys = [
                self.rng.choice(
                    ("name", "kind", "data", "spec", "values", "items", "a", "", "0", "valuesFrom")
                )
                for _ in range(self.rng.randint(0, 4))
            ]
            return {key: self.value(depth - 1) for key in keys}
        return [self.value(depth - 1) for _ in range(self.rng.randint(0, 4))]

    def nested(self, depth: int) -> Any:
        node: Any = self.scalar()
        for _ in range(depth):
            node = [node] if self.rng.random() < 0.5 else {"a": node}
        return node

    def mutate(self, document: Any, changes: int | None = None) -> Any:
        """A deep copy of `document` with one to three nodes replaced by odd values of another type."""
        result = copy.deepcopy(document)
        for _ in range(changes or self.rng.randint(1, 3)):
            result = self._replace_one(result)
        return result

    def _replace_one(self, document: Any) -> Any:
        paths = list(_paths(document))
        path = self.rng.choice(paths)
        replacement = (
            self.nested(self.rng.randint(30, 60)) if self.rng.random() < 0.03 else self.value(2)
        )
        if not path:
            return replacement
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and self.rng.random() < 0.15:
            del parent[path[-1]]
        else:
            parent[path[-1]] = replacement
        return document

    def mutate_text(self, text: str) -> str:
        r = self.rng
        at = r.randint(0, len(text))
        match r.randint(0, 5):
            case 0:
                return text[:at]
            case 1:
                return text[:at] + r.choice(ODD_TOKENS) + text[at:]
            case 2:
                return text[:at] + text[at + r.randint(1, 20) :]
            case 3:
                lines = text.splitlines(keepends=True) or [""]
                n = r.randrange(len(lines))
                return "".join(lines[:n] + [(" " * r.randint(1, 3)) + lines[n]] + lines[n + 1 :])
            case 4:
                lines = text.splitlines(keepends=True) or [""]
                n = r.randrange(len(lines))
                return "".join(lines[:n] + [lines[n]] * r.randint(2, 3) + lines[n + 1 :])
            case _:
                return "".join(r.choice(ODD_TOKENS) if r.random() < 0.05 else c for c in text)

    def yaml_text(self, document: Any) -> str:
        return yaml.safe_dump(
            document,
            default_flow_style=self.rng.choice([False, None, True]),
            allow_unicode=True,
            sort_keys=False,
        )

    def yaml_inputs(self, seeds: Sequence[Any], count: int) -> Iterator[str]:
        """`count` YAML texts: structure mutations of the seeds, text mutations of them, random values."""
        for _ in range(count):
            seed = self.rng.choice(seeds)
            roll = self.rng.random()
            if roll < 0.55:
                yield self.yaml_text(self.mutate(seed))
            elif roll < 0.9:
                text = self.yaml_text(seed)
                for _ in range(self.rng.randint(1, 3)):
                    text = self.mutate_text(text)
                yield text
            else:
                yield self.yaml_text(self.value(4))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def exercise(
    name: str,
    inputs: Iterator[Any],
    call: Callable[[Any], object],
    allowed: tuple[type[BaseException], ...],
) -> Tally:
    """Run `call` on every input; count it, and keep the tracebacks of refusals not in `allowed`."""
    tally = Tally(inputs={name: 0})
    started = time.monotonic()
    for index, item in enumerate(inputs):
        tally.inputs[name] += 1
        try:
            with deadline(HANG_SECONDS):
                call(item)
        except allowed:
            pass
        except Hang:
            tally.hangs.append(Failure(name, index, _shown(item), "hang"))
        except Exception:
            tally.failures.append(
                Failure(name, index, _shown(item), traceback.format_exc(limit=-6))
            )
    tally.seconds = time.monotonic() - started
    return tally


def _shown(item: Any) -> str:
    if isinstance(item, str):
        return item
    try:
        return json.dumps(item, default=repr)[:2000]
    except (TypeError, ValueError, RecursionError):
        return repr(item)[:2000]
