"""Credential text: which names hold a credential, and which tokens never are one."""

from __future__ import annotations

import pytest

from aftershock.safety.credential_text import (
    credential_values,
    is_ordinary,
    is_sensitive_name,
    known_format,
)

ORDINARY = [
    "cluster",
    "namespace",
    "backup",
    "clusterIP",
    "INFO",
    "cert-manager",
    "kube-system",
    "db.default.svc.cluster.local",
    "backup_v2.cohost_with_mariadb",
    "ROLE_ADMIN",
    ".spec.clusterIP",
    "common/mariadb/templates/_helpers.tpl",
    "/var/lib/mysql",
    "https://keystone.example.com:5000/v3",
    "8080",
    "10.0.0.1",
    "2026-01-01",
    "true",
    "region: eu-de-1",
    "authorization.k8s.io",
    "cluster.x-k8s.io",
    "v1beta1",
    "resources:",  # a values document's block key, alone on its line
    "  - operator:",
    "- monitoring",
    "",
]
SECRET = [
    "Xk29fQ7mLwTq",
    "hunter2hunter2",
    "s3cr3t-passw0rd",
    "XkfQmLwTqRzP",  # letters only, but no word
    "AKIAIOSFODNN7EXAMPLE",
    "https://user:pw1234@db.example.com/app",
    "password: cleartext",
    "password:",
    "upstream: Xk29fQ7mLwTq",
    "correct horse battery staple",
    "a3f9c2e81b77",
    "k8s9x",
    "PLANTED-7f3a-conn-base",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_plain_words_names_paths_and_numbers_are_ordinary(text):
    assert is_ordinary(text)


@pytest.mark.parametrize("text", SECRET)
def test_random_tokens_known_formats_and_credential_lines_are_not(text):
    assert not is_ordinary(text)


def test_credential_names_exclude_references():
    assert is_sensitive_name("DB_PASSWORD") and is_sensitive_name("apiKey")
    assert not is_sensitive_name("PASSWORD_FILE") and not is_sensitive_name("MODE")


def test_credential_values_are_those_of_credential_named_keys_and_env_entries():
    body = {
        "data": {"DB_PASSWORD": "a1", "MODE": "m"},
        "env": [{"name": "API_KEY", "value": "a2"}, {"name": "MODE", "value": "m"}],
        "auth": {"token": {"inner": "a3"}},
    }
    assert sorted(credential_values(body)) == ["a1", "a2", "a3"]


def test_camel_case_references_are_no_credential_names():
    """`tokenMountPath`, `secretKeyRef` name where a credential is, as `TOKEN_PATH` does (traefik's
    values printed `tokenMountPath: <redacted: 12 bytes>`)."""
    for name in ("tokenSecretName", "tokenMountPath", "secretKeyRef", "passwordFile", "apiKeyRef"):
        assert not is_sensitive_name(name), name
    for name in ("apiKey", "clientSecret", "tokenpath", "password", "AUTH_TOKEN"):
        assert is_sensitive_name(name), name


def test_a_credential_named_schema_property_gives_its_default_not_its_prose():
    """A CRD's openAPIV3Schema (or values.schema.json) names fields under `properties`: the
    description of `apiKey` is documentation, its `default` would be a credential."""
    schema = {
        "openAPIV3Schema": {
            "type": "object",
            "properties": {
                "apiKey": {
                    "description": "APIKey configures API key authentication.",
                    "type": "object",
                    "properties": {"secret": {"type": "string", "description": "Secret holds it."}},
                },
                "password": {"type": "string", "default": "Zq8#hunter2long"},
                "mode": {"type": "string", "default": "fast"},
            },
        }
    }
    assert sorted(credential_values(schema)) == ["Zq8#hunter2long"]
    assert sorted(credential_values({"properties": {"password": "p4ss-not-a-schema"}})) == [
        "p4ss-not-a-schema"
    ]


def test_a_url_with_a_password_is_found_after_a_long_word_and_in_a_long_text():
    # the scheme is bounded (an unbounded one made a long word cost time quadratic in its length)
    assert (
        known_format("x" * 100 + "https://user:hunter22@db.example.com/") == "URL with a password"
    )
    assert known_format("a" * 20_000) is None
    assert (
        known_format("word " * 20_000 + "postgres://app:s3cr3tpw@db:5432/x")
        == "URL with a password"
    )


def test_credentials_inside_texts_are_found_and_prose_is_not_read():
    from aftershock.safety.credential_text import credential_values, embedded_credentials

    config = "[db]\nhost = db.svc\npassword: Zq81-secret\n"
    assert embedded_credentials(config) == ("Zq81-secret",)
    assert embedded_credentials("Server=db;Password=Wx9!;") == ("Wx9!",)
    assert embedded_credentials("postgres://app:Kp4z@db:5432/app") == ("Kp4z",)
    assert embedded_credentials("password: alone") == ()  # one line: its key judges it
    # a schema's prose naming a token is no config text
    crd = {"description": "The token:\npassword: is set by the operator", "type": "object"}
    assert list(credential_values(crd)) == []
