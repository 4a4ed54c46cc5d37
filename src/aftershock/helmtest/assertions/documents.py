"""Whole documents: `hasDocuments`, `containsDocument`, `isKind`, `isAPIVersion`, `lengthEqual`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.gocompat.jsonpath import PathError
from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    Verdict,
    determine_success,
    error_info,
    fail_format,
    over_selected,
    path_values,
    split_info,
    values_or_report,
    yaml_text,
)

HAS_DOCUMENTS_PARAMS = {"Count": "int", "FilterAware": "bool"}
CONTAINS_DOCUMENT_PARAMS = {
    "Kind": "str",
    "APIVersion": "str",
    "Name": "str",
    "Namespace": "str",
    "Any": "bool",
}
OF_PARAMS = {"Of": "str"}
LENGTH_PARAMS = {"Paths": "list[str]", "Path": "str", "Count": "int?"}


def validate_has_documents(params: Mapping[str, Any], ctx: Context) -> Verdict:
    count = len(ctx.selected) if params["FilterAware"] else len(ctx.docs)
    passed = (count == params["Count"]) != ctx.negative
    check = Collector()
    check.check(None, None, count, passed)
    if passed:
        return check.verdict(True)
    expected = str(params["Count"])
    if ctx.negative:
        lines = split_info(
            fail_format(True, False, False, False, " documents count to be"), -1, -1, expected
        )
    else:
        lines = split_info(
            fail_format(False, False, True, False, " documents count to be"),
            -1,
            -1,
            expected,
            str(count),
        )
    check.add(lines)
    return check.verdict(False)


def _of_validator(field: str, message: str) -> Any:
    """isKind / isAPIVersion: the document's top-level `field` equals `Of`."""

    def fail(of: str, actual: Any, manifest_index: int, negative: bool) -> list[str]:
        if negative:
            return split_info(
                fail_format(True, False, False, False, message), manifest_index, -1, of
            )
        return split_info(
            fail_format(False, False, True, False, message),
            manifest_index,
            -1,
            of,
            yaml_text(actual),
        )

    def validate(params: Mapping[str, Any], ctx: Context) -> Verdict:
        out = Collector()

        def judge(index: int, doc: Doc) -> bool:
            actual = doc.body.get(field)
            passed = (isinstance(actual, str) and actual == params["Of"]) != ctx.negative
            out.check(doc, field, actual, passed)
            if not passed:
                out.add(fail(params["Of"], actual, index, ctx.negative))
            return passed

        return over_selected(
            ctx, out, judge, lambda: fail(params["Of"], "no manifest found", -1, ctx.negative)
        )

    return validate


validate_is_kind = _of_validator("kind", " to be kind")
validate_is_api_version = _of_validator("apiVersion", " to be apiVersion")


def _document_matches(params: Mapping[str, Any], doc: Doc) -> bool:
    for field, key in (("kind", "Kind"), ("apiVersion", "APIVersion")):
        value = doc.body.get(field)
        if isinstance(value, str) and value != params[key]:
            return False
    for path, key in (("metadata.name", "Name"), ("metadata.namespace", "Namespace")):
        if params[key]:
            try:
                found = path_values(doc, path)
            except PathError:
                return False
            if not found or found[0] != params[key] or not isinstance(found[0], str):
                return False
    return True


def _contains_document_fail(
    params: Mapping[str, Any], manifest_index: int, negative: bool
) -> list[str]:
    parts = [f"Kind = {params['Kind']}, apiVersion = {params['APIVersion']}"]
    if params["Name"]:
        parts.append(f"Name = {params['Name']}")
    if params["Namespace"]:
        parts.append(f"Namespace = {params['Namespace']}")
    return split_info(
        fail_format(negative, False, False, False, " to contain document"),
        manifest_index,
        -1,
        ", ".join(parts),
    )


def validate_contains_document(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    success = False
    for index, doc in enumerate(ctx.selected):
        matches = _document_matches(params, doc)
        out.check(
            doc,
            None,
            {"kind": doc.body.get("kind"), "apiVersion": doc.body.get("apiVersion")},
            matches,
        )
        if matches == ctx.negative:
            manifest_success = False
            out.add(_contains_document_fail(params, index, ctx.negative))
        else:
            manifest_success = True
            if params["Any"] != ctx.negative:
                out.lines.clear()
                return out.verdict(True)
        success = determine_success(index, success, manifest_success)
    if not ctx.selected and not ctx.negative:
        out.add(_contains_document_fail(params, 0, ctx.negative))
    elif not ctx.selected:
        success = True
    return out.verdict(success)


def _length_fail(
    path: str, count: str, actual: str, manifest_index: int, negative: bool
) -> list[str]:
    return split_info(
        fail_format(negative, True, True, False, " to match count"),
        manifest_index,
        -1,
        path,
        count,
        actual,
    )


def _count_single(
    params: Mapping[str, Any],
    doc: Doc,
    path: str,
    manifest_index: int,
    ctx: Context,
    out: Collector,
) -> tuple[bool, int]:
    actuals = values_or_report(doc, path, manifest_index, out)
    if actuals is None:
        return False, 0
    success = not actuals and ctx.negative
    length = 0
    expected = params["Count"]
    for actual_index, actual in enumerate(actuals):  # not judge_each: a non-list is skipped
        if not isinstance(actual, list) and expected is None:
            out.add(error_info(manifest_index, actual_index, f"{path} is not array"))
            continue
        length = len(actual) if isinstance(actual, list) else 0
        passed = expected is None or (length == expected) != ctx.negative
        out.check(doc, path, length, passed)
        if not passed:
            out.add(_length_fail(path, str(expected), str(length), manifest_index, ctx.negative))
        success = determine_success(actual_index, success, passed)
    return success, length


def _count_paths(
    params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context, out: Collector
) -> bool:
    counts: dict[str, int] = {}
    all_passed = True
    for path in params["Paths"]:
        passed, counts[path] = _count_single(params, doc, path, manifest_index, ctx, out)
        all_passed = all_passed and passed
    if not all_passed:
        return False
    first: int | None = None
    for path in sorted(counts):
        if first is None:
            first = counts[path]
        elif (first == counts[path]) == ctx.negative:
            out.add(_length_fail(path, "-1", str(counts[path]), manifest_index, ctx.negative))
            return False
    return first is not None  # no paths at all fails, as upstream


def validate_length(params: Mapping[str, Any], ctx: Context) -> Verdict:
    count = params["Count"]
    if params["Path"] and (count is None or count < 0):
        message = "'count' field must be set if 'path' is used"
        return Verdict(False, tuple(error_info(-1, -1, message)))
    if params["Path"] and params["Paths"]:
        return Verdict(False, tuple(error_info(-1, -1, "'paths' couldn't be used with 'path'")))
    out = Collector()

    def judge(manifest_index: int, doc: Doc) -> bool:
        if params["Path"]:
            passed, _ = _count_single(params, doc, params["Path"], manifest_index, ctx, out)
            return passed
        return _count_paths(params, doc, manifest_index, ctx, out)

    return over_selected(
        ctx, out, judge, lambda: _length_fail("", "", "no manifest found", -1, ctx.negative)
    )
