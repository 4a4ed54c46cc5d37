"""Turning rendered templates into `RenderedObject`s: document splitting, parsing and identity keys.

Documents are split the way Helm splits a chart v2 template's output before installing it
(the regex of helm/pkg/release/v1/util/manifest.go, which also cuts `---apiVersion: v1`), and
parsed with `aftershock.gocompat.yamlio` (go-yaml v2 semantics). NOTES.txt and partials (`_*`) are not
manifests; a document that is empty, comment-only, not a mapping or without `kind` is skipped;
a `List` (or any `*List` kind with an `items` list, as the Kubernetes decoder treats it) is
expanded into its items. A document that is not valid YAML is an error naming the template.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.model.errors import MalformedInputError
from aftershock.model.objects import ObjectKey, RenderedObject

# Helm's `(?:^|\s*\n)---\s*` with Go's ASCII `\s`.
_SEPARATOR = re.compile(r"(?:^|[\t\n\f\r ]*\n)---[\t\n\f\r ]*")  # as `separator_spans` finds it
_WHITESPACE = frozenset("\t\n\f\r ")

CLUSTER_SCOPED_KINDS = frozenset(
    {
        # core and built-in API groups
        "Namespace",
        "Node",
        "PersistentVolume",
        "ComponentStatus",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "APIService",
        "StorageClass",
        "CSIDriver",
        "CSINode",
        "VolumeAttachment",
        "IngressClass",
        "PriorityClass",
        "RuntimeClass",
        "CertificateSigningRequest",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "FlowSchema",
        "PriorityLevelConfiguration",
        "TokenReview",
        "SelfSubjectAccessReview",
        "SelfSubjectRulesReview",
        "SubjectAccessReview",
        "SelfSubjectReview",
        "PodSecurityPolicy",
        "ClusterTrustBundle",
        "DeviceClass",
        "IPAddress",
        "ServiceCIDR",
        "StorageVersionMigration",
        "VolumeAttributesClass",
        # widely used custom resources
        "ClusterIssuer",
        "ClusterSecretStore",
        "ClusterExternalSecret",
        "ClusterPolicy",
        "ClusterCleanupPolicy",
        "GatewayClass",
        "ConstraintTemplate",
        "ClusterServiceVersion",
    }
)


def separator_spans(text: str) -> Iterator[tuple[int, int]]:
    """The spans `_SEPARATOR.finditer(text)` matches, found from each `\\n---` (a literal search:
    the regex tries its whitespace run at every position of the text, a tenth of the parse)."""
    end = 0
    if text.startswith("---"):
        end = _past_whitespace(text, 3)
        yield 0, end
    while (dash := text.find("\n---", end)) >= 0:
        start = dash  # the match starts where the whitespace before this newline does
        while start > end and text[start - 1] in _WHITESPACE:
            start -= 1
        end = _past_whitespace(text, dash + 4)
        yield start, end


def _past_whitespace(text: str, position: int) -> int:
    while position < len(text) and text[position] in _WHITESPACE:
        position += 1
    return position


def _documents(text: str) -> Iterator[tuple[int, str]]:
    """Each non-blank document of a template's output with its first line number (0-based)."""
    position = 0
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    line, counted = 0, 0  # the newlines of text[:counted]
    for start, end in [*separator_spans(stripped), (len(stripped), None)]:
        chunk = stripped[position:start]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            line += text.count("\n", counted, offset + position + lead)
            counted = offset + position + lead
            yield line, chunk.lstrip()
        if end is not None:
            position = end


def _api_group(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def _declared_scopes(documents: list[tuple[str, int, Any]]) -> dict[tuple[str, str], bool]:
    """(group, kind) -> cluster-scoped, for the CustomResourceDefinitions rendered alongside."""
    scopes: dict[tuple[str, str], bool] = {}
    for _template, _index, body in documents:
        if not isinstance(body, dict) or body.get("kind") != "CustomResourceDefinition":
            continue
        spec = body.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("names"), dict):
            kind = spec["names"].get("kind")
            if isinstance(kind, str) and isinstance(spec.get("group"), str):
                scopes[(spec["group"], kind)] = spec.get("scope") == "Cluster"
    return scopes


