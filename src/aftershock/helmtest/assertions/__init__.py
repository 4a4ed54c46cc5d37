"""helm-unittest's assertion types: an explicit registry from name to validator and parameters.

`antonym` marks the negated spellings (`notEqual` is `equal` with `not` flipped);
`needs_render_success` is false only for `failedTemplate`, whose presence lets a test go on after
Helm fails so the failure itself can be asserted.
"""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.helmtest.assertions.common import Validator
from aftershock.helmtest.assertions.compare import (
    COMPARE_PARAMS,
    validate_greater_or_equal,
    validate_less_or_equal,
)
from aftershock.helmtest.assertions.contains import (
    CONTAINS_PARAMS,
    SUBSET_PARAMS,
    validate_contains,
    validate_subset,
)
from aftershock.helmtest.assertions.documents import (
    CONTAINS_DOCUMENT_PARAMS,
    HAS_DOCUMENTS_PARAMS,
    LENGTH_PARAMS,
    OF_PARAMS,
    validate_contains_document,
    validate_has_documents,
    validate_is_api_version,
    validate_is_kind,
    validate_length,
)
from aftershock.helmtest.assertions.equal import (
    EQUAL_PARAMS,
    EQUAL_RAW_PARAMS,
    validate_equal,
    validate_equal_raw,
)
from aftershock.helmtest.assertions.failed import FAILED_PARAMS, validate_failed_template
from aftershock.helmtest.assertions.presence import (
    PATH_PARAMS,
    TYPE_PARAMS,
    validate_exists,
    validate_null_or_empty,
    validate_type,
)
from aftershock.helmtest.assertions.regex import (
    REGEX_PARAMS,
    REGEX_RAW_PARAMS,
    validate_regex,
    validate_regex_raw,
)
from aftershock.helmtest.assertions.snapshot import (
    SNAPSHOT_PARAMS,
    SNAPSHOT_RAW_PARAMS,
    validate_snapshot,
    validate_snapshot_raw,
)


@dataclass(frozen=True)
class AssertionKind:
    validate: Validator
    params: dict[str, str]
    antonym: bool = False
    needs_render_success: bool = True


ASSERTION_KINDS: dict[str, AssertionKind] = {
    "matchSnapshot": AssertionKind(validate_snapshot, SNAPSHOT_PARAMS),
    "matchSnapshotRaw": AssertionKind(validate_snapshot_raw, SNAPSHOT_RAW_PARAMS),
    "equal": AssertionKind(validate_equal, EQUAL_PARAMS),
    "notEqual": AssertionKind(validate_equal, EQUAL_PARAMS, antonym=True),
    "greaterOrEqual": AssertionKind(validate_greater_or_equal, COMPARE_PARAMS),
    "notGreaterOrEqual": AssertionKind(validate_greater_or_equal, COMPARE_PARAMS, antonym=True),
    "lessOrEqual": AssertionKind(validate_less_or_equal, COMPARE_PARAMS),
    "notLessOrEqual": AssertionKind(validate_less_or_equal, COMPARE_PARAMS, antonym=True),
    "equalRaw": AssertionKind(validate_equal_raw, EQUAL_RAW_PARAMS),
    "notEqualRaw": AssertionKind(validate_equal_raw, EQUAL_RAW_PARAMS, antonym=True),
    "exists": AssertionKind(validate_exists, PATH_PARAMS),
    "notExists": AssertionKind(validate_exists, PATH_PARAMS, antonym=True),
    "matchRegex": AssertionKind(validate_regex, REGEX_PARAMS),
    "notMatchRegex": AssertionKind(validate_regex, REGEX_PARAMS, antonym=True),
    "matchRegexRaw": AssertionKind(validate_regex_raw, REGEX_RAW_PARAMS),
    "notMatchRegexRaw": AssertionKind(validate_regex_raw, REGEX_RAW_PARAMS, antonym=True),
    "contains": AssertionKind(validate_contains, CONTAINS_PARAMS),
    "notContains": AssertionKind(validate_contains, CONTAINS_PARAMS, antonym=True),
    "isKind": AssertionKind(validate_is_kind, OF_PARAMS),
    "isAPIVersion": AssertionKind(validate_is_api_version, OF_PARAMS),
    "hasDocuments": AssertionKind(validate_has_documents, HAS_DOCUMENTS_PARAMS),
    "isSubset": AssertionKind(validate_subset, SUBSET_PARAMS),
    "isNotSubset": AssertionKind(validate_subset, SUBSET_PARAMS, antonym=True),
    "isNullOrEmpty": AssertionKind(validate_null_or_empty, PATH_PARAMS),
    "isNotNullOrEmpty": AssertionKind(validate_null_or_empty, PATH_PARAMS, antonym=True),
    "failedTemplate": AssertionKind(
        validate_failed_template, FAILED_PARAMS, needs_render_success=False
    ),
    "notFailedTemplate": AssertionKind(validate_failed_template, FAILED_PARAMS, antonym=True),
    "containsDocument": AssertionKind(validate_contains_document, CONTAINS_DOCUMENT_PARAMS),
    "lengthEqual": AssertionKind(validate_length, LENGTH_PARAMS),
    "notLengthEqual": AssertionKind(validate_length, LENGTH_PARAMS, antonym=True),
    "isNull": AssertionKind(validate_exists, PATH_PARAMS, antonym=True),
    "isNotNull": AssertionKind(validate_exists, PATH_PARAMS),
    "isEmpty": AssertionKind(validate_null_or_empty, PATH_PARAMS),
    "isNotEmpty": AssertionKind(validate_null_or_empty, PATH_PARAMS, antonym=True),
    "isType": AssertionKind(validate_type, TYPE_PARAMS),
    "isNotType": AssertionKind(validate_type, TYPE_PARAMS, antonym=True),
}
