"""Secrets by construction: every text that flowed into or out of a Secret, and the one scrub that hides it.

The rule: a text is secret when it came from Secret data (or a credential-named key), AND the review
does not observe it outside every Secret, AND it is not an ordinary token.

- Came from a Secret: `secret_taint(review)` collects, from what the review observed (not from key
  names), every value under `data` and `stringData` of each Secret rendered at either ref (a `data`
  value both as written and base64-decoded, whether or not the other ref rendered), every annotation
  value of a Secret (so `kubectl.kubernetes.io/last-applied-configuration` is covered, with the data
  inside it); the values keys that provenance links to a field of a Secret, that a release took from
  a Secret through `valuesFrom` (`ValuesKeyChange.secret`), or whose value at either ref is such a
  text, and their values at both refs; what helm-unittest tests of a template rendering a Secret
  expect or set, and the Secrets their snapshots hold (`test_expectations`, kept in
  `Review.secret_texts` by the pipeline). A multi-line value also contributes its one-token lines
  and what its `key: value` or `KEY=value` lines assign (not a line of prose or code: `exit 1` would
  hide those words everywhere), and a value that parses as a YAML mapping its scalar leaves, since a
  Secret holding a values document is read key by key. Outside Secrets, the values of
  credential-named keys (`DB_PASSWORD: x`, an env var `API_KEY`) count too.
- Observed outside every Secret (`observed_texts`): object API groups, kinds, names and namespaces, map keys, chart
  and file paths and their segments, values key paths, and the values of non-Secret objects
  (credential-named ones aside) of renders whose values no Secret supplied. The review prints those
  in clear anyway; hiding them elsewhere only makes it unreadable.
- Ordinary (`credential_text.is_ordinary`): a plain word, a DNS name or identifier made of words, a
  path, a number or boolean, a `key: value` line of such a value.

`SecretTaint.scrub` then replaces each secret text, and its base64 form, wherever it occurs in any
string of JSON-like data with `<redacted: N bytes>`. The canonical review document, the SARIF
document, `aftershock radius` and what the state database keeps all pass through it, so no format
can print a value a Secret holds, whatever its key is called. Texts shorter than MIN_SCRUBBED
characters are not searched for (they would match everywhere). What the rule lets through is still
hidden where the review knows it goes: the structural redaction of a Secret's fields in the diff
(`diff.redact`), of credential-named fields, and of the values keys that feed a Secret
(`feeds_secret`).
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import yaml

from aftershock.findings.model import Fact, Finding, Subject
from aftershock.gocompat.yamlnodes import safe_load, safe_load_all
from aftershock.model.objects import RenderedObject
from aftershock.safety.credential_text import (
    credential_values,
    held_line_texts,
    is_ordinary,
    is_sensitive_name,
)
from aftershock.safety.scrubber import Scrubber, scrub_strings

if TYPE_CHECKING:
    from aftershock.model.review import Review

MIN_SCRUBBED = 6
SECRET_FIELDS = ("data", "stringData")
_NOT_EXPECTATIONS = ("path", "documentIndex", "documentSelector", "template")


@dataclass(frozen=True)
class SecretTaint:
    """The plaintexts to hide, and the values keys (`(file, path)`) whose values are a Secret's."""

    texts: frozenset[str] = frozenset()
    values_keys: frozenset[tuple[str, str]] = frozenset()

    def feeds_secret(self, file: str, path: str) -> bool:
        return (file, path) in self.values_keys

    @cached_property
    def forms(self) -> frozenset[str]:
        """Every text searched for: each tainted text and its base64, long enough and not vocabulary."""
        return frozenset(
            form for text in self.texts for form in (text, _b64(text)) if len(form) >= MIN_SCRUBBED
        )

    @cached_property
    def scrubber(self) -> Scrubber | None:
        return Scrubber.of(self.forms)

    def scrub_text(self, text: str) -> str:
        return self.scrubber.scrub(text) if self.scrubber else text

    def scrub(self, data: Any) -> Any:
        """`data` (JSON-like) with every tainted text hidden in its strings (map keys are structure,
        kept); the parts that hold none are returned as they are, not copied."""
        return scrub_strings(self.scrubber, data) if self.scrubber else data

    def scrub_finding(self, finding: Finding) -> Finding:
        if self.scrubber is None:
            return finding
        s = finding.subject
        subject = Subject(
            s.kind, self.scrub_text(s.id), self.scrub_text(s.display), self.scrub_text(s.facet)
        )
        facts = tuple(Fact(f.name, self.scrub(f.value)) for f in finding.facts)
        return replace(
            finding,
            title=self.scrub_text(finding.title),
            message=self.scrub_text(finding.message),
            subject=subject,
            facts=facts,
        )


def is_secret_object(obj: RenderedObject) -> bool:
    return obj.key.group == "" and obj.key.kind == "Secret"