def _flatten(body: Any) -> Iterator[dict[str, Any]]:
    """The object itself, or the items of a list object (recursively)."""
    kind = body.get("kind") if isinstance(body, dict) else None
    if not isinstance(kind, str) or not kind:
        return
    items = body.get("items")
    if kind.endswith("List") and isinstance(items, list):
        for item in items:
            yield from _flatten(item)
    else:
        yield body


def _key(body: dict[str, Any], namespace: str, scopes: Mapping[tuple[str, str], bool]) -> ObjectKey:
    api_version = body.get("apiVersion")
    group = _api_group(api_version) if isinstance(api_version, str) else ""
    kind = body["kind"]
    raw_metadata = body.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    name = metadata.get("name")
    declared = metadata.get("namespace")
    cluster_scoped = scopes.get((group, kind), kind in CLUSTER_SCOPED_KINDS)
    if cluster_scoped:
        object_namespace = ""
    elif isinstance(declared, str) and declared:
        object_namespace = declared
    else:
        object_namespace = namespace
    return ObjectKey(group, kind, object_namespace, "" if name is None else str(name))


def _is_manifest(template: str) -> bool:
    base = posixpath.basename(template)
    return not (template.endswith("NOTES.txt") or base.startswith("_"))


def _parse_template(template: str, text: str) -> list[tuple[str, int, Any]]:
    parsed = []
    for index, (line, document) in enumerate(_documents(text)):
        try:
            body = yamlio.load_one(document, source=template, line_offset=line)
        except MalformedInputError as exc:
            raise MalformedInputError(
                f"rendered template is not valid YAML: {exc.what.removeprefix('invalid YAML: ')}",
                where=exc.where,
                hint="fix the template so it renders valid YAML",
            ) from None
        parsed.append((template, index, body))
    return parsed


def parse_documents(manifests: Mapping[str, str]) -> tuple[tuple[str, int, Any], ...]:
    """(template, document index, parsed body) for every document of the manifest templates, in
    template order. Raises MalformedInputError naming the template when a document is not valid YAML."""
    documents: list[tuple[str, int, Any]] = []
    for template in sorted(manifests):
        if _is_manifest(template):
            documents.extend(_parse_template(template, manifests[template]))
    return tuple(documents)


def parse_manifests(
    manifests: Mapping[str, str], *, chart: str, namespace: str
) -> tuple[RenderedObject, ...]:
    """The Kubernetes objects in rendered templates (`RenderOutcome.manifests`), in template order.

    `chart` is the repository path of the chart rendered; `namespace` the release namespace,
    given to namespaced objects that name none. Cluster-scoped kinds (built-in, well-known, or
    declared cluster-scoped by a CustomResourceDefinition in the same output) get namespace "".
    Raises MalformedInputError naming the template when a document is not valid YAML.
    """
    return objects_from_documents(parse_documents(manifests), chart=chart, namespace=namespace)


def objects_from_documents(
    documents: Sequence[tuple[str, int, Any]], *, chart: str, namespace: str
) -> tuple[RenderedObject, ...]:
    """RenderedObjects from parsed documents (see parse_documents): keys, scopes and List items."""
    scopes = _declared_scopes(list(documents))
    objects = []
    for template, index, body in documents:
        for item in _flatten(body):
            api_version = item.get("apiVersion")
            objects.append(
                RenderedObject(
                    key=_key(item, namespace, scopes),
                    api_version=api_version if isinstance(api_version, str) else "",
                    body=item,
                    chart=chart,
                    template=template,
                    document_index=index,
                )
            )
    return tuple(objects)
