"""What marks a text as a credential, for every layer: the names that hold one, well-known secret
formats, the credential-named values of an object, and the ordinary tokens that are never one.

An ordinary token (`is_ordinary`) is a number or boolean (digits and separators: `8080`, `10.0.0.1`,
`1.5`), a plain word (letters only, shorter than 16: `cluster`, `clusterIP`, `INFO`), an identifier
or DNS name made of such words (`cert-manager`, `backup_v2`, `db.default.svc`, `ROLE_ADMIN`,
`rbac.authorization.k8s.io`), a path
or a URL without user info or query made of them (`/var/lib/mysql`, `https://keystone.example.com/v3`),
or a `key: value` / `key=value` / `key:` line of a key not named like a credential and an ordinary value.
Nothing in a well-known credential format is ordinary.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

# Names that say "this holds a credential" (env var names, ConfigMap keys, config-file keys).
SENSITIVE_NAME = re.compile(
    r"(pass(word|wd|phrase)?$|passwd|password|secret|token|api[-_]?key|apikey|private[-_]?key|access[-_]?key|"
    r"credential|client[-_]?secret|auth[-_]?key|signing[-_]?key|webhook[-_]?key|encryption[-_]?key|"
    # the *_KEY families (AZURE_STORAGE_KEY, AZURE_CLIENT_KEY, *_KEY_CONTENT) and bearer tokens
    r"(^|[-_.])key$|[-_]key[-_]content$|bearer|connection[-_]?string$|(^|[-_.])dsn$)",
    re.IGNORECASE,
)
# Names that contain a sensitive word but hold a reference, not the secret itself: snake_case, and
# camelCase (case-sensitive: `tokenSecretName`, `secretKeyRef`, `tokenMountPath`, not `tokenpath`).
REFERENCE_NAME = re.compile(
    r"(_file|_path|_ref|_name|_secret_name|_key_id|_arn|_url|_dir|_mount|_enabled|_length)$",
    re.IGNORECASE,
)
CAMEL_REFERENCE_NAME = re.compile(
    r"[a-z0-9](File|Path|Ref|Name|KeyId|KeyID|Arn|ARN|Url|URL|Dir|Mount|Enabled|Length)$"
)
# A JSON Schema (a CRD's openAPIV3Schema, values.schema.json) names fields under `properties`: a
# credential-named property is a schema whose prose is no credential; only the values it gives are.
SCHEMA_VALUES = ("default", "example", "examples", "const", "enum")

# (name, a text every match holds or "", pattern): the text is looked for first, a substring search
# far cheaper than the pattern over a long value
FORMATS = (
    ("private key", "PRIVATE KEY-----", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")),
    ("AWS access key id", "", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", "", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("GitLab token", "glpat-", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b")),
    ("Slack token", "xox", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("Google API key", "AIza", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Stripe key", "k_", re.compile(r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}\b")),
    (
        "JSON web token",
        "eyJ",
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    (
        "URL with a password",
        "://",
        # the scheme bounded: unbounded, every letter of a long word started a scan to its end
        re.compile(r"[a-z][a-z0-9+.-]{0,31}://[^/\s:@]+:[^/\s@]{3,}@", re.IGNORECASE),
    ),
)

_NUMBER = re.compile(r"[-+]?[0-9][0-9.:_,/-]*")  # numbers, versions, IPs, ports, dates
# a word (`cluster`, `INFO`, `Backup`, camelCase of up to four humps: `clusterIP`), then digits
# ... and the numeronyms and API versions of Kubernetes' own names (`k8s`, `i18n`, `v1beta1`)
_NAME_PART = re.compile(
    r"(?:[A-Z]+|[A-Z]?[a-z]+(?:[A-Z]+[a-z]*){0,3})[0-9]*|[0-9]+|[a-z][0-9]{1,2}[a-z]|v[0-9]+(?:alpha|beta)[0-9]*"
)
_URL = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<host>[^/?#@\s]+)(?P<path>/[^?#@\s]*)?")
# `key: value`, `key=value`, and `key:` opening a block (a values document's `resources:` line)
_PAIR = re.compile(r"(?P<key>[\w.\-]+)\s*(?::(?:\s+|$)|=)(?P<value>.*)")
_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none", "~"})


@functools.lru_cache(maxsize=1 << 16)  # a tree's keys are few names, asked millions of times
@functools.lru_cache(maxsize=1 << 14)  # pure, and asked of every key of every rendered object
def is_sensitive_name(name: str) -> bool:
    """A key or variable name that holds a credential (`DB_PASSWORD`, `apiKey`), not a reference to
    one (`PASSWORD_FILE`, `tokenSecretName`)."""
    return bool(SENSITIVE_NAME.search(name)) and not is_reference_name(name)


def is_reference_name(name: str) -> bool:
    """A name that says where a credential is, not what it is (`PASSWORD_FILE`, `tokenMountPath`)."""
    return bool(REFERENCE_NAME.search(name) or CAMEL_REFERENCE_NAME.search(name))


def known_format(value: str) -> str | None:
    """The name of the first well-known credential format found in `value`, if any."""
    for name, held, pattern in FORMATS:
        if held in value and pattern.search(value):
            return name
    return None


@functools.lru_cache(maxsize=1 << 16)  # pure, and asked of the same lines again and again
def is_ordinary(text: str) -> bool:
    """A text that is never a credential, whatever key held it (see the module docstring)."""
    stripped = text.strip().strip("\"'")
    if stripped.startswith("- "):
        stripped = stripped[2:].strip().strip("\"'")
    if not stripped:
        return True
    return not known_format(stripped) and (_is_token(stripped) or _is_pair(stripped))


def _is_token(text: str) -> bool:
    if text.lower() in _BOOLEANS or _NUMBER.fullmatch(text) or _is_name(text):
        return True
    url = _URL.fullmatch(text)
    if url is not None:
        host = url.group("host").rsplit(":", 1)
        port_ok = len(host) == 1 or host[1].isdigit()
        return port_ok and _is_name(host[0]) and _is_path(url.group("path") or "")
    return "/" in text and _is_path(text)


def _is_name(text: str) -> bool:
    """Words, words with a trailing number or numbers, joined by `-`, `_` or `.` (DNS names too)."""
    parts = [p for p in re.split(r"[-_.]", text) if p]
    return 0 < len(text) <= 253 and bool(parts) and all(_NAME_PART.fullmatch(p) for p in parts)


def _is_path(text: str) -> bool:
    return all(not part or _is_name(part) or part == ".." for part in text.split("/"))


def _is_pair(text: str) -> bool:
    pair = _PAIR.fullmatch(text)
    if pair is None or is_sensitive_name(pair.group("key")):
        return False
    value = pair.group("value").strip().strip("\"'")
    return not value or (not known_format(value) and _is_token(value))


# the password of a URL's user info (`postgres://app:PASSWORD@db/app`)
_USERINFO_PASSWORD = re.compile(
    r"[a-z][a-z0-9+.-]{0,31}://[^/\s:@]+:(?P<password>[^/\s@]{3,})@", re.I
)
# a `key: value` or `key=value` line or `;` segment of an embedded config text or connection string
_EMBEDDED_PAIR = re.compile(r"\s*(?P<key>[\w.\-]+)\s*(?::\s+|=)\s*(?P<value>[^\s;#][^;]*?)\s*;?\s*")


@functools.lru_cache(maxsize=1 << 14)  # both refs hold most texts (a CRD's) alike: read once
def embedded_credentials(text: str) -> tuple[str, ...]:
    """The credentials a text holds inside it, whatever key holds the text: the value of each
    `password: x` / `password = x` line of an embedded config file, of each `Password=x;` segment of
    a connection string, and the password of a URL's user info. A text of one line without `;` is
    a value of its own: a credential-named key's is judged by the key's name."""
    found: list[str] = []
    if "://" in text and "@" in text:
        found += [match.group("password") for match in _USERINFO_PASSWORD.finditer(text)]
    if ("\n" not in text and ";" not in text) or (":" not in text and "=" not in text):
        return tuple(found)
    for line in text.splitlines():
        for segment in line.split(";") if ";" in line else (line,):
            pair = _EMBEDDED_PAIR.fullmatch(segment)
            if pair is not None and is_sensitive_name(pair.group("key")):
                found.append(pair.group("value").strip("\"'"))
    return tuple(found)


def credential_values(body: Any) -> Iterator[str]:
    """The scalar values a document holds under credential-named keys: `DB_PASSWORD: x` at any depth,
    and the `value` of a `{name: API_KEY, value: x}` entry (an env var); in a JSON Schema's
    `properties`, the values a credential-named property's schema gives (`default`, `enum`, ...);
    and what a text holds inside it (`embedded_credentials`)."""
    if isinstance(body, str):
        yield from embedded_credentials(body)
    elif isinstance(body, dict):
        named = body.get("name")
        if isinstance(named, str) and is_sensitive_name(named) and "value" in body:
            yield from _scalars(body["value"])
        for key, item in body.items():
            if key == "description" and isinstance(item, str):
                continue  # prose (a schema's, an object's), no config text
            if key == "properties" and _is_schema_map(item):
                yield from _schema_credentials(item)
            elif isinstance(key, str) and is_sensitive_name(key):
                yield from _scalars(item)
            else:
                yield from credential_values(item)
    elif isinstance(body, list):
        for item in body:
            yield from credential_values(item)


def _is_schema_map(value: Any) -> bool:
    """JSON Schema `properties`: a non-empty map of names to schemas (maps), not data named so."""
    return (
        isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())
    )


def _schema_credentials(properties: dict[Any, Any]) -> Iterator[str]:
    for name, schema in properties.items():
        if isinstance(name, str) and is_sensitive_name(name):
            for field in SCHEMA_VALUES:
                if field in schema:
                    yield from _scalars(schema[field])
        yield from credential_values(schema)


def _scalars(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from _scalars(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def held_line_texts(line: str) -> Iterator[str]:
    """What a line of a multi-line Secret value may hold on its own: the line when it is one token (a
    PEM line, a password); the value a `key: value`, `KEY=value` or `export KEY=value` line
    assigns, and the line too when its key names a credential (`password: secret123`, whose value
    alone looks ordinary); not a line of prose or code (`exit 1`, `fi`), which would hide the same
    words everywhere (the whole value is hidden as it is)."""
    exported = line.startswith("export") and line[6:7].isspace()
    pair = _PAIR.fullmatch(line[6:].lstrip() if exported else line)
    if pair is not None and (value := pair.group("value").strip()):
        yield value
        if is_sensitive_name(pair.group("key")):
            yield line
    elif line and not any(c.isspace() for c in line):
        yield line.rstrip(",;") or line  # an entry of a list (SQL columns, `a,`), not its comma
