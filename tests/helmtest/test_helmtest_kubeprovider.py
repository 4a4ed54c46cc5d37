"""helm-unittest's `kubernetesProvider` with real Helm: tests with a fake cluster run, as upstream's.

The expectations follow helm-unittest's pkg/unittest/k8s_fake_client.go and test_suite.go: the
scheme resolves a lookup's kind (the suite's entry wins over the test's), objects are the test's
then the suite's, the fake stores a kind under client-go's guessed resource, and a provider
without objects is no fake cluster at all.
"""

from __future__ import annotations

import textwrap

import pytest

from aftershock.helmtest.kubeprovider import guessed_resource
from aftershock.model.test_results import JobStatus, RunResult
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.testrun.runner import run_suites

FILES = {
    "Chart.yaml": "apiVersion: v2\nname: fake\nversion: 0.1.0\n",
    "templates/lookup.yaml": """\
        pod: {{ lookup "v1" "Pod" "default" "p" | toJson }}
        suitePod: {{ lookup "v1" "Pod" "default" "s" | toJson }}
        ns: {{ lookup "v1" "Namespace" "" "n" | toJson }}
        pods: {{ lookup "v1" "Pod" "" "" | toJson }}
        cm: {{ lookup "v1" "ConfigMap" "default" "c" | toJson }}
        """,
    "tests/provider_test.yaml": """\
        suite: fake cluster
        templates: [lookup.yaml]
        kubernetesProvider:
          scheme:
            "v1/Pod": {gvr: {version: v1, resource: pods}, namespaced: true}
            "v1/Namespace": {gvr: {version: v1, resource: namespaces}}
          objects:
            - {kind: Pod, apiVersion: v1, metadata: {name: s, namespace: default}}
        tests:
          - it: sees its own objects and the suite's
            kubernetesProvider:
              objects:
                - {kind: Pod, apiVersion: v1, metadata: {name: p, namespace: default}}
                - {kind: Namespace, apiVersion: v1, metadata: {name: n}}
                - {kind: ConfigMap, apiVersion: v1, metadata: {name: c, namespace: default}}
            asserts:
              - equal: {path: pod.metadata.name, value: p}
              - equal: {path: suitePod.metadata.name, value: s}
              - equal: {path: ns.metadata.name, value: n}
              - isNullOrEmpty: {path: cm}
              - equal: {path: pods.kind, value: PodList}
              - equal: {path: pods.metadata, value: {continue: "", resourceVersion: ""}}
              - lengthEqual: {path: pods.items, count: 2}
              - equal: {path: "pods.items[0].metadata.name", value: p}
              - equal: {path: "pods.items[1].metadata.name", value: s}
          - it: keeps the suite's scheme entry over its own
            kubernetesProvider:
              scheme:
                "v1/Pod": {gvr: {version: v1, resource: pod}, namespaced: true}
            asserts:
              - equal: {path: suitePod.metadata.name, value: s}
              - isNullOrEmpty: {path: pod}
        ---
        suite: no fake cluster
        templates: [lookup.yaml]
        tests:
          - it: finds nothing where the scheme names a resource the kind is not stored under
            kubernetesProvider:
              scheme: {"v1/Pod": {gvr: {version: v1, resource: pod}, namespaced: true}}
              objects: [{kind: Pod, apiVersion: v1, metadata: {name: p, namespace: default}}]
            asserts:
              - isNullOrEmpty: {path: pod}
          - it: renders without a fake cluster when the provider has no objects
            kubernetesProvider:
              scheme: {"v1/Pod": {gvr: {version: v1, resource: pods}, namespaced: true}}
            asserts:
              - isNullOrEmpty: {path: pods}
        """,
}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    root = tmp_path_factory.mktemp("kubeprovider") / "fake"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    with SdkRenderer(workers=1) as renderer:
        return run_suites([str(root)], renderer)


def test_tests_with_a_fake_cluster_run_and_pass(result: RunResult):
    tests = [test for suite in result.suites() for test in suite.tests]
    failures = {
        test.name: (test.exec_error, [a.fail_info for a in test.assertions if not a.passed])
        for test in tests
        if test.status != JobStatus.PASSED
    }
    assert failures == {}, "\n".join(f"{k}: {v}" for k, v in failures.items())
    assert len(tests) == 4


def test_guessed_resources_are_client_gos():
    assert [guessed_resource(k) for k in ("Pod", "Ingress", "BrPolicy", "Endpoints", "")] == [
        "pods",
        "ingresses",
        "brpolicies",
        "endpointses",
        "",
    ]
