"""The parsing edges fuzzed in-process, each with valid seeds and the one refusal it documents.

chart_yaml       Chart.yaml through chart discovery (dependencies included)
values           a values file, flattened and diffed against the chart's defaults
release          plain manifests: objects, the release each declares, the values it passes
object_diff      rendered objects diffed against the seeds (identity, list matching, renames)
helm_unittest    a helm-unittest suite document
config           .aftershock.yaml
webhook          a delivery's payload routed into a job (which must survive its JSON round trip)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from harness import Mutator, Tally, exercise

from aftershock.config.settings import parse_config
from aftershock.diff.objects import diff_objects
from aftershock.diff.values_keys import diff_values, parse_values
from aftershock.helmtest.suite import SuiteError, parse_suite_text
from aftershock.ingest.charts import discover_charts
from aftershock.ingest.object_documents import parse_manifests
from aftershock.model.errors import AftershockError
from aftershock.releases.parse import release_spec
from aftershock.releases.values import release_values
from aftershock.server.github.events import MalformedPayload, RoutingOptions, route
from aftershock.server.queue.jobspec import job_from_json, job_to_json
from memtree import MemoryTree

CHART = {
    "apiVersion": "v2",
    "name": "web",
    "version": "0.1.0",
    "type": "application",
    "appVersion": "1.0",
    "dependencies": [
        {
            "name": "lib",
            "version": "0.1.0",
            "repository": "file://../lib",
            "condition": "lib.enabled",
        },
        {"name": "db", "version": "1.x", "repository": "https://charts.example.com", "alias": "pg"},
    ],
}
VALUES = {
    "replicas": 2,
    "image": {"repository": "nginx", "tag": "1.27"},
    "ingress": {"enabled": False, "hosts": ["a"]},
    "env": [{"name": "A", "value": "1"}],
    "password": "s3cret",
    "resources": {},
}
HELMRELEASE = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "web", "namespace": "flux"},
    "spec": {
        "chart": {
            "spec": {
                "chart": "./charts/web",
                "sourceRef": {"kind": "GitRepository", "name": "repo"},
            }
        },
        "targetNamespace": "apps",
        "releaseName": "web",
        "valuesFrom": [
            {"kind": "ConfigMap", "name": "web-values"},
            {
                "kind": "Secret",
                "name": "web-secret",
                "valuesKey": "v",
                "targetPath": "a.b",
                "optional": True,
            },
        ],
        "values": {"replicas": 3},
        "kubeConfig": {"secretRef": {"name": "remote"}},
    },
}
APPLICATION = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "Application",
    "metadata": {"name": "web", "namespace": "argocd"},
    "spec": {
        "destination": {"namespace": "apps", "server": "https://kubernetes.default.svc"},
        "source": {
            "repoURL": "https://example.invalid/r.git",
            "path": "charts/web",
            "helm": {
                "valueFiles": ["values-prod.yaml"],
                "values": "replicas: 4\n",
                "valuesObject": {"a": 1},
            },
        },
        "sources": [{"path": "charts/web", "helm": {"releaseName": "w"}}],
    },
}
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "web-values", "namespace": "flux"},
    "data": {"values.yaml": "image: nginx\nreplicas: 1\n"},
}
SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "web-secret", "namespace": "flux"},
    "data": {"v": "aGVsbG8="},
    "stringData": {"w": "x"},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "app",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80}],
                        "env": [{"name": "A", "value": "1"}],
                    }
                ]
            },
        },
    },
}
INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {"name": "web"},
    "spec": {
        "rules": [
            {
                "host": "a.example.com",
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "web", "port": {"number": 80}}},
                        }
                    ]
                },
            }
        ]
    },
}
LIST = {"apiVersion": "v1", "kind": "List", "items": [CONFIGMAP, DEPLOYMENT]}
SUITE = {
    "suite": "web",
    "templates": ["templates/deployment.yaml"],
    "release": {"name": "r", "namespace": "n"},
    "set": {"replicas": 3},
    "values": ["values-ci.yaml"],
    "capabilities": {"majorVersion": 1, "minorVersion": 30},
    "tests": [
        {
            "it": "sets replicas",
            "documentIndex": 0,
            "asserts": [
                {"equal": {"path": "spec.replicas", "value": 3}},
                {"isKind": {"of": "Deployment"}},
                {"matchRegex": {"path": "metadata.name", "pattern": "^r-"}},
                {"hasDocuments": {"count": 1}},
                {"contains": {"path": "spec.template.spec.containers", "content": {"name": "app"}}},
            ],
        }
    ],
}
CONFIG = {
    "kubernetes_version": "1.31",
    "rules": {
        "pss-host-namespaces": {"level": "critical", "paths": ["charts/apps/**"]},
        "commit-trailers": {"options": {"required": ["Signed-off-by"]}},
        "commit-title-convention": {"enabled": False},
    },
    "scenarios": [
        {
            "name": "prod",
            "charts": ["charts/*"],
            "values_files": ["values-prod.yaml"],
            "values": {"a": 1},
        }
    ],
    "releases": {"charts": {"shop": "charts/web"}},
}
SHA = "a" * 40
PUSH = {
    "action": "synchronize",
    "number": 5,
    "pull_request": {
        "number": 5,
        "state": "open",
        "draft": False,
        "head": {"sha": SHA},
        "base": {"sha": "b" * 40},
    },
    "repository": {"full_name": "acme/platform"},
    "installation": {"id": 7},
    "sender": {"login": "ada"},
}
COMMENT = {
    "action": "created",
    "issue": {"number": 5, "pull_request": {"url": "u"}},
    "comment": {
        "id": 9,
        "body": "@aftershock dismiss 0123456789ab because",
        "user": {"login": "ada", "type": "User"},
    },
    "repository": {"full_name": "acme/platform"},
    "installation": {"id": 7},
}
RERUN = {
    "action": "rerequested",
    "check_run": {
        "head_sha": SHA,
        "app": {"id": 42},
        "pull_requests": [{"number": 5, "base": {"sha": "b" * 40}}],
    },
    "repository": {"full_name": "acme/platform"},
    "installation": {"id": 7},
}


def _chart_yaml(text: str) -> None:
    tree = MemoryTree(
        {
            "charts/web/Chart.yaml": text,
            "charts/lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 0.1.0\n",
            "charts/web/charts/db-1.0.0.tgz": "",
            "charts/web/values.yaml": "a: 1\n",
        }
    )
    discover_charts(tree, "head")


def _values(text: str) -> None:
    after = parse_values(text, source="values.yaml")
    for change in diff_values(VALUES, after, chart="charts/web", file="values.yaml"):
        str(change)


def _release(text: str) -> None:
    objects = parse_manifests({"clusters/web.yaml": text}, chart="", namespace="default")
    lookup = {o.key: o for o in objects}
    for obj in objects:
        spec = release_spec(obj)
        if spec is not None:
            release_values(
                spec,
                lookup,
                lambda path: "a: 1\n" if path.endswith("prod.yaml") else None,
                "charts/web",
            )


def _object_diff(text: str) -> None:
    seeds = [DEPLOYMENT, INGRESS, CONFIGMAP, SECRET, HELMRELEASE]
    base = parse_manifests(
        {"web/templates/a.yaml": "\n---\n".join(json.dumps(s) for s in seeds)},
        chart="web",
        namespace="default",
    )
    head = parse_manifests({"web/templates/a.yaml": text}, chart="web", namespace="default")
    for change in diff_objects(base, head):
        str(change)


def _suite(text: str) -> None:
    parse_suite_text(text, "tests/web_test.yaml", "web")


def _config(text: str) -> None:
    parse_config(text, source=".aftershock.yaml")


def _webhook(delivery: tuple[str, Any]) -> None:
    event, payload = delivery
    intake = route(event, "d-1", payload, RoutingOptions(app_id="42"))
    if intake.job is not None:
        encoded = json.loads(json.dumps(job_to_json(intake.job)))
        assert job_from_json(encoded) == intake.job, "a job does not survive its JSON round trip"


def _deliveries(mutator: Mutator, count: int) -> Iterator[tuple[str, Any]]:
    seeds = [("pull_request", PUSH), ("issue_comment", COMMENT), ("check_run", RERUN)]
    for _ in range(count):
        event, payload = mutator.rng.choice(seeds)
        yield (
            (event if mutator.rng.random() < 0.95 else mutator.rng.choice(["ping", "", "push"])),
            (mutator.mutate(payload) if mutator.rng.random() < 0.9 else mutator.value(4)),
        )


YamlTarget = tuple[str, list[Any], Callable[[str], None], tuple[type[BaseException], ...]]
YAML_TARGETS: list[YamlTarget] = [
    ("chart_yaml", [CHART], _chart_yaml, (AftershockError,)),
    ("values", [VALUES], _values, (AftershockError,)),
    ("release", [HELMRELEASE, APPLICATION, CONFIGMAP, SECRET, LIST], _release, (AftershockError,)),
    (
        "object_diff",
        [DEPLOYMENT, INGRESS, CONFIGMAP, SECRET, HELMRELEASE, LIST],
        _object_diff,
        (AftershockError,),
    ),
    ("helm_unittest", [SUITE], _suite, (SuiteError,)),
    ("config", [CONFIG], _config, (AftershockError,)),
]
TARGET_NAMES = [name for name, *_ in YAML_TARGETS] + ["webhook"]


def fuzz_target(name: str, seed: int, count: int) -> Tally:
    """`count` inputs of one target, from `seed`."""
    mutator = Mutator(seed)
    if name == "webhook":
        return exercise(name, _deliveries(mutator, count), _webhook, (MalformedPayload,))
    _, seeds, call, allowed = next(t for t in YAML_TARGETS if t[0] == name)
    return exercise(name, mutator.yaml_inputs(seeds, count), call, allowed)
