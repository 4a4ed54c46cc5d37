"""Seeded fuzzed files for whole-repository reviews: charts, values schemas, helm-unittest suites,
Flux objects, kustomizations and plain manifests, each one input that a head commit adds to the
skeleton repository of `SKELETON`.

Every generator takes a Mutator and an input number and returns the files of that one input
(repository path -> text), all under a folder or name of its own, so many inputs can share a head
commit and each still be reviewed as its own unit. Values are mutated structurally (odd scalars,
nulls, lists where maps are expected, huge, unicode and binary-ish strings), as text (truncations,
stray YAML tokens) or wholly random.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness import Mutator

KINDS = ("chart", "schema", "suite", "flux", "kustomization", "plain")
EXTRA_STRINGS = (
    "x" * 70_000,
    "ÿ\x01\x02\x7f\x1b[31m\ufffd",
    "名前-ñ-💥",
    "\u202e\u200d",
    "../../../../../../etc",
    "/proc/self",
    "https://user:pw@example.invalid/r.git",
    "oci://ghcr.io/x/y",
    "${HOME}",
    "$${x}",
    "${a:=${b}}",
    "${var@Q}",
)
APP_TEMPLATES = ("templates/deployment.yaml", "templates/configmap.yaml", "templates/secret.yaml")
SKELETON = {
    "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    "charts/app/values.yaml": "replicas: 1\nimage: {repository: nginx, tag: '1.27'}\n"
    "config: {a: '1'}\npassword: s3cr3t-value\n",
    "charts/app/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\n"
    "metadata: {name: {{ .Release.Name }}-app}\nspec:\n  replicas: {{ .Values.replicas }}\n"
    "  selector: {matchLabels: {app: app}}\n  template:\n    metadata: {labels: {app: app}}\n"
    "    spec:\n      containers:\n        - name: app\n"
    '          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"\n',
    "charts/app/templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\n"
    "metadata: {name: app-config}\ndata:\n{{ toYaml .Values.config | indent 2 }}\n",
    "charts/app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: app}\n"
    "stringData: {password: {{ .Values.password | quote }}}\n",
    "charts/app/tests/app_test.yaml": "suite: app\ntemplates: [templates/deployment.yaml]\n"
    "tests:\n  - it: sets replicas\n    set: {replicas: 2}\n"
    "    asserts: [{equal: {path: spec.replicas, value: 2}}]\n",
    "deploy/app/kustomization.yaml": "resources: [deployment.yaml]\n",
    "deploy/app/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
    "spec:\n  replicas: ${replicas:=1}\n  selector: {matchLabels: {app: web}}\n  template:\n"
    "    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
    "deploy/component/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\n"
    "kind: Component\ncommonLabels: {team: a}\n",
    "clusters/prod/source.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
    "metadata: {name: flux-system, namespace: flux-system}\n"
    "spec: {interval: 1m, url: 'https://example.invalid/r.git', ref: {branch: main}}\n",
}
SUITE = {
    "suite": "fuzzed",
    "templates": list(APP_TEMPLATES),
    "release": {"name": "r", "namespace": "n", "revision": 1, "upgrade": False},
    "set": {"replicas": 3, "image.tag": "1.28"},
    "values": ["../values.yaml"],
    "capabilities": {"majorVersion": 1, "minorVersion": 30, "apiVersions": ["v1"]},
    "chart": {"version": "1.0.0", "appVersion": "1.0"},
    "tests": [
        {
            "it": "renders",
            "template": "templates/deployment.yaml",
            "documentIndex": 0,
            "set": {"replicas": 2},
            "values": [],
            "asserts": [
                {"equal": {"path": "spec.replicas", "value": 2}},
                {"isKind": {"of": "Deployment"}},
                {"matchRegex": {"path": "metadata.name", "pattern": "^r-"}},
                {"hasDocuments": {"count": 1}},
                {"contains": {"path": "spec.template.spec.containers", "content": {"name": "app"}}},
                {"notExists": {"path": "spec.x"}, "not": True, "documentIndex": 0},
            ],
        },
        {
            "it": "secret",
            "templates": ["templates/secret.yaml"],
            "documentSelector": {"path": "metadata.name", "value": "app"},
            "asserts": [{"equal": {"path": "stringData.password", "value": "s3cr3t-value"}}],
        },
    ],
}
KUSTOMIZATION_FLUX = {
    "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
    "kind": "Kustomization",
    "metadata": {"name": "apps", "namespace": "flux-system"},
    "spec": {
        "interval": "10m",
        "path": "./deploy/app",
        "prune": True,
        "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
        "targetNamespace": "web",
        "dependsOn": [{"name": "infra"}],
        "components": ["../component"],
        "patches": [
            {
                "patch": "- op: add\n  path: /metadata/labels/x\n  value: y\n",
                "target": {"kind": "Deployment"},
            }
        ],
        "images": [{"name": "nginx", "newTag": "1.28"}],
        "namePrefix": "p-",
        "postBuild": {
            "substitute": {"replicas": "2"},
            "substituteFrom": [{"kind": "ConfigMap", "name": "vars", "optional": True}],
        },
    },
}
HELMRELEASE = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "app", "namespace": "flux-system"},
    "spec": {
        "interval": "5m",
        "chart": {
            "spec": {
                "chart": "./charts/app",
                "version": "*",
                "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
            }
        },
        "releaseName": "app",
        "targetNamespace": "apps",
        "dependsOn": [{"name": "infra", "namespace": "flux-system"}],
        "values": {"replicas": 3, "config": {"b": "2"}},
        "valuesFrom": [
            {"kind": "ConfigMap", "name": "app-values", "valuesKey": "values.yaml"},
            {"kind": "Secret", "name": "app-secret", "targetPath": "password", "optional": True},
        ],
        "postRenderers": [{"kustomize": {"patches": [{"patch": "kind: X"}]}}],
    },
}
SOURCES = (
    {
        "apiVersion": "source.toolkit.fluxcd.io/v1beta2",
        "kind": "OCIRepository",
        "metadata": {"name": "oci", "namespace": "flux-system"},
        "spec": {
            "url": "oci://ghcr.io/a/b",
            "ref": {"tag": "1.0", "semver": ">=1"},
            "layerSelector": {},
        },
    },
    {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "HelmRepository",
        "metadata": {"name": "charts", "namespace": "flux-system"},
        "spec": {
            "url": "https://charts.example.invalid",
            "type": "oci",
            "secretRef": {"name": "s"},
        },
    },
    {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "GitRepository",
        "metadata": {"name": "other", "namespace": "flux-system"},
        "spec": {
            "url": "ssh://git@example.invalid/r",
            "ref": {"tag": "v1"},
            "include": [{"repository": {"name": "x"}}],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app-values", "namespace": "flux-system"},
        "data": {"values.yaml": "replicas: 5\n"},
    },
)
KUSTOMIZATION = {
    "apiVersion": "kustomize.config.k8s.io/v1beta1",
    "kind": "Kustomization",
    "namespace": "k",
    "namePrefix": "a-",
    "resources": ["deployment.yaml", "../../deploy/app"],
    "components": ["../../deploy/component"],
    "patches": [
        {"path": "patch.yaml"},
        {
            "patch": "- op: replace\n  path: /spec/replicas\n  value: 3\n",
            "target": {"kind": "Deployment", "name": "web"},
        },
    ],
    "patchesStrategicMerge": ["patch.yaml"],
    "patchesJson6902": [{"target": {"kind": "Deployment", "name": "web"}, "path": "patch.yaml"}],
    "configMapGenerator": [
        {"name": "cfg", "literals": ["a=b"], "files": ["deployment.yaml"], "envs": ["x.env"]}
    ],
    "secretGenerator": [{"name": "sec", "literals": ["password=hunter2hunter2"], "type": "Opaque"}],
    "generatorOptions": {"disableNameSuffixHash": True},
    "images": [{"name": "nginx", "newName": "n", "newTag": "1", "digest": "sha256:" + "0" * 64}],
    "replicas": [{"name": "web", "count": 2}],
    "labels": [{"pairs": {"a": "b"}, "includeSelectors": False}],
    "commonAnnotations": {"x": "y"},
    "crds": ["crd.yaml"],
    "generators": ["gen.yaml"],
    "transformers": ["t.yaml"],
}
KUSTOMIZE_RESOURCE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 1,
        "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}},
    },
}
CHART_VALUES = {
    "objects": [
        KUSTOMIZE_RESOURCE,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "s"},
            "spec": {"ports": [{"port": 80}]},
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "t"},
            "stringData": {"token": "abcdefgh1234"},
        },
        HELMRELEASE,
    ]
}


class RepoMutator(Mutator):
    """A Mutator whose odd strings include huge, unicode, binary-ish and path-escaping ones."""

    def scalar(self) -> Any:
        if self.rng.random() < 0.08:
            text = self.rng.choice(EXTRA_STRINGS)
            return text if len(text) < 1000 or self.rng.random() < 0.2 else text[:200]
        return super().scalar()

    def document(self, seed: Any, text_share: float = 0.27) -> str:
        """One YAML text from `seed`: mutated structure (mostly), mutated text, or a random value."""
        roll = self.rng.random()
        if roll < 0.92 - text_share:
            return self.yaml_text(self.mutate(seed))
        if roll < 0.92:
            text = self.yaml_text(seed)
            for _ in range(self.rng.randint(1, 3)):
                text = self.mutate_text(text)
            return text
        return self.yaml_text(self.value(3))


def chart_input(m: RepoMutator, n: int) -> dict[str, str]:
    """A new chart rendering whatever objects its values list, now and then with broken metadata."""
    folder = f"charts/fuzz-{n}"
    chart = {"apiVersion": "v2", "name": f"fuzz-{n}", "version": "0.1.0"}
    files = {
        f"{folder}/Chart.yaml": m.document(chart) if m.rng.random() < 0.01 else m.yaml_text(chart),
        f"{folder}/values.yaml": _chart_values(m),
        f"{folder}/templates/objects.yaml": "{{- range .Values.objects }}\n---\n{{ toYaml . }}\n{{- end }}\n",
    }
    if m.rng.random() < 0.1:
        files[f"{folder}/values.schema.json"] = m.mutate_text(
            '{"type": "object", "properties": {"objects": {"type": "array"}}}'
        )
    return files


def _chart_values(m: RepoMutator) -> str:
    """Values whose top level stays a mapping but for 1 in 100: a values file that does not parse or
    is not a mapping refuses the whole review (exit 2), so it is rare, and a batch is mostly reviewed."""
    if m.rng.random() < 0.01:
        return m.document(CHART_VALUES)
    return m.yaml_text({"objects": m.mutate(CHART_VALUES["objects"]), "x": m.value(2)})


def suite_input(m: RepoMutator, n: int) -> dict[str, str]:
    """A copy of the skeleton's chart with one fuzzed suite: one broken suite errors its chart's whole
    run. Now and then its Chart.yaml names its dependencies with a scalar, or the values file the
    suite reads mixes integer and boolean keys with string ones (two crashes of issue 31)."""
    folder = f"charts/suite-{n}"
    files = {
        path.replace("charts/app/", f"{folder}/"): text
        for path, text in SKELETON.items()
        if path.startswith("charts/app/") and not path.endswith("_test.yaml")
    }
    files[f"{folder}/Chart.yaml"] = f"apiVersion: v2\nname: suite-{n}\nversion: 0.1.0\n"
    if m.rng.random() < 0.1:
        files[f"{folder}/Chart.yaml"] += f"dependencies: {m.yaml_text(m.scalar()).strip()}\n"
    suite = SUITE
    if m.rng.random() < 0.3:
        suite = {**SUITE, "values": ["mixed.yaml"]}
        files[f"{folder}/tests/mixed.yaml"] = m.rng.choice(MIXED_KEYS)
    files[f"{folder}/tests/fuzz_test.yaml"] = m.document(suite)
    return files


MIXED_KEYS = (
    "1: x\ntrue: y\nreplicas: 2\n",
    "config: {a: '1', 2: b, false: c, 2.5: d}\n",
    "image: {repository: nginx, 1: x}\nlist: [{1: a, b: c}]\n",
    "? [1, 2]\n: x\nreplicas: 1\n",
)
# Schema fragments Helm's validator and the schema rule must take without fetching, opening a file
# or hanging: patterns (catastrophic for a backtracking engine, or not RE2), references (in the
# document, to another file, out of the repository, over the network on loopback's discard port),
# a reference bomb, deep nesting.
SCHEMA_PARTS: tuple[Any, ...] = (
    {"type": "string", "pattern": "^(a+)+$"},
    {"type": "string", "pattern": "(?<=x)y"},
    {"type": "string", "pattern": "^[[:alpha:]]+$"},
    {
        "type": "object",
        "patternProperties": {"^(a|a)*$": {"type": "integer"}},
        "additionalProperties": False,
    },
    {"$ref": "#/$defs/leaf"},
    {"$ref": "#/$defs/missing"},
    {"$ref": "schemas/part.json#/x"},
    {"$ref": "../../../../etc/hostname"},
    {"$ref": "file:///etc/hostname"},
    {"$ref": "http://127.0.0.1:9/x.json"},
    {"$dynamicRef": "http://127.0.0.1:9/d.json"},
    {"$schema": "http://127.0.0.1:9/meta"},
    {"allOf": [{"$ref": "#/$defs/d0"}]},
    {"not": {"not": {"not": {"type": "null"}}}},
)


def _bomb(depth: int) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"type": "string"}
    return defs


def _nested(depth: int) -> str:
    """A schema nested `depth` objects deep, as text (too deep for json.dumps)."""
    return '{"type": "object", "properties": {"x": ' * depth + '{"type": "string"}' + "}}" * depth


def schema_input(m: RepoMutator, n: int) -> dict[str, str]:
    """A chart whose values.schema.json mixes hostile parts, with values that reach them."""
    folder = f"charts/schema-{n}"
    keys = [f"k{i}" for i in range(m.rng.randint(1, 4))]
    properties = {key: m.rng.choice(SCHEMA_PARTS) for key in keys}
    if m.rng.random() < 0.15:
        properties["deep"] = "DEEP"
    schema: dict[str, Any] = {
        "$defs": {"leaf": {"type": "string"}, **_bomb(m.rng.choice((2, 8, 40)))},
        "properties": properties,
    }
    text = json.dumps(schema).replace('"DEEP"', _nested(m.rng.choice((20, 200, 2000))))
    values = {
        key: m.rng.choice(("a" * 40 + "!", "x", 1, {"aaaaaaaaaaaaaaaaaaaaaaaaa!": 1}, None))
        for key in keys
    }
    files = {
        f"{folder}/Chart.yaml": f"apiVersion: v2\nname: schema-{n}\nversion: 0.1.0\n",
        f"{folder}/values.yaml": m.yaml_text(values),
        f"{folder}/values.schema.json": m.mutate_text(text) if m.rng.random() < 0.1 else text,
        f"{folder}/schemas/part.json": '{"x": {"type": "string", "pattern": "^(a|aa)+$"}}',
        f"{folder}/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
        "data: {v: {{ toJson .Values | quote }}}\n",
    }
    return files


def plain_input(m: RepoMutator, n: int) -> dict[str, str]:
    """A folder of plain manifests (one to three documents), outside any chart or kustomization."""
    seeds = [
        KUSTOMIZE_RESOURCE,
        *SOURCES[3:],
        CHART_VALUES["objects"][1],
        CHART_VALUES["objects"][2],
    ]
    documents = []
    for index in range(m.rng.randint(1, 3)):
        seed = m.rng.choice(seeds)
        named = {**seed, "metadata": {**seed["metadata"], "name": f"plain-{n}-{index}"}}
        documents.append(m.document(named))
    return {f"manifests/plain-{n}/objects.yaml": "---\n".join(documents)}


def flux_input(m: RepoMutator, n: int) -> dict[str, str]:
    """One file of one to three Flux objects (a Kustomization or HelmRelease most often), renamed per input."""
    seeds = [KUSTOMIZATION_FLUX, HELMRELEASE, *SOURCES]
    documents = []
    for _ in range(m.rng.randint(1, 3)):
        seed = m.rng.choice(seeds[:2] * 3 + seeds[2:])
        named = {
            **seed,
            "metadata": {**seed["metadata"], "name": f"{seed['metadata']['name']}-{n}"},
        }
        documents.append(m.document(named))
    return {f"clusters/prod/fuzz-{n}.yaml": "---\n".join(documents)}


def kustomization_input(m: RepoMutator, n: int) -> dict[str, str]:
    """A kustomization folder; a third of them also reference a sibling that references them back."""
    folder = f"kfuzz/k{n}"
    seed = dict(KUSTOMIZATION)
    if m.rng.random() < 0.05:
        seed["helmCharts"] = [{"name": "app", "repo": "https://example.invalid"}]
    if m.rng.random() < 0.3:
        seed["resources"] = [*seed["resources"], f"../k{n}-loop", ".", "../../.."]
    files = {
        f"{folder}/kustomization.yaml": m.document(seed),
        f"{folder}/deployment.yaml": m.document(KUSTOMIZE_RESOURCE)
        if m.rng.random() < 0.3
        else m.yaml_text(KUSTOMIZE_RESOURCE),
        f"{folder}/patch.yaml": m.yaml_text(m.mutate(KUSTOMIZE_RESOURCE)),
        f"{folder}/x.env": m.rng.choice(["A=1\n", "=\n", "no-equals\n", "\x00=\x01\n"]),
    }
    if "../k" in files[f"{folder}/kustomization.yaml"] or m.rng.random() < 0.1:
        files[f"kfuzz/k{n}-loop/kustomization.yaml"] = f"resources: [../k{n}]\n"
    return files


GENERATORS: dict[str, Callable[[RepoMutator, int], dict[str, str]]] = {
    "chart": chart_input,
    "schema": schema_input,
    "suite": suite_input,
    "flux": flux_input,
    "kustomization": kustomization_input,
    "plain": plain_input,
}


def fuzzed_inputs(kind: str, seed: int, first: int, count: int) -> list[dict[str, str]]:
    """`count` inputs of `kind`, numbered from `first`, the same for the same seed and first."""
    m = RepoMutator(seed * 1_000_003 + first, finite=True)
    return [GENERATORS[kind](m, first + i) for i in range(count)]
