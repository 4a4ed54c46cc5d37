"""End-to-end fuzzing through the real CLI, in-process (click's runner), on real git repositories.

Each run builds a repository whose base holds a chart that renders whatever objects its values list
(`toYaml`), a second chart, plain release manifests and a helm-unittest suite, and whose head holds
mutations of them: objects with fields of the wrong type, broken manifests, odd suites, now and then
a broken Chart.yaml or configuration. `aftershock review` must end in a report, *not reviewed* or one
error line (exit 0, 2, 3), never exit 70 or a traceback.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner
from harness import Failure, Mutator, Tally
from targets import APPLICATION, CONFIG, CONFIGMAP, DEPLOYMENT, HELMRELEASE, INGRESS, SECRET, SUITE

from aftershock.cli.main import cli
from gitrepo import commit, make_repo

ACCEPTED_EXITS = (0, 2, 3)
SHAPES_TEMPLATE = "{{- range .Values.objects }}\n---\n{{ toYaml . }}\n{{- end }}\n"
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web"},
    "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]},
}
BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "RoleBinding",
    "metadata": {"name": "web"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "web"},
    "subjects": [{"kind": "ServiceAccount", "name": "web", "namespace": "default"}],
}
DAEMONSET = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "agent"},
    "spec": {
        "selector": {"matchLabels": {"app": "agent"}},
        "template": {
            "metadata": {"labels": {"app": "agent"}},
            "spec": {
                "hostPID": False,
                "containers": [
                    {"name": "a", "image": "busybox:1.36", "securityContext": {"privileged": False}}
                ],
            },
        },
    },
}
OBJECTS = [
    DEPLOYMENT,
    SERVICE,
    INGRESS,
    BINDING,
    DAEMONSET,
    {
        **HELMRELEASE,
        "spec": {
            **HELMRELEASE["spec"],
            "chart": {
                "spec": {
                    "chart": "./charts/web",
                    "sourceRef": {"kind": "GitRepository", "name": "repo"},
                }
            },
        },
    },
    CONFIGMAP,
    SECRET,
]
RELEASES = [
    {
        **APPLICATION,
        "spec": {
            **APPLICATION["spec"],
            "sources": [],
            "source": {
                "repoURL": "https://example.invalid/r.git",
                "path": "charts/web",
                "helm": {"valueFiles": ["values.yaml"]},
            },
        },
    },
    CONFIGMAP,
]
WEB = {
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "charts/web/values.yaml": "replicas: 1\n",
    "charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n"
    "data: {replicas: {{ .Values.replicas | quote }}}\n",
}


def _yaml_stream(mutator: Mutator, documents: list) -> str:
    return "---\n".join(mutator.yaml_text(d) for d in documents)


def base_files(mutator: Mutator) -> dict[str, str]:
    suite = {
        **SUITE,
        "templates": ["templates/objects.yaml"],
        "tests": [{"it": "renders", "asserts": [{"hasDocuments": {"count": len(OBJECTS)}}]}],
    }
    return {
        **WEB,
        "charts/shapes/Chart.yaml": "apiVersion: v2\nname: shapes\nversion: 0.1.0\n",
        "charts/shapes/values.yaml": mutator.yaml_text({"objects": OBJECTS}),
        "charts/shapes/templates/objects.yaml": SHAPES_TEMPLATE,
        "charts/shapes/tests/objects_test.yaml": mutator.yaml_text(suite),
        "clusters/releases.yaml": _yaml_stream(mutator, RELEASES),
    }


def head_files(mutator: Mutator, base: dict[str, str]) -> dict[str, str]:
    """The base's files with a mutated values list and, by chance, other broken files."""
    rng = mutator.rng
    head = {
        "charts/shapes/values.yaml": mutator.yaml_text(
            mutator.mutate({"objects": OBJECTS}, rng.randint(1, 4))
        )
    }
    if rng.random() < 0.6:
        head["clusters/releases.yaml"] = (
            _yaml_stream(mutator, [mutator.mutate(d) for d in RELEASES])
            if rng.random() < 0.7
            else mutator.mutate_text(base["clusters/releases.yaml"])
        )
    if rng.random() < 0.3:
        head["charts/shapes/tests/objects_test.yaml"] = mutator.mutate_text(
            base["charts/shapes/tests/objects_test.yaml"]
        )
    if rng.random() < 0.1:
        head["charts/web/Chart.yaml"] = mutator.mutate_text(WEB["charts/web/Chart.yaml"])
    if rng.random() < 0.05:
        head["charts/web/values.yaml"] = mutator.yaml_text(mutator.value(3))
    return head


def cli_run(folder: Path, seed: int) -> Tally:
    """One review of a fuzzed change; the tally holds one input, and its failure if it had one."""
    mutator = Mutator(seed, finite=True)
    started = time.monotonic()
    repo = make_repo(folder)
    base = base_files(mutator)
    base_sha = commit(repo, base, "feat: shapes")
    commit(repo, head_files(mutator, base), "fix: fuzzed")
    args = [
        "review",
        "--repo",
        str(repo),
        "--base",
        base_sha,
        "--no-state",
        "--render-cache",
        "off",
        "--workers",
        "1",
        "--render-timeout",
        "20",
        "--format",
        mutator.rng.choice(["json", "markdown", "sarif", "terminal"]),
    ]
    if mutator.rng.random() < 0.6:
        args.append("--no-tests")
    if mutator.rng.random() < 0.08:
        config = folder / "config.yaml"
        config.write_text(mutator.yaml_text(mutator.mutate(CONFIG)), encoding="utf-8")
        args += ["--config", str(config)]
    result = CliRunner().invoke(cli, args)
    tally = Tally(
        inputs={"cli": 1}, seconds=time.monotonic() - started, exits={result.exit_code: 1}
    )
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    crashed = (
        result.exit_code not in ACCEPTED_EXITS
        or "Traceback" in output
        or "internal error" in output
        or not isinstance(result.exception, (SystemExit, type(None)))
    )
    if crashed:
        shown = json.dumps({"seed": seed, "args": args[5:], "exit": result.exit_code})
        tally.failures.append(Failure("cli", seed, shown, output[-3000:]))
    return tally
