"""Rule values-schema-violation: default, CI or test values that values.schema.json rejects."""

from __future__ import annotations

import json
import posixpath
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.diff.values_keys import is_sensitive
from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.gocompat.schema_reach import schema_bomb
from aftershock.helmtest.suite_values import suite_file_values
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.linear_patterns import linear_patterns
from aftershock.rules.support.sources import files_under, load_json, load_yaml_documents


@dataclass(frozen=True)
class Violation:
    source: str  # the file whose values fail
    case: str  # "" for a values file, the test name for a helm-unittest test
    where: str  # dotted instance path, "(top level)" at the root
    keyword: str  # the failing JSON Schema keyword
    message: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.source, self.case, self.where, self.keyword)


def coalesce(defaults: Mapping[str, Any], user: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's coalesce of user values over a chart's defaults, before it validates them (hand-written for
    fidelity with Helm's `coalesceTablesFullKey`): a user null deletes the key, maps merge key by key,
    anything else replaces. Untouched subtrees are shared with `defaults`, never copied
    (nothing edits them), so validating them can be done once for all the cases (see _Validation)."""
    merged = dict(defaults)
    for key, value in user.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = coalesce(merged[key], value)
        elif isinstance(value, Mapping):
            merged[key] = coalesce({}, value)
        else:
            merged[key] = value
    return merged


def _cases(texts: Mapping[str, str], chart: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(source file, case name, values) to validate, as Helm would merge them: defaults, each ci/*.yaml
    over them (chart-testing), and each helm-unittest test's values files and `set` over them, less the
    tests that expect the render to fail (their values are invalid on purpose)."""
    defaults_docs = load_yaml_documents(texts.get(f"{chart}/values.yaml", ""))
    defaults = defaults_docs[0] if defaults_docs and isinstance(defaults_docs[0], dict) else {}
    yield f"{chart}/values.yaml", "", defaults
    for path, body in files_under(texts, f"{chart}/ci", (".yaml", ".yml")):
        docs = load_yaml_documents(body)
        if docs and isinstance(docs[0], dict):
            yield path, "", coalesce(defaults, docs[0])
    for path, _body in files_under(texts, f"{chart}/tests", ("_test.yaml", "_test.yml")):
        for name, user in suite_file_values(path, texts.get):
            if user:
                yield path, name or "?", coalesce(defaults, user)


def violations(texts: Mapping[str, str], chart: str) -> dict[tuple[str, str, str, str], Violation]:
    schema = (
        load_json(texts.get(f"{chart}/values.schema.json", ""))
        if f"{chart}/values.schema.json" in texts
        else None
    )
    if not isinstance(schema, dict):
        return {}
    import jsonschema  # a runtime dependency of this rule only
    from referencing.exceptions import Unresolvable

    if schema_bomb(schema) or _unevaluated_with_patterns(schema):
        return {}  # Helm's render refuses the first (`render.schemas.schema_reach`); the second would match with `re`
    validator_class = linear_patterns(
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    )
    try:
        with (
            warnings.catch_warnings()
        ):  # its `regex` format compiles RE2 classes with Python's `re`
            warnings.simplefilter("ignore", FutureWarning)
            validator_class.check_schema(schema)
    except jsonschema.SchemaError:
        return {}  # an invalid schema is Helm's own error at install time, not a values problem
    validation = _Validation(validator_class(schema, registry=_file_registry(texts, chart)), schema)
    found: dict[tuple[str, str, str, str], Violation] = {}
    try:
        cases = [
            (source, case, validation.errors(values))
            for source, case, values in _cases(texts, chart)
        ]
    except Unresolvable:
        return {}  # a reference to a file the repository does not hold (a URL): never fetched, not judged here
    for source, case, errors in cases:
        for error in errors:
            where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
            message = (
                error.message
                if not is_sensitive(where) and len(error.message) <= 160
                else f"fails {error.validator}"
            )
            violation = Violation(source, case, where, str(error.validator), message)
            found.setdefault(violation.key, violation)
    return found


def _unevaluated_with_patterns(schema: Any) -> bool:
    """`unevaluatedProperties` beside `patternProperties`: jsonschema matches those patterns with
    Python's backtracking `re` deep inside, where no keyword of ours can take over."""
    text = json.dumps(schema)
    return '"unevaluatedProperties"' in text and '"patternProperties"' in text


def _file_registry(texts: Mapping[str, str], chart: str) -> Any:
    """A JSON Schema registry answering a schema's references to other files of the chart
    (`"$ref": "schemas/definitions.json#/labels"`) from the repository's texts, as charts' CI inlines
    them; a reference to anything else (a URL) is unresolvable: nothing is fetched."""
    from referencing import Registry, Resource
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT7

    def retrieve(uri: str) -> Any:
        relative = uri.removeprefix("file://")
        path = "" if "://" in relative else posixpath.normpath(posixpath.join(chart, relative))
        document = load_json(texts[path]) if path in texts else None
        if not isinstance(document, (dict, bool)):
            # referencing's stub types its attrs classes with a decorator mypy does not read
            raise NoSuchResource(ref=uri)  # type: ignore[call-arg]
        return Resource.from_contents(document, default_specification=DRAFT7)

    return Registry(retrieve=retrieve)  # type: ignore[call-arg]  # as NoSuchResource above


# Root keywords that judge a values map key by key (or its key set alone): its errors are the root's
# own plus those of each top-level key's subtree against that key's schema.
_KEY_BY_KEY = frozenset(
    {
        "$schema",
        "$id",
        "id",
        "title",
        "description",
        "$comment",
        "type",
        "properties",
        "additionalProperties",
        "required",
        "definitions",
        "$defs",
        "default",
        "examples",
    }
)


class _Validation:
    """The errors of values against one schema. With a schema judging top-level keys one by one,
    the subtree of a key is validated once while it is the same object (the defaults' own, shared
    by every case that leaves that key alone)."""

    def __init__(self, validator: Any, schema: Mapping[str, Any]) -> None:
        self._validator = validator
        properties = schema.get("properties")
        self._properties = (
            properties if isinstance(properties, dict) and set(schema) <= _KEY_BY_KEY else None
        )
        if self._properties is not None:
            root = {**schema, "properties": dict.fromkeys(self._properties, True)}
            self._root = validator.evolve(
                schema=root
            )  # type, required, additionalProperties: the key set
        self._by_subtree: dict[tuple[str, int], tuple[Any, list[Any]]] = {}

    def errors(self, values: Any) -> list[Any]:
        if self._properties is None or not isinstance(values, dict):
            return list(self._validator.iter_errors(values))
        found = list(self._root.iter_errors(values))
        for key, subschema in self._properties.items():
            if key in values:
                found.extend(self._subtree_errors(key, subschema, values[key]))
        return found

    def _subtree_errors(self, key: str, subschema: Any, value: Any) -> list[Any]:
        known = self._by_subtree.get((key, id(value)))
        if known is None or known[0] is not value:
            known = (
                value,
                list(
                    self._validator.descend(
                        value, subschema, path=key, schema_path=("properties", key)
                    )
                ),
            )
            self._by_subtree[(key, id(value))] = known  # the value is kept: its id stays its own
        return known[1]


def _charts(ctx: RuleContext) -> list[str]:
    return sorted(
        {c.path for c in ctx.review.charts if f"{c.path}/values.schema.json" in ctx.sources.head}
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for chart in _charts(ctx):
        head, base = violations(ctx.sources.head, chart), violations(ctx.sources.base, chart)
        for key in sorted(head.keys() | base.keys()):
            now, before = head.get(key), base.get(key)
            if now is not None:
                yield _concern(
                    ctx, chart, now, Delta.PRE_EXISTING if before is not None else Delta.INTRODUCED
                )
            elif before is not None:
                yield _concern(ctx, chart, before, Delta.RESOLVED)


def _concern(ctx: RuleContext, chart: str, violation: Violation, delta: Delta) -> Concern:
    case = f' (test "{violation.case}")' if violation.case else ""
    token = violation.where.rsplit(".", 1)[-1]
    location = (
        ctx.index.locate_in_change([violation.source], (token,))
        if violation.source in ctx.index.files
        else Location(violation.source)
    )
    prefix = "no longer: " if delta is Delta.RESOLVED else ""
    return Concern(
        subject=Subject(
            SubjectKind.FILE,
            violation.source,
            violation.source,
            f"{violation.case}#{violation.where}#{violation.keyword}",
        ),
        message=f"{prefix}{violation.source}{case} violates {chart}/values.schema.json at {violation.where}: {violation.message}",
        delta=delta,
        location=location,
        path=(
            PathStep("file", violation.source, "provides values"),
            PathStep("file", f"{chart}/values.schema.json", "rejects them"),
        ),
        facts=(
            Fact("where", violation.where),
            Fact("keyword", violation.keyword),
            Fact("case", violation.case),
        ),
        scope_paths=(chart, violation.source),
    )


RULE = Rule(
    id="values-schema-violation",
    title="Values violate values.schema.json",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="For each chart with a values.schema.json, validates (JSON Schema, draft 7 unless the schema says "
        "otherwise) its values.yaml, each ci/*.yaml merged over it (chart-testing), and each helm-unittest "
        "test's values files and `set:` merged over it, at base and at head, merged as Helm merges them (a "
        "null deletes the key first); tests expecting a render failure (`failedTemplate`) are left out. New errors are introduced, errors present at both "
        "refs pre-existing. Patterns match with RE2, as Helm's do; a schema whose references expand past "
        "100,000 subschemas is not walked (the chart is not reviewed for it). Messages never show values "
        "of keys named like credentials.",
        why="Helm validates the merged values against the schema before rendering, so a default that the "
        "schema rejects breaks every install that does not override it, and a test whose `set:` is invalid "
        "tests a configuration no user can deploy.",
        example="    # values.schema.json: replicaCount {type: integer, minimum: 1}\n    replicaCount: 0",
        fix="Fix the value, or the schema if the value is the intended contract, in the same change.",
    ),
)
