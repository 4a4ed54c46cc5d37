#!/usr/bin/env python3
"""Benchmark of the rule pass on a large generated set of rendered manifests, against checkov.

Usage: python benchmarks/bench_rules.py [--charts N] [--repeat R] [--checkov PATH] [--json FILE]

Generates N charts' rendered manifests (a Deployment, a DaemonSet, a StatefulSet, a Service, an
Ingress, a Role and a ConfigMap each) with Pod Security violations injected at fixed rates by a
seeded generator, writes them as one YAML file per chart, then in the same run:

(a) aftershock: parse the files (`parse_manifests`), diff them against an empty base
    (`diff_objects`, so every object is new) and run every rule (`evaluate`), under the garbage
    collector's thresholds of a review (`pipeline.collector`, as `review_change` runs); timed with
    and without the parse and diff;
(b) checkov: `checkov --framework kubernetes -d DIR -o json` on the same files, when a checkov
    executable is found (default: /tmp/checkov-venv/bin/checkov; install it into its own venv,
    never into the project's). Without it the run says so and reports aftershock alone.

The full passes (a) and the checkov runs (b) alternate, `--repeat` of each, so that the machine's
load weighs on both alike; the ratio is of their medians (the first pass loads and compiles the
schemas: its time is in the JSON). The rule pass is also timed alone and without
`object-schema-invalid`, for the cost of schema validation. Each timing is the median of `--repeat`
runs. Target: checkov/aftershock >= 20 (issue 24). For the controls both tools cover, the injected
(true) violations each tool reports are counted, per control.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from aftershock.config.settings import AftershockConfig
from aftershock.diff.objects import diff_objects
from aftershock.ingest.object_documents import parse_manifests
from aftershock.model.change import Side
from aftershock.model.review import (
    ChartOutcome,
    ChartRender,
    ChartReview,
    RefInfo,
    RenderStatus,
    Review,
    ReviewOptions,
)
from aftershock.model.units import AffectedChart, AffectStep
from aftershock.model.validated import validated
from aftershock.pipeline.collector import review_collector
from aftershock.rules.engine import evaluate

SEED = 20250311
# control -> (injection rate, aftershock rule, facet or None, checkov check id)
CONTROLS: dict[str, tuple[float, str, str | None, str]] = {
    "hostPID": (0.10, "pss-host-namespaces", "hostPID", "CKV_K8S_17"),
    "hostIPC": (0.05, "pss-host-namespaces", "hostIPC", "CKV_K8S_18"),
    "hostNetwork": (0.10, "pss-host-namespaces", "hostNetwork", "CKV_K8S_19"),
    "privileged": (0.10, "pss-privileged", None, "CKV_K8S_16"),
    "allowPrivilegeEscalation": (0.10, "pss-privilege-escalation", None, "CKV_K8S_20"),
    "latestTag": (0.15, "image-latest-tag", None, "CKV_K8S_14"),
    "hostPort": (0.10, "pss-host-ports", None, "CKV_K8S_26"),
    "runAsRoot": (0.08, "pss-run-as-non-root", None, "CKV_K8S_23"),
}
DEFAULT_CHECKOV = "/tmp/checkov-venv/bin/checkov"
SCHEMA_RULE = (
    "object-schema-invalid"  # timed apart: schema validation may add at most 2x to the rule pass
)


def container(name: str, violations: set[str]) -> dict[str, Any]:
    security: dict[str, Any] = {
        "runAsNonRoot": "runAsRoot" not in violations,
        "allowPrivilegeEscalation": "allowPrivilegeEscalation" in violations,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    if "privileged" in violations:
        security["privileged"] = True
    image = (
        "registry.example.com/team/app:latest"
        if "latestTag" in violations
        else "registry.example.com/team/app:1.2.3@sha256:" + "a" * 64
    )
    port: dict[str, Any] = {"containerPort": 8080}
    if "hostPort" in violations:
        port["hostPort"] = 8080
    return {
        "name": name,
        "image": image,
        "imagePullPolicy": "Always",
        "ports": [port],
        "securityContext": security,
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi"},
        },
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
    }


def workload(kind: str, name: str, namespace: str, violations: set[str]) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "automountServiceAccountToken": False,
        "serviceAccountName": name,
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container("app", violations)],
    }
    for field in ("hostPID", "hostIPC", "hostNetwork"):
        if field in violations:
            pod[field] = True
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": pod},
    }
    if kind == "StatefulSet":
        spec["serviceName"] = name
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def chart_documents(
    index: int, rng: random.Random
) -> tuple[list[dict[str, Any]], dict[str, set[str]]]:
    """The objects of chart `index` and, per workload name, the violations injected into it."""
    namespace, docs, truth = f"team-{index % 17}", [], {}
    for kind in ("Deployment", "DaemonSet", "StatefulSet"):
        name = f"c{index}-{kind.lower()}"
        violations = {control for control, (rate, *_) in CONTROLS.items() if rng.random() < rate}
        truth[name] = violations
        docs.append(workload(kind, name, namespace, violations))
    base = f"c{index}"
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": base, "namespace": namespace},
            "spec": {"selector": {"app": base}, "ports": [{"port": 80, "targetPort": 8080}]},
        }
    )
    docs.append(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": base, "namespace": namespace},
            "spec": {
                "tls": [{"hosts": [f"{base}.example.com"], "secretName": f"{base}-tls"}],
                "rules": [
                    {
                        "host": f"{base}.example.com",
                        "http": {
                            "paths": [
                                {
                                    "path": "/",
                                    "pathType": "Prefix",
                                    "backend": {"service": {"name": base, "port": {"number": 80}}},
                                }
                            ]
                        },
                    }
                ],
            },
        }
    )
    docs.append(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": base, "namespace": namespace},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}],
        }
    )
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": base, "namespace": namespace},
            "data": {"LOG_LEVEL": "info", "application.yaml": "server:\n  port: 8080\n"},
        }
    )
    return docs, truth


def generate(folder: Path, charts: int) -> dict[str, set[str]]:
    rng, truth = random.Random(SEED), {}
    for index in range(charts):
        docs, chart_truth = chart_documents(index, rng)
        truth.update(chart_truth)
        (folder / f"chart-{index:04d}.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return truth


def aftershock_review(folder: Path) -> Review:
    """Every file as one chart rendered at head only, parsed and diffed as the pipeline does."""
    reviews = []
    for path in sorted(folder.glob("*.yaml")):
        chart = f"charts/{path.stem}"
        objects = parse_manifests(
            {f"{path.stem}/templates/all.yaml": path.read_text()}, chart=chart, namespace="default"
        )
        affected = AffectedChart(
            chart,
            (
                AffectStep("file", f"{chart}/values.yaml", "changed"),
                AffectStep("chart", chart, "holds the file"),
            ),
        )
        reviews.append(
            ChartReview(
                chart,
                path.stem,
                affected,
                ChartRender(Side.BASE, RenderStatus.ABSENT),
                ChartRender(Side.HEAD, RenderStatus.OK, len(objects)),
                ChartOutcome.CHANGED,
                diff_objects((), objects),
                base_objects=(),
                head_objects=objects,
            )
        )
    return Review(
        "bench",
        RefInfo("base", "0" * 40),
        RefInfo("head", "1" * 40),
        ReviewOptions("bench", "default", "none", "0"),
        (),
        (),
        (),
        (),
        (),
        tuple(r.affected for r in reviews),
        tuple(reviews),
    )


def aftershock_true_findings(findings: tuple, truth: dict[str, set[str]]) -> dict[str, int]:
    found: dict[str, int] = dict.fromkeys(CONTROLS, 0)
    for control, (_, rule, facet, _) in CONTROLS.items():
        names = {
            f.subject.id.rsplit("/", 1)[-1]
            for f in findings
            if f.rule_id == rule and (facet is None or f.subject.facet == facet)
        }
        found[control] = sum(
            1 for name, injected in truth.items() if control in injected and name in names
        )
    return found


def run_checkov(executable: str, folder: Path) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    completed = subprocess.run(
        [
            executable,
            "--framework",
            "kubernetes",
            "-d",
            str(folder),
            "-o",
            "json",
            "--quiet",
            "--compact",
            "--skip-download",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if not completed.stdout.strip():
        raise RuntimeError(f"checkov produced no output: {completed.stderr.strip()[:300]}")
    report = json.loads(completed.stdout)
    return seconds, report[0] if isinstance(report, list) else report


def checkov_true_findings(report: dict[str, Any], truth: dict[str, set[str]]) -> dict[str, int]:
    failed = report.get("results", {}).get("failed_checks", [])
    by_check: dict[str, set[str]] = {}
    for entry in failed:
        by_check.setdefault(entry["check_id"], set()).add(entry["resource"].rsplit(".", 1)[-1])
    return {
        control: sum(
            1
            for name, injected in truth.items()
            if control in injected and name in by_check.get(check, set())
        )
        for control, (_, _, _, check) in CONTROLS.items()
    }


def median_seconds(action: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        result = None  # as in `_interleaved`: the last result is not freed on the clock
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkov", default=DEFAULT_CHECKOV)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aftershock-bench-rules-") as tmp:
        folder = Path(tmp)
        truth = generate(folder, args.charts)
        objects = args.charts * 7
        checkov = shutil.which(args.checkov) or (
            args.checkov if Path(args.checkov).exists() else None
        )
        full_times, checkov_times, (review, findings), report = _interleaved(
            folder, checkov, args.repeat
        )
        full = statistics.median(full_times)
        rules_only, _ = median_seconds(lambda: evaluate(review, AftershockConfig()), args.repeat)
        no_schema = validated(AftershockConfig, {"rules": {SCHEMA_RULE: {"enabled": False}}})
        without_schema, _ = median_seconds(lambda: evaluate(review, no_schema), args.repeat)
        result: dict[str, Any] = {
            "charts": args.charts,
            "objects": objects,
            "injected": {c: sum(c in v for v in truth.values()) for c in CONTROLS},
            "aftershock": {
                "seconds_parse_diff_rules": round(full, 3),
                "seconds_each_full_pass": [
                    round(t, 3) for t in full_times
                ],  # the first loads schemas
                "seconds_rules_only": round(rules_only, 3),
                "seconds_rules_without_schema": round(without_schema, 3),
                "schema_ratio": round(rules_only / without_schema, 2),
                "findings": len(findings),
                "true_findings": aftershock_true_findings(findings, truth),
            },
        }
        if checkov is None or report is None:
            result["checkov"] = {
                "available": False,
                "reason": f"no checkov executable at {args.checkov}",
            }
        else:
            # the median of the whole subprocess, start-up included, as a user runs it
            seconds = statistics.median(checkov_times)
            result["checkov"] = {
                "available": True,
                "version": _version(checkov),
                "seconds": round(seconds, 3),
                "seconds_each_run": [round(t, 3) for t in checkov_times],
                "failed_checks": len(report.get("results", {}).get("failed_checks", [])),
                "true_findings": checkov_true_findings(report, truth),
            }
            result["ratio_checkov_over_aftershock"] = round(seconds / full, 1)
    _print(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def _interleaved(
    folder: Path, checkov: str | None, repeat: int
) -> tuple[list[float], list[float], tuple[Review, tuple], dict[str, Any] | None]:
    """`repeat` full passes of aftershock, each followed by a checkov run when there is one: the
    machine's load then weighs on both alike. Their seconds, the last pass and checkov's report."""
    full_times: list[float] = []
    checkov_times: list[float] = []
    report: dict[str, Any] | None = None
    passed: tuple[Review, tuple] | None = None
    for _ in range(repeat):
        passed = (
            None  # the last pass's review freed before the clock starts, not timed with this one
        )
        started = time.perf_counter()
        passed = _full_pass(folder)
        full_times.append(time.perf_counter() - started)
        if checkov is not None:
            seconds, report = run_checkov(checkov, folder)
            checkov_times.append(seconds)
    assert passed is not None
    return full_times, checkov_times, passed, report


def _full_pass(folder: Path) -> tuple[Review, tuple]:
    with review_collector():  # the collector's thresholds of a review in the pipeline
        review = aftershock_review(folder)
        return review, evaluate(review, AftershockConfig())


def _version(executable: str) -> str:
    completed = subprocess.run(
        [executable, "--version"], capture_output=True, text=True, check=False
    )
    return completed.stdout.strip() or "?"


def _print(result: dict[str, Any]) -> None:
    ours = result["aftershock"]
    print(f"{result['charts']} charts, {result['objects']} objects")
    print(
        f"aftershock: {ours['seconds_parse_diff_rules']:.3f} s parse+diff+rules ({ours['seconds_rules_only']:.3f} s rules only), "
        f"{ours['findings']} findings"
    )
    print(
        f"rules without {SCHEMA_RULE}: {ours['seconds_rules_without_schema']:.3f} s; schema validation makes the rule pass "
        f"{ours['schema_ratio']}x (target <= 2x)"
    )
    theirs = result["checkov"]
    if not theirs["available"]:
        print(f"checkov: not run ({theirs['reason']})")
        return
    print(
        f"checkov {theirs['version']}: {theirs['seconds']:.3f} s, {theirs['failed_checks']} failed checks"
    )
    print(f"ratio checkov/aftershock: {result['ratio_checkov_over_aftershock']}x (target >= 20x)")
    print(f"{'control':26} {'injected':>8} {'aftershock':>10} {'checkov':>8}")
    for control in CONTROLS:
        print(
            f"{control:26} {result['injected'][control]:8} {ours['true_findings'][control]:10} {theirs['true_findings'][control]:8}"
        )


if __name__ == "__main__":
    sys.exit(main())
