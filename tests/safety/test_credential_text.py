"""Credential text: which names hold a credential, and which tokens never are one."""

from __future__ import annotations

import pytest

from aftershock.safety.credential_text import credential_values, is_ordinary, is_sensitive_name

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
    "upstream: Xk29fQ7mLwTq",
    "correct horse battery staple",
    "a3f9c2e81b77",
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
