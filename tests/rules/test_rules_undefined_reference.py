"""values-undefined-reference through the whole review on a real git repository: the pipeline hands the
rule every chart's values.yaml (affected or not) and the READMEs the change touches anywhere."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from charts import app_chart, chart_yaml
from gitrepo import commit, make_repo

RULE = "values-undefined-reference"


def _findings(repo, renderer, base="HEAD~1"):
    result = review_change(
        ReviewRequest(repo=repo, base=base, head="HEAD", run_tests=False, max_scenarios=1), renderer
    )
    return sorted(
        (f.location.file, f.location.line, f.subject.facet)
        for f in result.judgement.findings
        if f.rule_id == RULE and f.location is not None
    )


def test_paths_of_unaffected_charts_count_and_root_readme_is_read(tmp_path, renderer):
    repo = make_repo(tmp_path)
    other = {
        "charts/other/Chart.yaml": chart_yaml("other"),
        "charts/other/values.yaml": "alpha:\n  enabled: false\n",
        "charts/other/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
    }
    commit(
        repo,
        {**app_chart("charts/app", "app"), **other, "README.md": "# Platform\n"},
        "chore: base",
    )
    commit(
        repo,
        {
            "charts/app/README.md": "# app\n\nTurn on `.Values.alpha.enabled` in other, and `.Values.beta.missing` here.\n",
            "README.md": "# Platform\n\nEvery chart reads `values.replicas` and `values.gamma.mode`.\n",
        },
        "docs: values",
    )
    assert _findings(repo, renderer) == [
        ("README.md", 3, "gamma.mode"),
        ("charts/app/README.md", 3, "beta.missing"),
    ]


def test_example_docs_page_names_only_defined_paths(example_repo, renderer):
    # docs/values-overrides.md (added) names .Values.defaults.<app>, .Values.overrides.<app> and the
    # chart's `values.yaml`: the first two exist in the release chart, which the change does not affect.
    result = review_change(
        ReviewRequest(
            repo=example_repo,
            base="state-06-payments-webhook-key",
            head="state-07-docs-release-overrides",
            run_tests=False,
            max_scenarios=1,
        ),
        renderer,
    )
    assert [f for f in result.judgement.findings if f.rule_id == RULE] == []
