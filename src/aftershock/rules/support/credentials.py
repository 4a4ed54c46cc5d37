"""Recognising credentials without ever showing them: sensitive names and well-known secret formats.

A known format is observed; a credential by name is only inferred, and needs a value that looks like a
secret (length, entropy, character mix): a Kubernetes name, a URL without user info, a boolean or a
number is not one. Only the kind of match and the value's size ever leave this module.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from aftershock.safety.credential_text import REFERENCE_NAME, known_format

# `password = value` or `token: value` inside a configuration file held in a ConfigMap.
ASSIGNMENT = re.compile(
    r"(?im)^[ \t]*[\"']?([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|private[_-]?key))[\"']?[ \t]*[:=][ \t]*[\"']?([^\s\"'#]+)"
)
PLACEHOLDERS = frozenset(
    {
        "",
        "changeme",
        "change-me",
        "changeit",
        "xxx",
        "xxxx",
        "todo",
        "tbd",
        "none",
        "null",
        "nil",
        "secret",
        "password",
        "<password>",
        "<secret>",
        "<token>",
        "redacted",
        "placeholder",
        "example",
        "dummy",
        "true",
        "false",
    }
)


def looks_like_value(value: str) -> bool:
    """A literal that could be a credential: not empty, a placeholder, a path, a reference or a template."""
    stripped = value.strip()
    if stripped.lower() in PLACEHOLDERS or len(stripped) < 4:
        return False
    if (
        stripped.startswith(("/", "$(", "${", "{{", "<", "vault:", "ref+", "arn:"))
        or stripped.isdigit()
    ):
        return False
    return not re.fullmatch(r"\*+|x+|\.+", stripped, re.IGNORECASE)


BOOLEAN_WORDS = frozenset(
    {"true", "false", "yes", "no", "on", "off", "y", "n", "enabled", "disabled"}
)
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_PART = re.compile(r"[a-z]+[0-9]*|[0-9]+")  # words, words with a trailing number, numbers
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
MIN_SECRET_LENGTH = 8
MIN_SECRET_ENTROPY = 2.5  # bits per character; "aaaaaaaa" is 0, a random base64 string about 5


def is_kubernetes_name(value: str) -> bool:
    """A DNS-1123 name made of words (`postgres-credentials`, `redis-master-0`, `db.default.svc`), as
    Secret, Service and host names are; not a random token (`s3cr3t-passw0rd`, a hex string)."""
    return (
        len(value) <= 253
        and bool(_DNS_SUBDOMAIN.fullmatch(value))
        and all(_NAME_PART.fullmatch(part) for part in re.split(r"[-.]", value))
    )


def entropy(value: str) -> float:
    """Shannon entropy of the value's characters, in bits per character."""
    counts = Counter(value)
    return (
        -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values()) if value else 0.0
    )


def looks_like_secret(value: str) -> bool:
    """A literal a credential-named key could really hold: `looks_like_value`, and neither a boolean, a
    Kubernetes name nor a URL without user info, at least 8 characters of 2.5 bits of entropy each, and
    not a single lowercase word shorter than 16 characters."""
    stripped = value.strip()
    if not looks_like_value(stripped) or stripped.lower() in BOOLEAN_WORDS:
        return False
    if stripped.startswith("$") or _URL.fullmatch(stripped):
        return known_format(stripped) == "URL with a password"
    if is_kubernetes_name(stripped) or len(stripped) < MIN_SECRET_LENGTH:
        return False
    if re.fullmatch(r"[a-z]+", stripped) and len(stripped) < 16:
        return False
    return entropy(stripped) >= MIN_SECRET_ENTROPY


# Names that end in a credential word (DB_PASSWORD, adminToken, api-key), stricter than SENSITIVE_NAME:
# a weak value is only reported under these, not under TOKEN_TYPE or PASSWORD_POLICY.
CREDENTIAL_ENDING = re.compile(
    r"(pass(word|wd|phrase)?|pwd|secret|token|api[-_]?key|apikey|private[-_]?key|access[-_]?key|"
    r"credentials?)$",
    re.IGNORECASE,
)


def looks_like_weak_secret(name: str, value: str) -> bool:
    """A short or simple literal (`abc123`, `postgres`, `admin`) under a name that ends in a credential
    word: too weak for `looks_like_secret`, but a credential all the same (linters flag
    `password: abc123`), so reported at low confidence. Not a placeholder, reference, boolean, number,
    URL or multi-part Kubernetes name (`postgres-credentials`)."""
    stripped = value.strip()
    if not CREDENTIAL_ENDING.search(name) or REFERENCE_NAME.search(name):
        return False
    if not looks_like_value(stripped) or stripped.lower() in BOOLEAN_WORDS:
        return False
    if stripped.startswith("$") or _URL.fullmatch(stripped) or re.fullmatch(r"[\d.]+", stripped):
        return False
    return not (is_kubernetes_name(stripped) and re.search(r"[-.]", stripped))


def assigned_secrets(text: str) -> list[str]:
    """Names of `password: literal`-style assignments in a configuration text with a real-looking value."""
    return sorted({name for name, value in ASSIGNMENT.findall(text) if looks_like_secret(value)})


def assigned_weak_secrets(text: str) -> list[str]:
    """Names of `password: literal`-style assignments whose value is only `looks_like_weak_secret`."""
    return sorted(
        {
            name
            for name, value in ASSIGNMENT.findall(text)
            if not looks_like_secret(value) and looks_like_weak_secret(name, value)
        }
    )
