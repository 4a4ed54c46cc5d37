"""Chart.yaml `kubeVersion` constraints, checked as Helm checks them before it renders.

Helm uses Masterminds/semver v3 constraints: `||` between alternatives, commas or spaces between
conditions that must all hold, the operators = != > < >= <= =< ~ ~> ^, hyphen ranges `1.2 - 1.4`,
and x/X/* wildcards. A version with a pre-release only satisfies a condition that names one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The Kubernetes version the embedded SDK reports when none is given (measured; pinned by a test).
SDK_DEFAULT_KUBE_VERSION = "v1.36.0"

_VERSION = re.compile(
    r"^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$"
)
_CONDITION = re.compile(r"^(=|!=|>=|<=|=<|>|<|~>|~|\^)?\s*(\S+)$")


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple[
        tuple[int, int | str], ...
    ] = ()  # empty: a release, which sorts after its pre-releases

    def key(self) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
        return (self.major, self.minor, self.patch, 1 if not self.pre else 0, self.pre)


def parse_version(text: str) -> Version:
    match = _VERSION.match(text.strip())
    if match is None or any(part in ("x", "X", "*") for part in match.groups()[:3] if part):
        raise ValueError(f"not a version: {text!r}")
    major, minor, patch, pre = match.groups()
    return Version(int(major), int(minor or 0), int(patch or 0), _pre(pre))


def _pre(text: str | None) -> tuple[tuple[int, int | str], ...]:
    if not text:
        return ()
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in text.split("."))


def satisfies(version: str, constraint: str) -> bool:
    """Whether `version` (e.g. v1.30.0) meets `constraint` (e.g. ">=1.22.0-0"); ValueError if malformed."""
    target = parse_version(version)
    return any(
        all(_holds(target, c) for c in _conditions(group)) for group in constraint.split("||")
    )


def _conditions(group: str) -> list[str]:
    group = re.sub(r"(\S+)\s+-\s+(\S+)", r">=\1,<=\2", group.strip())  # hyphen range
    group = re.sub(r"(=|!=|>=|<=|=<|>|<|~>|~|\^)\s+", r"\1", group)
    return [c for c in re.split(r"[\s,]+", group) if c]


def _holds(target: Version, condition: str) -> bool:
    match = _CONDITION.match(condition)
    parts = _VERSION.match(match.group(2)) if match else None
    if match is None or parts is None:
        raise ValueError(f"not a version constraint: {condition!r}")
    op = match.group(1) or "="
    if target.pre and not parts.group(4):
        return False  # pre-releases only meet conditions that name one
    low, high = _range(op, *parts.groups())
    inside = (low is None or target.key() >= low.key()) and (
        high is None or target.key() < high.key()
    )
    return not inside if op == "!=" else inside


def _wild(part: str | None) -> bool:
    return part is None or part in ("x", "X", "*")


def _number(part: str | None) -> int:
    """A written minor or patch number; 0 for a wildcard or an absent one."""
    return 0 if part is None or _wild(part) else int(part)


def _floor(major: int, minor: int, patch: int) -> Version:
    """The lowest version of major.minor.patch: below its every pre-release."""
    return Version(major, minor, patch, ((0, 0),))


def _range(
    op: str, major: str, minor: str | None, patch: str | None, pre: str | None
) -> tuple[Version | None, Version | None]:
    """The half-open range [low, high) of versions the condition admits (for != its complement)."""
    if _wild(major):
        return None, None
    m = int(major)
    n, p = _number(minor), _number(patch)
    exact = Version(m, n, p, _pre(pre))
    # The first version past what the written parts pin down (1 -> 2.0.0, 1.2 -> 1.3.0, 1.2.3 -> 1.2.4).
    after = (
        _floor(m + 1, 0, 0)
        if _wild(minor)
        else _floor(m, n + 1, 0)
        if _wild(patch)
        else _floor(m, n, p + 1)
    )
    if op in ("=", "!="):
        return exact, (after if not pre else Version(m, n, p, exact.pre + ((0, 0),)))
    if op == ">":
        return (
            after if _wild(minor) or _wild(patch) else Version(m, n, p, exact.pre + ((0, 0),))
        ), None
    if op == ">=":
        return exact, None
    if op == "<":
        return None, exact
    if op in ("<=", "=<"):
        return None, after
    if op in ("~", "~>"):
        return exact, _floor(m + 1, 0, 0) if _wild(minor) else _floor(m, n + 1, 0)
    if m > 0 or _wild(minor):  # ^: the left-most non-zero part stays fixed
        return exact, _floor(m + 1, 0, 0)
    return exact, _floor(0, n + 1, 0) if n > 0 or _wild(patch) else _floor(0, 0, p + 1)
