"""The Finding model: one concern a rule raised about a change, and everything that identifies it.

A finding's identity (`fingerprint`) comes from its rule and its subject only (kind, id and facet),
never from line numbers or message text, so the same concern keeps its fingerprint when the code
around it moves or the wording changes. What the rule saw is digested separately
(`evidence_digest`, from the finding's facts), so a later review can tell "same concern, new
evidence" from "same concern, same evidence".
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass
from typing import Any

FINGERPRINT_VERSION = "1"
# The rule id of the finding the engine emits when a rule raises: its checks were not applied.
RULE_ERROR_ID = "aftershock-rule-error"


class Severity(str, enum.Enum):
    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]

    @property
    def label(self) -> str:
        return self.value.capitalize()


_SEVERITY_RANK = {severity: index for index, severity in enumerate(Severity)}


class Confidence(str, enum.Enum):
    """How sure the rule is that the concern is real, apart from how bad it would be (as bandit does)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Category(str, enum.Enum):
    SECURITY = "security"
    RELIABILITY = "reliability"
    COMPATIBILITY = "compatibility"
    TESTS = "tests"
    HYGIENE = "hygiene"


class Evidence(str, enum.Enum):
    OBSERVED = "observed"  # a render, the diff, the commits or a test run showed it
    INFERRED = "inferred"  # reasoned statically from source text


class Delta(str, enum.Enum):
    """What the change did to the concern, comparing base and head."""

    INTRODUCED = "introduced"  # absent at base, present at head
    WIDENED = "widened"  # present at both, worse at head
    PRE_EXISTING = "pre_existing"  # present at both, the same
    NARROWED = "narrowed"  # present at both, less at head
    RESOLVED = "resolved"  # present at base, gone at head

    @property
    def actionable(self) -> bool:
        """Only what the change introduced or widened asks something of its author."""
        return self in (Delta.INTRODUCED, Delta.WIDENED)


class SubjectKind(str, enum.Enum):
    OBJECT = "object"  # a rendered Kubernetes object: id is "<chart>::<group>/<kind>/<ns>/<name>"
    VALUES_KEY = "values_key"  # id is "<values file>#<dotted path>"
    FILE = "file"  # id is the repository path
    COMMIT = "commit"  # id is the full sha
    CHART = "chart"  # id is the chart's repository path


@dataclass(frozen=True)
class Subject:
    """What a finding is about. `facet` narrows it (a container, a verb, a field) when one object
    can hold several concerns of the same rule."""

    kind: SubjectKind
    id: str
    display: str
    facet: str = ""


@dataclass(frozen=True)
class Location:
    """Where to point in the repository: a file and, when the change touches it, a line of head."""

    file: str
    line: int | None = None


@dataclass(frozen=True)
class PathStep:
    """One hop of the path through the impact data that justifies a finding, e.g.
    file `values.yaml` -changed-> chart -renders-> object -sets-> field."""

    kind: str  # "file", "chart", "object", "field", "values_key", "commit", "rule"
    id: str
    relation: str


@dataclass(frozen=True)
class Fact:
    """One piece of evidence: a name and a JSON-compatible value (never a secret's value)."""

    name: str
    value: Any


@dataclass(frozen=True)
class Finding:
    rule_id: str
    title: str
    severity: Severity
    confidence: Confidence
    category: Category
    evidence: Evidence
    delta: Delta
    subject: Subject
    message: str
    location: Location | None = None
    path: tuple[PathStep, ...] = ()
    facts: tuple[Fact, ...] = ()

    @property
    def actionable(self) -> bool:
        return self.delta.actionable

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.rule_id, self.subject)

    @property
    def evidence_digest(self) -> str:
        return evidence_digest(self.facts)

    @property
    def headline(self) -> str:
        """`High · security · observed: <message>`, the one-line form every output uses."""
        return (
            f"{self.severity.label} · {self.category.value} · {self.evidence.value}: {self.message}"
        )


def fingerprint(rule_id: str, subject: Subject) -> str:
    """sha256 of the rule id and the subject's kind, id and facet; 32 hex digits."""
    text = "\0".join((FINGERPRINT_VERSION, rule_id, subject.kind.value, subject.id, subject.facet))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def evidence_digest(facts: tuple[Fact, ...]) -> str:
    """sha256 of the facts as canonical JSON (sorted by name, then value); 16 hex digits."""
    pairs = sorted(
        ([fact.name, _canonical(fact.value)] for fact in facts),
        key=lambda pair: json.dumps(pair, sort_keys=True),
    )
    text = json.dumps(pairs, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _canonical(value: Any) -> Any:
    """Tuples and sets as sorted lists, so equal evidence digests the same whatever its order."""
    if isinstance(value, (set, frozenset)):
        return sorted(
            (_canonical(item) for item in value),
            key=lambda item: json.dumps(item, sort_keys=True, default=str),
        )
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _canonical(item) for key, item in value.items()}
    return value


def sort_key(finding: Finding) -> tuple[Any, ...]:
    """Actionable first, then by severity (worst first), category, rule, subject and facet."""
    return (
        not finding.actionable,
        -finding.severity.rank,
        finding.category.value,
        finding.rule_id,
        finding.subject.id,
        finding.subject.facet,
        finding.delta.value,
        finding.message,
    )
