"""Which rendered object of the review an assertion looked at, and where in it.

An assertion's checked value names a template as Helm names it in the test run
(`orders/templates/deployment.yaml`, `orders/charts/lib/templates/x.yaml`) and a document index
counted as helm-unittest counts: the non-empty mapping documents of that template's output. The
review's objects carry the repository path of their template and the index of their document among
the template's non-blank documents (comment-only ones included). The pipeline supplies the template
name -> repository path map (it knows the workspace); the document index is matched by rank: the
n-th document holding an object in the review is helm-unittest's n-th document. A comment-only or
empty document counts in neither; a mapping without `kind` would shift the rank (such a document is
no Kubernetes object, and rare). A document Helm rendered as a `List` holds several objects: it is
left unresolved, since a path on the List is not a path on one item.

Caveat: the test renders with its own values (`set`, `values`, release); the review renders the
default values. The location is evaluated on the review's render, so an assertion about a document
the default values do not render is unresolved, and a test whose values reorder a template's
documents is matched by position.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.model.objects import RenderedObject
from aftershock.model.test_results import AssertionResult, ChartResult, TestResult

TestKey = tuple[str, str]  # (suite file, test name)


@dataclass(frozen=True)
class CheckedDocument:
    """One assertion of one test on one rendered document, with the review object it maps to."""

    key: TestKey
    suite: str
    assertion: AssertionResult
    template: str  # repository path ("" when the template is unknown)
    document_index: int
    path: str | None
    obj: RenderedObject | None
    actuals: tuple[Any, ...] = ()  # the values the assertion compared on this document, in order


class DocumentMap:
    """The review's objects of one side by (template repository path, helm-unittest document index)."""

    def __init__(self, objects: Sequence[RenderedObject]) -> None:
        by_document: dict[tuple[str, int], list[RenderedObject]] = {}
        for obj in objects:
            by_document.setdefault((obj.template, obj.document_index), []).append(obj)
        ranks: dict[str, list[int]] = {}
        for template, index in sorted(by_document):
            ranks.setdefault(template, []).append(index)
        self._by_document = by_document
        self._ranks = ranks

    def index_of(self, obj: RenderedObject) -> int | None:
        """The helm-unittest document index `object_at` finds `obj` at, if it finds it."""
        indexes = self._ranks.get(obj.template, [])
        if obj.document_index not in indexes:
            return None
        rank = indexes.index(obj.document_index)
        return rank if self.object_at(obj.template, rank) == obj else None

    def object_at(self, template: str, unittest_index: int) -> RenderedObject | None:
        indexes = self._ranks.get(template, [])
        if not 0 <= unittest_index < len(indexes):
            return None
        found = self._by_document[(template, indexes[unittest_index])]
        return found[0] if len(found) == 1 else None


def checked_documents(
    result: ChartResult | None,
    keyed: Mapping[TestKey, tuple[str, TestResult]],
    templates: Mapping[str, str],
    documents: DocumentMap,
) -> Iterator[CheckedDocument]:
    """Every (test, assertion, document, path) the run checked, mapped onto the review's objects.

    `keyed` is `outcomes.keyed_results(result)`: its keys name the tests. A checked value without a
    document (hasDocuments, failedTemplate) is no document and is left out.
    """
    if result is None:
        return
    for key, (suite, test) in keyed.items():
        for assertion in test.assertions:
            actuals: dict[tuple[str, int, str | None], list[Any]] = {}
            for checked in assertion.checked:
                if checked.document_index is not None:
                    actuals.setdefault(
                        (checked.template, checked.document_index, checked.path), []
                    ).append(checked.actual)
            for (template, index, path), values in actuals.items():
                repo_path = templates.get(template, "")
                obj = documents.object_at(repo_path, index) if repo_path else None
                yield CheckedDocument(
                    key, suite, assertion, repo_path, index, path, obj, tuple(values)
                )
