"""What a change does to a values file, said by intent: keys changing alike together, lists by size."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.values_intent import intent_lines
from charts import chart_yaml
from gitrepo import commit, make_repo


def change(path: str, kind: str, before, after, file: str = "release db") -> dict:
    return {"file": file, "path": path, "change": kind, "before": before, "after": after}


def test_keys_changing_alike_are_said_together_and_added_lists_by_their_size():
    doc = {
        "values_changes": [
            change("backup.enabled", "changed", True, False),
            change("metrics.enabled", "changed", True, False),
            change("env", "added", None, [{"name": str(n)} for n in range(5)]),
            change("init.env", "added", None, [1, 2, 3]),
            change("replicas", "changed", 2, 3, file="apps/web/values.yaml"),
        ]
    }
    assert intent_lines(doc) == [
        (
            "release db",
            "backup.enabled and metrics.enabled true → false, adds env (5 entries) and init.env (3 entries)",
        ),
        ("apps/web/values.yaml", "replicas 2 → 3"),
    ]


def test_an_added_empty_text_is_said_as_one():
    doc = {"values_changes": [change("tls.namespace", "added", None, "", file="values.yaml")]}
    assert intent_lines(doc) == [("values.yaml", 'adds tls.namespace = ""')]


def test_an_added_empty_map_or_list_is_said_as_written():
    # traefik af45fa0f: `emptyDir: {}` read "(0 keys)", a count of nothing
    doc = {
        "values_changes": [
            change("persistence.emptyDir", "added", None, {}, file="values.yaml"),
            change("extraArgs", "added", None, [], file="values.yaml"),
        ]
    }
    assert intent_lines(doc) == [
        ("values.yaml", "adds persistence.emptyDir = {} and extraArgs = []")
    ]


def test_a_secret_value_is_never_said_and_many_added_keys_are_counted():
    doc = {
        "values_changes": [
            {**change("auth.token", "changed", "a", "b"), "sensitive": True},
            *(change(f"k{n}", "added", None, n, file="new.yaml") for n in range(36)),
        ]
    }
    (secret, new) = intent_lines(doc)
    assert secret == ("release db", "changes auth.token (secret)")
    assert new == ("new.yaml", "adds 36 keys (k0 = 0, k1 = 1, k2 = 2, …)")


def test_a_list_whose_size_stays_says_what_changed_in_its_item():
    before = [{"backendRefs": [{"name": "plex", "port": 80}]}]
    after = [{"backendRefs": [{"identifier": "app", "port": 80}]}]
    doc = {"values_changes": [change("route.app.rules", "changed", before, after)]}
    assert intent_lines(doc) == [
        (
            "release db",
            "route.app.rules changed in its item (backendRefs[port=80].name removed, "
            "backendRefs[port=80].identifier added)",
        )
    ]
    grown = {"values_changes": [change("route.app.rules", "changed", before, before * 2)]}
    assert intent_lines(grown) == [("release db", "route.app.rules (1 entry) → (2 entries)")]


def test_a_review_of_a_list_item_edit_says_what_changed_in_it(tmp_path, renderer):
    """A real review: an Ingress's one rule changes its path; the JSON's description and the comment
    say which field of the rule changed, not two equal sizes."""
    template = (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n"
        "  rules:\n  {{- range .Values.rules }}\n  - host: {{ .host }}\n    http:\n      paths:\n"
        "      - {path: {{ .path }}, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}\n"
        "  {{- end }}\n"
    )
    repo = make_repo(tmp_path)
    files = {
        "web/Chart.yaml": chart_yaml("web"),
        "web/templates/ingress.yaml": template,
        "web/values.yaml": "rules:\n  - {host: web.example.com, path: /}\n",
    }
    base = commit(repo, files, "feat: web")
    head = commit(
        repo, {"web/values.yaml": "rules:\n  - {host: web.example.com, path: /v2}\n"}, "v2"
    )
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False, max_scenarios=1), renderer
    )
    doc = review_document(result.review, result.judgement)
    (described,) = [v["description"] for v in doc["values_changes"]]
    assert described == "rules changed in its item (path changed)"
    text = render_markdown(doc)
    assert "rules changed in its item \\(path changed\\)" in text and "1-item list" not in text


def test_a_switch_whose_name_reads_like_a_credential_is_said_with_its_value(tmp_path, renderer):
    """A real review: `certManager.enable` names a certificate, but true → false hides nothing and
    is said as such; a token's change beside it still shows no value."""
    repo = make_repo(tmp_path)
    files = {
        "web/Chart.yaml": chart_yaml("web"),
        "web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n",
        "web/values.yaml": "certManager:\n  enable: true\nauth:\n  token: first-token\n",
    }
    base = commit(repo, files, "feat: web")
    head = commit(
        repo,
        {"web/values.yaml": "certManager:\n  enable: false\nauth:\n  token: second-token\n"},
        "switch",
    )
    result = review_change(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False, max_scenarios=1), renderer
    )
    doc = review_document(result.review, result.judgement)
    by_path = {v["path"]: v for v in doc["values_changes"]}
    switch, token = by_path["certManager.enable"], by_path["auth.token"]
    assert not switch["sensitive"] and (switch["before"], switch["after"]) == (True, False)
    assert token["sensitive"] and "second-token" not in str(token)
    (said,) = [line for file, line in intent_lines(doc) if file == "web/values.yaml"]
    assert "certManager.enable true → false" in said and "auth.token (secret)" in said
    assert "second-token" not in render_markdown(doc)
