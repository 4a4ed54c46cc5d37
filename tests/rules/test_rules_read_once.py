"""The rule pass reads a text once where a whole tree repeats it: a library template for every chart
that includes it and at both refs, a ConfigMap entry in every scenario, a template path against the
charts, a CRD in every scenario (issue 35). Counted with the real functions wrapped, the findings
unchanged."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from test_rules_shell_injection import TEMPLATE

from aftershock.config.settings import AftershockConfig
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.rules.engine import evaluate
from aftershock.rules.helm import shell_injection
from aftershock.rules.model import SourceTexts
from aftershock.rules.secrets import configmap_credentials
from aftershock.rules.support import kubeschema, shell
from aftershock.rules.values.undefined_reference import _in_templates
from rulecases import build_review


def _counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> Counter[object]:
    calls: Counter[object] = Counter()
    real = getattr(module, name)

    def counting(*args: object, **named: object) -> object:
        calls[tuple(_hashable(a) for a in (*args, *named.values()))] += 1
        return real(*args, **named)

    monkeypatch.setattr(module, name, counting)
    return calls


def _hashable(value: object) -> object:
    return (
        tuple(value)
        if isinstance(value, list)
        else repr(value)
        if isinstance(value, dict)
        else value
    )


def _findings(review, sources=None):
    return [
        (f.rule_id, f.fingerprint, f.message)
        for f in evaluate(review, AftershockConfig(), sources=sources)
    ]


def test_a_template_the_same_at_both_refs_is_read_for_splices_once(tmp_path, monkeypatch):
    template = {"charts/app/templates/job.yaml": TEMPLATE}
    base = {"charts/app/values.yaml": "flags: ''\n", **template}
    head = {"charts/app/values.yaml": "flags: '-v'\n", **template}
    review = build_review((), (), tmp_path=tmp_path, base_files=base, head_files=head)
    sources = SourceTexts(base=base, head=head)
    expected = _findings(review, sources)
    calls = _counted(monkeypatch, shell_injection, "splices")
    assert _findings(review, sources) == expected
    assert calls == Counter({(TEMPLATE,): 1})  # not once per ref


def test_only_a_line_that_may_continue_a_shell_looks_back_for_one(monkeypatch):
    expected = list(shell.splices(TEMPLATE))
    calls = _counted(monkeypatch, shell, "_shell_before")
    assert list(shell.splices(TEMPLATE)) == expected
    # the flow `["-c", ...]` line and the block `- "-c"` item, not each of the 21 lines
    assert sorted(index for _, index in calls) == [3, 7]


def _configmap(data: dict[str, str]) -> RenderedObject:
    return RenderedObject(
        key=ObjectKey("", "ConfigMap", "default", "app"),
        api_version="v1",
        body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": data},
        chart="charts/app",
        template="charts/app/templates/configmap.yaml",
    )


def test_a_configmap_entry_in_several_renders_is_judged_once(tmp_path, monkeypatch):
    base = (_configmap({"DB_PASSWORD": "s3cr3t-Pa55w0rd-x", "level": "info"}),)
    head = (_configmap({"DB_PASSWORD": "s3cr3t-Pa55w0rd-x", "level": "debug"}),)
    one = build_review(base, head, tmp_path=tmp_path)
    scenario = replace(one.chart_reviews[0], scenario="large")
    review = replace(one, chart_reviews=(*one.chart_reviews, scenario))
    expected = _findings(review)
    assert any(rule == "secret-in-configmap" for rule, _, _ in expected)
    calls = _counted(monkeypatch, configmap_credentials, "_reason")
    assert _findings(review) == expected
    # 2 scenarios x 2 refs x 2 entries read; 3 distinct entries judged
    assert calls == Counter(
        {("DB_PASSWORD", "s3cr3t-Pa55w0rd-x"): 1, ("level", "info"): 1, ("level", "debug"): 1}
    )


@pytest.mark.parametrize(
    "path",
    [
        "templates/a.yaml",
        "app/templates/a.yaml",
        "app/templates/sub/a.yaml",
        "apps/web/templates/a.yaml",
        "apps/web/charts/lib/templates/a.yaml",
        "odd/templates/chart/templates/a.yaml",
        "app/templatesx/a.yaml",
        "app/docs/a.md",
        "other/templates/a.yaml",
    ],
)
@pytest.mark.parametrize(
    "charts",
    [
        frozenset({"app", "apps/web", "odd/templates/chart"}),
        frozenset({"", "apps/web/charts/lib"}),
        frozenset(),
    ],
)
def test_a_template_path_is_found_by_its_folder_as_by_trying_every_chart(path, charts):
    every = any(path.startswith(f"{c}/templates/" if c else "templates/") for c in charts)
    assert _in_templates(path, charts) is every


def _crd(version_schema: dict[str, object]) -> RenderedObject:
    spec = {
        "group": "example.com",
        "names": {"kind": "Widget"},
        "versions": [{"name": "v1", "schema": {"openAPIV3Schema": version_schema}}],
    }
    return RenderedObject(
        key=ObjectKey(
            "apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com"
        ),
        api_version="apiextensions.k8s.io/v1",
        body={"spec": spec},
        chart="charts/app",
        template="charts/app/templates/crd.yaml",
    )


def test_a_crd_rendered_in_every_scenario_is_read_once_and_the_last_one_counts(monkeypatch):
    first = _crd({"type": "object", "properties": {"size": {"type": "string"}}})
    last = _crd({"type": "object", "properties": {"size": {"type": "integer"}}})
    calls = _counted(monkeypatch, kubeschema, "_structural")
    found = kubeschema.crd_schemas(iter((first, first, last)))
    assert list(found) == [("example.com", "v1", "Widget")]
    assert found[("example.com", "v1", "Widget")]["properties"]["size"] == {"type": "integer"}
    assert sum(n for args, n in calls.items() if args[-1] is True) == 1  # the top, once (not 3)
