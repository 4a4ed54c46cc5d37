"""A GitOps fleet: a one-overlay change reviewed, against building every Flux Kustomization at both refs.

A generated fleet repository: --clusters clusters (default 50), each with --apps Flux Kustomizations
(default 40) building `apps/overlays/<cluster>/<app>`, an overlay of `apps/base/<app>` (a Deployment and
a Service) with a replicas patch, `targetNamespace` and a `postBuild.substitute` variable. The change
under review edits one overlay's patch. Timed in the same run, median of --repeat:

- the review (`review_change`: git, discovery of every Kustomization at both refs, the build of the one it
  reaches, diff, rules);
- the naive path: every Kustomization built at base and at head with the same builder (one kustomize
  worker, as the review uses), plus the same discovery;
and the peak RSS of the process and of its children (the kustomize worker), from getrusage.

The naive path runs once by default (--naive-repeat): at the default size it takes about a minute and a half.

    python benchmarks/bench_fleet.py [--clusters 50] [--apps 40] [--repeat 3] [--naive-repeat 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aftershock.ingest.gitops.flux import find_flux_kustomizations
from aftershock.ingest.gitops.kustomizations import find_kustomizations
from aftershock.ingest.gitops.manifests import plain_manifests
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline.builds.flux import FluxSide, build_closure, build_side
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.kustomize import PyKustomizeBuilder

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {app}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {app}}}}}
  template:
    metadata: {{labels: {{app: {app}}}}}
    spec:
      containers:
        - name: {app}
          image: ghcr.io/example/{app}:1.0.0
          env: [{{name: CLUSTER, value: "${{cluster}}"}}]
          resources: {{limits: {{memory: 128Mi}}}}
"""


def fleet_files(clusters: int, apps: int, replicas_of: Callable[[int, int], int]) -> dict[str, str]:
    files: dict[str, str] = {}
    for a in range(apps):
        app = f"app{a:02d}"
        files[f"apps/base/{app}/kustomization.yaml"] = (
            "resources: [deployment.yaml, service.yaml]\n"
        )
        files[f"apps/base/{app}/deployment.yaml"] = DEPLOYMENT.format(app=app)
        files[f"apps/base/{app}/service.yaml"] = (
            f"apiVersion: v1\nkind: Service\nmetadata: {{name: {app}}}\nspec: {{selector: {{app: {app}}}, ports: [{{port: 80}}]}}\n"
        )
    for c in range(clusters):
        cluster = f"c{c:02d}"
        for a in range(apps):
            app = f"app{a:02d}"
            overlay = f"apps/overlays/{cluster}/{app}"
            files[f"{overlay}/kustomization.yaml"] = (
                f"resources: [../../../base/{app}]\npatches: [{{path: replicas.yaml}}]\n"
            )
            files[f"{overlay}/replicas.yaml"] = (
                f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {app}}}\nspec: {{replicas: {replicas_of(c, a)}}}\n"
            )
            files[f"clusters/{cluster}/{app}.yaml"] = (
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
                f"metadata: {{name: {app}, namespace: flux-system}}\n"
                f"spec: {{path: ./{overlay}, targetNamespace: {app}, sourceRef: {{kind: GitRepository, name: flux-system}},\n"
                f"  postBuild: {{substitute: {{cluster: {cluster}}}}}}}\n"
            )
    return files


def _git(repo: Path, *args: str) -> str:
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def build_fleet(dest: Path, clusters: int, apps: int) -> tuple[str, str]:
    """The fleet repository; returns (base, head) shas: head changes one overlay's replicas."""
    dest.mkdir(parents=True)
    _git(dest, "init", "--quiet", "--initial-branch=main")
    for path, text in fleet_files(clusters, apps, lambda c, a: 2).items():
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        (dest / path).write_text(text)
    _git(dest, "add", "--all")
    _git(dest, "commit", "--quiet", "-m", "feat: fleet")
    base = _git(dest, "rev-parse", "HEAD")
    cluster, app = (
        f"c{clusters // 2:02d}",
        f"app{apps // 2:02d}",
    )  # one overlay in the middle of the fleet
    (dest / f"apps/overlays/{cluster}/{app}/replicas.yaml").write_text(
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {app}}}\nspec: {{replicas: 5}}\n"
    )
    _git(dest, "commit", "--quiet", "-am", f"feat({cluster}): {app} runs five")
    return base, _git(dest, "rev-parse", "HEAD")


def naive(repo: Path, base: str, head: str, builder: PyKustomizeBuilder, work: Path) -> int:
    """Every Kustomization built at both refs; returns the number of objects built."""
    git = GitRepository.open(repo)
    objects = 0
    for side, sha in ((Side.BASE, base), (Side.HEAD, head)):
        with RefSnapshot.open(git, sha, side.value, 5 * 2**20) as tree:
            found, _ = find_flux_kustomizations(tree, (), "default")
            lookup: dict = {}
            for obj in plain_manifests(tree, (), "default").all_objects():
                lookup[obj.key] = lookup.get(obj.key, ()) + (obj,)
            flux_side = FluxSide(side, tree, found, find_kustomizations(tree), lookup)
            built = build_side(
                flux_side,
                [build_closure(f, flux_side) for f in found.values()],
                builder,
                work,
                "default",
            )
            objects += sum(len(r[1]) for r in built.values() if isinstance(r, tuple))
    return objects


def timed(function: Callable[[], Any], repeat: int) -> tuple[dict[str, Any], Any]:
    runs, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        runs.append(round(time.perf_counter() - started, 4))
    return {"runs_seconds": runs, "median_seconds": statistics.median(runs)}, result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--apps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--naive-repeat", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp,
        SdkRenderer(workers=1) as renderer,
    ):
        repo = Path(tmp) / "fleet"
        base, head = build_fleet(repo, args.clusters, args.apps)
        request = ReviewRequest(repo=repo, base=base, head=head, run_tests=False)
        review_timing, result = timed(lambda: review_change(request, renderer), args.repeat)
        reviews = [r for r in result.review.chart_reviews if r.changes]
        builder = PyKustomizeBuilder()
        counter = iter(range(10**6))
        try:
            naive_timing, objects = timed(
                lambda: naive(repo, base, head, builder, Path(tmp) / f"naive-{next(counter)}"),
                args.naive_repeat,
            )
        finally:
            builder.close()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = {
        "config": {
            "clusters": args.clusters,
            "apps": args.apps,
            "kustomizations": args.clusters * args.apps,
            "repeat": args.repeat,
            "naive_repeat": args.naive_repeat,
        },
        "review": {**review_timing, "changed_reviews": [f"{r.chart}@{r.release}" for r in reviews]},
        "naive": {**naive_timing, "objects_built": objects},
        "ratio": round(naive_timing["median_seconds"] / review_timing["median_seconds"], 1),
        "peak_rss_mib": {"process": round(own), "largest_child": round(children)},
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
