"""Hunk lines: a credential's value shows its size only, wherever the file is."""

from __future__ import annotations

from aftershock.report.redaction import redact_hunk_lines


def test_the_value_of_an_env_entry_named_like_a_credential_shows_its_size():
    lines = [
        "+        - name: API_KEY",
        '+          value: "Zt8mQ2pLk9"',
        "+        - name: MODE",
        "+          value: fast",
        "+  - {name: DB_PASSWORD, value: Qw7rTz9pLm2x}",
        "+          value: {{ .Values.token }}",
    ]
    assert list(redact_hunk_lines(lines, secret_file=False)) == [
        "+        - name: API_KEY",
        "+          value: <redacted: 10 bytes>",
        "+        - name: MODE",
        "+          value: fast",
        "+  - {name: DB_PASSWORD, value: <redacted: 12 bytes>}",
        "+          value: {{ .Values.token }}",
    ]


def test_a_credential_named_key_shows_its_size_and_other_lines_are_kept():
    lines = ["-  DB_PASSWORD: Qw7rTz9pLm2x", "+  region: eu-de-1"]
    assert list(redact_hunk_lines(lines, secret_file=False)) == [
        "-  DB_PASSWORD: <redacted: 12 bytes>",
        "+  region: eu-de-1",
    ]


def test_a_line_or_values_key_naming_where_a_credential_is_shows_its_value():
    """traefik's values.yaml diff printed `tokenMountPath: <redacted: 12 bytes>`: a mount path is
    where a token is, as `password_file` is; `token:` itself stays hidden."""
    from aftershock.diff.values_keys import is_sensitive
    from aftershock.report.redaction import redact_hunk_line

    assert redact_hunk_line("    tokenMountPath: /var/run/tok", secret_file=False).endswith(
        "/var/run/tok"
    )
    assert "<redacted: 8 bytes>" in redact_hunk_line("    token: abcdefgh", secret_file=False)
    assert not is_sensitive("hub.tokenMountPath") and not is_sensitive("auth.password_file")
    assert is_sensitive("hub.token") and is_sensitive("db.passwordHash")


def test_private_names_a_credential_as_a_key_not_as_a_word_of_a_label():
    """sapcc's metal-operator values said `adds manager.pod.labels."networking.gardener.cloud/
    to-private-networks" (secret)` for a network policy label."""
    from aftershock.diff.values_keys import is_sensitive

    assert not is_sensitive('manager.pod.labels."networking.gardener.cloud/to-private-networks"')
    assert not is_sensitive("image.privateRegistry")
    assert is_sensitive("ssh.private") and is_sensitive("tls.privateKey")
    assert is_sensitive("jwt.private_key") and is_sensitive("private")


def test_an_empty_value_is_shown_empty_not_redacted():
    from aftershock.report.text import value_text

    assert value_text({"redacted": True, "bytes": 0}) == '""'
    assert value_text({"redacted": True, "bytes": 7}) == "<redacted: 7 bytes>"
    assert list(redact_hunk_lines(['+  password: ""'], secret_file=False)) == ['+  password: ""']


def test_a_workflow_expression_naming_a_secret_is_shown_a_literal_token_is_not():
    """sapcc's workflows printed `token: <redacted: 27 bytes>` for `${{ secrets.GITHUB_TOKEN }}`:
    where the secret is, not the secret."""
    lines = [
        "+            token: ${{ secrets.GITHUB_TOKEN }}",
        '+            token: "${{ secrets.CI_TOKEN }}"',
        "+            token: ghp_abcdefgh",
    ]
    assert list(redact_hunk_lines(lines, secret_file=False)) == [
        "+            token: ${{ secrets.GITHUB_TOKEN }}",
        '+            token: "${{ secrets.CI_TOKEN }}"',
        "+            token: <redacted: 12 bytes>",
    ]