# a review is frozen, and its judge, document, SARIF and state each ask for its taint: found once
_TAINTS: dict[int, SecretTaint] = {}


def secret_taint(review: Review) -> SecretTaint:
    """What `review` saw flow into a Secret (see the module docstring), found once per review."""
    key = id(review)
    taint = _TAINTS.get(key)
    if taint is None:
        taint = _TAINTS[key] = _find_taint(review)
        weakref.finalize(review, _TAINTS.pop, key, None)  # the id may be reused once it is freed
    return taint


def _find_taint(review: Review) -> SecretTaint:
    candidates: set[str] = set(review.secret_texts)
    read: set[int] = set()  # bodies shared by objects (a parsed crds/ file) are read once
    for chart_review in review.chart_reviews:
        candidates.update(chart_review.secret_texts)
        candidates.update(
            rendered_secret_texts((*chart_review.base_objects, *chart_review.head_objects), read)
        )
    observed = observed_texts(review)
    # many Secrets repeat the same lines (one values document per namespace): judge each text once
    texts = {t for t in set(_expanded(candidates)) if _is_secret(t, observed)}
    keys = _provenance_keys(review)
    for change in review.values_changes:
        leaves = set(_expanded({*_leaves(change.before), *_leaves(change.after)}))
        if change.secret or (change.file, change.path) in keys or not leaves.isdisjoint(texts):
            keys.add((change.file, change.path))
            texts.update(t for t in leaves - texts if _is_secret(t, observed))
    return SecretTaint(frozenset(texts), frozenset(keys))


def rendered_secret_texts(
    objects: Iterable[RenderedObject], read: set[int] | None = None
) -> frozenset[str]:
    """What `objects` hold that may be secret: a Secret's values, and credential-named values elsewhere;
    a body whose id is in `read` is skipped (its texts were found), and each read is added there."""
    found: set[str] = set()
    read = set() if read is None else read
    for obj in (o for o in objects if id(o.body) not in read):
        read.add(id(obj.body))
        found.update(
            secret_object_texts(obj.body) if is_secret_object(obj) else credential_values(obj.body)
        )
    return frozenset(found)


def _is_secret(text: str, observed: frozenset[str]) -> bool:
    return text not in observed and not is_ordinary(text)


def observed_texts(review: Review) -> frozenset[str]:
    """The texts the review shows outside every Secret (see the module docstring)."""
    seen: set[str] = {review.options.release_name, review.options.namespace}
    paths = [c.path for c in review.charts] + [f.path for f in review.files]
    paths += [v.file for v in review.values_changes]
    for path in paths:
        seen.add(path)
        seen.update(path.split("/"))
    for change in review.values_changes:
        seen.add(change.path)
        seen.update(change.path.split("."))
    shown: set[int] = set()  # bodies shared by objects (a parsed crds/ file) are walked once
    for r in review.chart_reviews:
        seen.update((r.chart, r.name, r.release or ""))
        private = r.base_inputs.private or r.head_inputs.private
        for obj in (*r.base_objects, *r.head_objects):
            seen.update((obj.key.group, obj.key.kind, obj.key.name, obj.key.namespace or ""))
            seen.add(obj.template)
            if not (private or is_secret_object(obj) or id(obj.body) in shown):
                shown.add(id(obj.body))
                _add_shown_texts(_outputs(obj), seen)
    return frozenset(seen)


# A release object's values are the chart's inputs, not texts shown apart from a Secret: one may be
# the value the chart puts in its Secret. (group, kind) -> the paths of its values.
_RELEASE_VALUES = {
    ("helm.toolkit.fluxcd.io", "HelmRelease"): (("spec", "values"),),
    ("argoproj.io", "Application"): (("spec", "source", "helm"), ("spec", "sources")),
    ("argoproj.io", "ApplicationSet"): (("spec", "template", "spec"),),
}


