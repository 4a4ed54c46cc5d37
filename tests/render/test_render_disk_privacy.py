"""What of a render may go to disk: no Secret, no credential-named secret value."""

from __future__ import annotations

from aftershock.render.caching.disk_privacy import can_render_secret, holds_secret


def test_a_credential_named_value_keeps_a_render_off_disk_unless_it_is_ordinary():
    def held(text: str) -> bool:
        return holds_secret({"c/templates/x.yaml": text}, None)

    assert held("kind: ConfigMap\ndata:\n  DB_PASSWORD: Qw7rTz9pLm2x\n")
    assert held("env:\n  - name: API_KEY\n    value: Zt8mQ2pLk9\n")
    assert held('{"kind":"ConfigMap","data":{"token":"Zt8mQ2pLk9"}}')
    assert not held("kind: ConfigMap\ndata:\n  DB_PASSWORD: ''\n  mode: Zt8mQ2pLk9\n")
    assert not held(
        "env:\n  - name: MODE\n    value: Zt8mQ2pLk9\n  - name: TOKEN_TTL\n    value: '3600'\n"
    )


def test_parsed_documents_are_judged_the_same():
    document = ("c/templates/x.yaml", 0, {"kind": "ConfigMap", "data": {"API_KEY": "Zt8mQ2pLk9"}})
    assert holds_secret({}, (document,))
    assert not holds_secret({}, (("t", 0, {"kind": "ConfigMap", "data": {"a": "b"}}),))


def test_a_chart_can_render_a_secret_when_a_template_or_a_subchart_writes_one(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "cm.yaml").write_text("kind: ConfigMap\n")
    assert not can_render_secret(str(tmp_path))
    sub = tmp_path / "charts" / "db" / "templates"
    sub.mkdir(parents=True)
    (sub / "s.yaml").write_text("apiVersion: v1\nkind: Secret\n")
    assert can_render_secret(str(tmp_path))
