"""The rule engine: configuration (level, disable, path scopes, options), rule failures, determinism, bad input."""

from __future__ import annotations

import gc
from dataclasses import replace

import pytest

from aftershock.config.settings import AftershockConfig, parse_config
from aftershock.findings.model import RULE_ERROR_ID, Delta, Severity
from aftershock.model.errors import ConfigError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.rules.engine import check_config, evaluate
from aftershock.rules.registry import RULES, RULES_BY_ID
from aftershock.verdict import verdicts
from rulecases import FIXTURES, Case, build_review, load_case, read_manifests

HOST_PID = FIXTURES / "pss-host-namespaces" / "introduced-hostpid"


def host_pid_review(tmp_path):
    return build_review(
        read_manifests(HOST_PID / "base.yaml"),
        read_manifests(HOST_PID / "head.yaml"),
        tmp_path=tmp_path,
    )


def rule_findings(review, config, rule_id="pss-host-namespaces"):
    return [f for f in evaluate(review, config) if f.rule_id == rule_id]


def test_level_override_replaces_severity(tmp_path):
    config = parse_config("rules:\n  pss-host-namespaces:\n    level: critical\n")
    [found] = rule_findings(host_pid_review(tmp_path), config)
    assert found.severity is Severity.CRITICAL


def test_disabled_rule_finds_nothing(tmp_path):
    config = parse_config("rules:\n  pss-host-namespaces: {enabled: false}\n")
    assert rule_findings(host_pid_review(tmp_path), config) == []


@pytest.mark.parametrize(
    "settings, kept",
    [
        ("{paths: ['charts/app/**']}", True),
        ("{paths: ['charts/other']}", False),
        ("{exclude_paths: ['charts/app/templates/daemonset.yaml']}", False),
        ("{exclude_paths: ['charts/*/templates/*.yml']}", True),
    ],
)
def test_path_scopes(tmp_path, settings, kept):
    config = parse_config(f"rules:\n  pss-host-namespaces: {settings}\n")
    assert bool(rule_findings(host_pid_review(tmp_path), config)) is kept


def test_unknown_rule_id_is_a_clear_error():
    with pytest.raises(
        ConfigError, match="unknown rule 'pss-host-namespace'.*did you mean pss-host-namespaces"
    ):
        check_config(parse_config("rules:\n  pss-host-namespace: {level: low}\n"))


def test_invalid_options_are_a_clear_error():
    with pytest.raises(ConfigError, match="invalid option 'required' of rule commit-trailers"):
        check_config(parse_config("rules:\n  commit-trailers: {options: {required: 3}}\n"))
    with pytest.raises(ConfigError, match="rule pss-privileged takes no options"):
        check_config(parse_config("rules:\n  pss-privileged: {options: {x: 1}}\n"))


def test_config_file_errors_are_one_line():
    with pytest.raises(ConfigError, match="rules.x.level"):
        parse_config("rules:\n  x: {level: severe}\n")
    with pytest.raises(ConfigError, match="kubernetes_version"):
        parse_config("kubernetes_version: latest\n")
    with pytest.raises(ConfigError, match="cannot read the configuration"):
        parse_config("rules: [unclosed\n")


def test_a_failing_rule_becomes_a_finding_and_lowers_the_confidence(tmp_path):
    def explode(ctx):
        raise KeyError("spec")

    broken = replace(RULES_BY_ID["pss-privileged"], id="broken-rule", check=explode)
    review = host_pid_review(tmp_path)
    findings = evaluate(review, AftershockConfig(), rules=(broken,))
    [error] = findings
    assert error.rule_id == RULE_ERROR_ID and error.delta is Delta.INTRODUCED
    assert "broken-rule" in error.message and "KeyError" in error.message
    result = verdicts(review, findings)
    # it lowers the confidence, not the level (verdict/confidence.py)
    assert result.merge.unverified == ("rule broken-rule could not run",)
    assert result.merge.title.endswith("· partly verified (1 part)")


def test_the_collector_is_paused_for_the_pass_and_left_as_it_was(tmp_path):
    seen = []

    def watch(ctx):
        seen.append(gc.isenabled())
        return iter(())

    def explode(ctx):
        raise KeyError("spec")

    watching = replace(RULES_BY_ID["pss-privileged"], id="watching", check=watch)
    broken = replace(RULES_BY_ID["pss-privileged"], id="broken-rule", check=explode)
    review = host_pid_review(tmp_path)
    assert gc.isenabled()
    evaluate(review, AftershockConfig(), rules=(watching, broken))
    assert seen == [False] and gc.isenabled()
    gc.collect()
    evaluate(review, AftershockConfig())  # every rule
    assert gc.collect() == 0  # the pass leaves no cycles for the paused collector to miss
    gc.disable()
    try:
        evaluate(review, AftershockConfig(), rules=(watching,))
        assert seen == [False, False] and not gc.isenabled()  # whoever turned it off turns it on
    finally:
        gc.enable()