def _outputs(obj: RenderedObject) -> Any:
    """The object's body less the values a release object hands its chart."""
    paths = _RELEASE_VALUES.get((obj.key.group, obj.key.kind))
    if not paths or not isinstance(obj.body, dict):
        return obj.body
    body = copy.deepcopy(obj.body)
    for path in paths:
        node: Any = body
        for part in path[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(path[-1], None)
    return body


def _add_shown_texts(body: Any, seen: set[str]) -> None:
    """Add the keys and scalar values of a document to `seen`, but for the values of credential-named
    keys. A stack, not nested generators: each text would pass up through every level above it."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            named = node.get("name")
            hidden = "value" if isinstance(named, str) and is_sensitive_name(named) else None
            for key, item in node.items():
                seen.add(str(key))
                if key != hidden and not (isinstance(key, str) and is_sensitive_name(key)):
                    stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)
        elif node is not None and not isinstance(node, bool):
            seen.add(str(node))


def test_expectations(review: Review, sources: Iterable[Mapping[str, str]]) -> frozenset[str]:
    """The values that the helm-unittest suites (in `sources`, repository path -> text) of the reviewed
    charts expect or set in tests of a template that renders a Secret at either ref."""
    templates = {
        o.template
        for r in review.chart_reviews
        for o in (*r.base_objects, *r.head_objects)
        if is_secret_object(o)
    }
    charts = {r.chart for r in review.chart_reviews}
    found: set[str] = set()
    for files in sources:
        for path, text in files.items():
            chart, sep, _ = path.rpartition("/tests/")
            if sep and chart in charts and path.endswith(("_test.yaml", "_test.yml")):
                found.update(_suite_expectations(text, chart, templates))
            elif sep and chart in charts and path.endswith(".snap"):
                found.update(snapshot_secret_texts(text))
    return frozenset(found)


def snapshot_secret_texts(text: str) -> Iterator[str]:
    """What the Secrets of a helm-unittest snapshot file hold (test name -> index -> the manifest
    text as it rendered then, perhaps with values the chart no longer gives)."""
    try:
        snapshots = safe_load(text)
    except (yaml.YAMLError, RecursionError):
        return
    for renders in snapshots.values() if isinstance(snapshots, dict) else ():
        for manifest in renders.values() if isinstance(renders, dict) else ():
            if not isinstance(manifest, str) or "Secret" not in manifest:
                continue
            try:
                documents = list(safe_load_all(manifest))
            except (yaml.YAMLError, RecursionError):
                continue
            for document in documents:
                if isinstance(document, dict) and document.get("kind") == "Secret":
                    yield from secret_object_texts(document)


def _suite_expectations(text: str, chart: str, secret_templates: set[str]) -> Iterator[str]:
    try:
        suites = [d for d in safe_load_all(text) if isinstance(d, dict)]
    except (yaml.YAMLError, RecursionError):
        return
    for suite in suites:
        tests = [t for t in _entries(suite.get("tests")) if isinstance(t, dict)]
        for test in tests:
            named = [test["template"]] if test.get("template") else _entries(suite.get("templates"))
            for entry in (a for a in _entries(test.get("asserts")) if isinstance(a, dict)):
                targets = [entry["template"]] if entry.get("template") else named
                if any(_template_path(chart, t) in secret_templates for t in targets):
                    for (
                        params
                    ) in entry.values():  # {equal: {path, value}}: what it expects, not where
                        if isinstance(params, dict):
                            yield from _leaves(
                                {k: v for k, v in params.items() if k not in _NOT_EXPECTATIONS}
                            )
                    yield from _leaves([test.get("set"), suite.get("set")])


def _entries(value: Any) -> list[Any]:
    """A list field of a suite; anything else (helm-unittest refuses the suite) holds none."""
    return value if isinstance(value, list) else []


def _template_path(chart: str, name: Any) -> str:
    text = str(name)
    rel = text if text.startswith(("templates/", "charts/")) else f"templates/{text}"
    return f"{chart}/{rel}" if chart else rel


def secret_object_texts(body: Any) -> Iterator[str]:
    """The values of a Secret's data (as written and decoded), stringData and annotations."""
    if not isinstance(body, dict):
        return
    for name in SECRET_FIELDS:
        values = body.get(name)
        if isinstance(values, dict):
            for value in values.values():
                yield from _field_texts(name, value)
    metadata = body.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        for value in annotations.values():
            yield from _leaves(value)
            yield from _applied_texts(value)


def _field_texts(name: str, value: Any) -> Iterator[str]:
    yield from _leaves(value)
    if name == "data" and isinstance(value, str):
        decoded = _b64decode(value)
        if decoded is not None:
            yield decoded


def _applied_texts(value: Any) -> Iterator[str]:
    """The data inside a last-applied-configuration (JSON) annotation."""
    if not isinstance(value, str) or not value.lstrip().startswith("{"):
        return
    try:
        applied = json.loads(value)
    except ValueError:
        return
    yield from secret_object_texts(applied)


def _provenance_keys(review: Review) -> set[tuple[str, str]]:
    if review.provenance is None:
        return set()
    return {
        (link.file, link.key)
        for fp in review.provenance.fields
        if fp.key.group == "" and fp.key.kind == "Secret"
        for link in fp.values
    }


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def _expanded(texts: Iterable[str]) -> Iterator[str]:
    """Each text, its lines, and the leaves of a YAML mapping it holds."""
    for text in texts:
        yield text
        stripped = text.strip()
        if stripped != text:
            yield stripped
        if "\n" not in text:
            continue
        for line in text.splitlines():
            yield from held_line_texts(line.strip())
        try:
            document = safe_load(text)
        except yaml.YAMLError:
            continue
        if isinstance(document, (dict, list)):
            yield from _leaves(document)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _b64decode(text: str) -> str | None:
    try:
        return base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True).decode(
            "utf-8"
        )
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
