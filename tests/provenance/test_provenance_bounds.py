"""Provenance stays linear in values keys and objects: the key index finds what a read matches as
testing every key would, and an object whose templates read thousands of changed keys is named as
not traced instead of linked to each (real SDK renders of a real git repository)."""

from __future__ import annotations

import itertools
import random

from aftershock.pipeline import ReviewRequest, run_review
from aftershock.provenance.keyindex import KeyIndex
from aftershock.provenance.link import MAX_KEYS_PER_OBJECT, matches
from charts import app_chart
from gitrepo import commit, make_repo

SETTINGS_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data:
  {{- range $key, $value := .Values.settings }}
  {{ $key }}: {{ $value | quote }}
  {{- end }}
"""


def test_the_key_index_matches_what_testing_every_key_matches():
    rng = random.Random(7)
    parts = ["a", "b", "c", "d"]
    paths = sorted({tuple(rng.choice(parts) for _ in range(rng.randint(0, 4))) for _ in range(200)})
    index = KeyIndex(paths)
    reads = [tuple(r) for n in range(4) for r in itertools.product([*parts, "*"], repeat=n)]
    for read in reads:
        expected = {i for i, path in enumerate(paths) if matches(read, path)}
        assert index.matching(read, len(paths)) == expected, read
        if len(expected) > 3:
            assert index.matching(read, 3) is None


def test_an_object_reading_thousands_of_changed_keys_is_not_traced_and_says_so(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**app_chart("charts/web", "web"), "charts/web/templates/settings.yaml": SETTINGS_MAP},
        "feat: web",
    )
    settings = "".join(f"  key{i:04d}: value-{i}\n" for i in range(2000))
    commit(
        repo,
        {
            "charts/web/values.yaml": f"replicas: 3\nimage: nginx:1.27.0\nmode: fast\nsettings:\n{settings}"
        },
        "feat: settings and three replicas",
    )
    review = run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    report = review.provenance
    assert report is not None
    assert report.unlinked == ("charts/web::core/ConfigMap/default/settings",)
    by_field = {(f.key.kind, f.field): f for f in report.fields}
    settings_fields = [f for f in report.fields if f.key.kind == "ConfigMap"]
    assert settings_fields and all(f.values == () for f in settings_fields)
    assert [link.key for link in by_field[("Deployment", "spec.replicas")].values] == ["replicas"]
    gaps = {(g.part, g.reason) for g in review.not_reviewed}
    assert gaps == {
        (
            "provenance of charts/web::core/ConfigMap/default/settings",
            f"its templates read more than {MAX_KEYS_PER_OBJECT} changed values keys",
        )
    }