def test_findings_are_deterministic_and_ordered(tmp_path):
    case = Case(
        "pss-capabilities-baseline", "widened", FIXTURES / "pss-capabilities-baseline" / "widened"
    )
    review, config, sources, _ = load_case(case, tmp_path)
    first = evaluate(review, config, sources=sources)
    shuffled_rules = tuple(reversed(RULES))
    second = evaluate(review, config, sources=sources, rules=shuffled_rules)
    assert first == second
    assert [f.actionable for f in first] == sorted((f.actionable for f in first), reverse=True)


MALFORMED = [
    {"spec": "not a map"},
    {"spec": {"template": {"spec": {"containers": "app"}}}},
    {
        "spec": {
            "template": {
                "spec": {
                    "containers": [None, 3, {"name": 5, "securityContext": [1]}],
                    "volumes": {"a": 1},
                }
            }
        }
    },
    {
        "spec": {
            "template": {
                "spec": {
                    "securityContext": {"sysctls": [None, {"name": None}], "seLinuxOptions": "x"},
                    "containers": [
                        {
                            "name": "a",
                            "env": [{"name": "TOKEN", "value": 12}],
                            "ports": "80",
                            "image": ["x"],
                            "securityContext": {"capabilities": {"add": "ALL"}},
                        }
                    ],
                }
            }
        }
    },
    {"rules": "all", "roleRef": [], "subjects": {"a": 1}},
    {
        "spec": {
            "versions": [{"name": None}],
            "dependsOn": [None],
            "timeout": 5,
            "tls": [{"hosts": None}],
            "rules": [None],
        }
    },
    {"data": {"k": None, "password": 5}, "metadata": {"annotations": ["x"]}},
]
KINDS = [
    ("apps", "Deployment"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("networking.k8s.io", "Ingress"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("helm.toolkit.fluxcd.io", "HelmRelease"),
    ("", "Service"),
]


def _objects(bodies):
    out = []
    for index, body in enumerate(bodies):
        for group, kind in KINDS:
            key = ObjectKey(group, kind, "default", f"o{index}")
            out.append(
                RenderedObject(
                    key,
                    f"{group}/v1" if group else "v1",
                    {"kind": kind, **body},
                    "charts/app",
                    f"charts/app/templates/t{index}.yaml",
                )
            )
    return tuple(out)


def test_malformed_bodies_never_make_a_rule_fail(tmp_path):
    base, head = _objects(MALFORMED), _objects(list(reversed(MALFORMED)))
    findings = evaluate(build_review(base, head, tmp_path=tmp_path), AftershockConfig())
    assert [f.message for f in findings if f.rule_id == RULE_ERROR_ID] == []


def test_malformed_sources_never_make_a_rule_fail(tmp_path):
    from aftershock.rules.model import SourceTexts

    folder = FIXTURES / "values-schema-violation" / "default-breaks-schema"
    review, config, _, _ = load_case(Case("values-schema-violation", folder.name, folder), tmp_path)
    broken = {
        "charts/app/values.yaml": "replicaCount: [unclosed\n",
        "charts/app/values.schema.json": "{not json",
        "charts/app/tests/a_test.yaml": "tests: {it: 3}\n: :\n",
        "charts/app/templates/x.yaml": "{{ .Values.",
        "charts/app/README.md": "\x00",
        "charts/app/ci/x.yaml": "- a list\n",
    }
    findings = evaluate(review, config, sources=SourceTexts(base=broken, head=broken))
    assert [f.message for f in findings if f.rule_id == RULE_ERROR_ID] == []


def test_rules_left_at_the_review_deadline_are_not_run_and_say_so(tmp_path):
    ran: list[str] = []

    def counting(ctx):
        ran.append("x")
        return iter(())

    first = replace(RULES_BY_ID["pss-privileged"], id="first-rule", check=counting)
    second = replace(RULES_BY_ID["pss-privileged"], id="second-rule", check=counting)
    checks = iter([False, True])  # the deadline passes after the first rule
    review = host_pid_review(tmp_path)
    findings = evaluate(
        review, AftershockConfig(), rules=(first, second), expired=lambda: next(checks)
    )
    assert ran == ["x"]
    [skipped] = findings
    assert skipped.rule_id == RULE_ERROR_ID
    assert "second-rule was not run: the review deadline was reached" in skipped.message
    assert verdicts(review, findings).merge.unverified == ("rule second-rule could not run",)
