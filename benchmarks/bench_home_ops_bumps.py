#!/usr/bin/env python3
"""Benchmark: home-ops's app-template bumps, reviewed without a chart cache and then from one that
`aftershock charts fetch` filled through a registry mirror on loopback (issue 36).

Usage: .venv/bin/python benchmarks/bench_home_ops_bumps.py [--home-ops PATH] [--bjw-s PATH]
           [--commits 3b70346794,45961d5232,d7437e7609] [--json FILE] [--markdown DIR]

home-ops (../shared/corpus/home-ops.bundle, or a clone given by --home-ops) is a Flux repository whose
HelmReleases install app-template by `chartRef` from an OCIRepository at
`oci://ghcr.io/bjw-s-labs/helm/app-template`, a tag Renovate bumps. This machine cannot reach ghcr.io,
so the benchmark plays the proxy an air-gapped team runs (Harbor, Zot): it packages app-template at
each tag the bumps name from the bjw-s corpus (../shared/corpus/bjw-s-helm-charts.bundle, or
--bjw-s), with its `common` library vendored from the matching `common-X` tag as the published chart
holds it (the embedded Helm's `helm package`), and pushes them to the tests' OCI registry on loopback
(tests/ociregistry.py) under the path ghcr.io has them. For each bump commit C, with the registry up:

1. `aftershock review --base C^ --head C --no-state --no-tests --format json` with an empty chart cache;
2. `aftershock charts fetch --ref C^ --ref C --mirror ghcr.io=<registry> --chart-cache DIR`;

then, the registry stopped (offline), the same review with `--chart-cache DIR`. It counts, before and
after: the parts not reviewed, those naming app-template, the HelmReleases installing app-template
(read from the repository at C) rendered at both refs, and the objects changed; a bump is reviewed
when every such release rendered at both refs and no part naming app-template was left out.
Counts, not seconds (the wall time of each review is printed for scale). `--markdown DIR` writes
each after-review's pull-request comment there too (one more review per commit).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import helm_python
import yaml

from aftershock.render.schemas.schema_refs import SCHEMA_FILE, inline_schema_refs

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "tests"))
from ociregistry import Registry, serve_registry  # noqa: E402

CORPUS = Path(os.environ.get("AFTERSHOCK_CORPUS") or PROJECT.parent / "shared" / "corpus")
AFTERSHOCK = [sys.executable, "-m", "aftershock.cli"]
COMMITS = "3b70346794,45961d5232,d7437e7609"
CHART = "app-template"
RAW = "https://raw.githubusercontent.com/bjw-s-labs/helm-charts"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def clone(given: Path | None, bundle: str, dest: Path) -> Path:
    """The repository given, else a clone of the corpus bundle into `dest`."""
    if given is not None:
        return given
    subprocess.run(["git", "clone", "-q", str(CORPUS / bundle), str(dest)], check=True)
    return dest


def source_at(repo: Path, ref: str) -> tuple[str, str]:
    """(the OCIRepository's url, its ref.tag) of app-template at `ref`."""
    pattern = rf"url: oci://.*/{CHART}\s*$"
    for line in git(repo, "grep", "-l", "-E", pattern, ref, "--", "kubernetes").split():
        for doc in yaml.safe_load_all(git(repo, "show", line)):
            if isinstance(doc, dict) and doc.get("kind") == "OCIRepository":
                spec = doc["spec"]
                return str(spec["url"]), str(spec["ref"]["tag"])
    raise SystemExit(f"no OCIRepository of {CHART} at {ref}")


def releases_at(repo: Path, ref: str) -> int:
    """HelmReleases at `ref` whose chartRef names the app-template OCIRepository."""
    count = 0
    for found in git(repo, "grep", "-l", f"name: {CHART}", ref, "--", "kubernetes").split():
        for doc in yaml.safe_load_all(git(repo, "show", found)):
            spec = doc.get("spec") if isinstance(doc, dict) else None
            chart_ref = spec.get("chartRef") if isinstance(spec, dict) else None
            if doc["kind"] == "HelmRelease" and (chart_ref or {}).get("name") == CHART:
                count += 1
    return count


def export(repo: Path, tag: str, folder: str, dest: Path) -> Path:
    """`folder` of `repo` at `tag` under `dest`, its symlinks (LICENSE -> ../../../LICENSE) made
    copies of what they name, as `helm package` would include them."""
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", tag, folder, "LICENSE"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    chart = dest / folder
    for link in [p for p in chart.rglob("*") if p.is_symlink()]:
        target = link.resolve()
        link.unlink()
        link.write_bytes(target.read_bytes())
    return chart


def package(bjws: Path, version: str, work: Path) -> bytes:
    """app-template `version` as bjw-s's release workflow publishes it (chart-release-steps.yaml):
    each chart's values.schema.json dereferenced, then `helm package --dependency-update`, which
    vendors `common` at the version Chart.yaml pins (here from the `common-X` tag) under charts/.
    app-template's schema is a `$ref` to common's on raw.githubusercontent.com at that tag."""
    app = export(bjws, f"{CHART}-{version}", f"charts/other/{CHART}", work / f"{CHART}-{version}")
    meta = yaml.safe_load((app / "Chart.yaml").read_text())
    (common,) = [d for d in meta["dependencies"] if d["name"] == "common"]
    tag = f"common-{common['version']}"
    lib = export(bjws, tag, "charts/library/common", work / "common")
    inline_schema_refs(lib, lib)
    published = f"{RAW}/{tag}/charts/library/common/{SCHEMA_FILE}"
    inline_schema_refs(app, app, {published: lib / SCHEMA_FILE}.get)
    helm_python.package(lib, destination=app / "charts")
    return Path(helm_python.package(app, destination=work / "out")).read_bytes()


def review(repo: Path, sha: str, cache: Path, fmt: str = "json", out: Path | None = None) -> Any:
    """`aftershock review C^..C` with `cache` as the chart cache: its JSON, and its wall seconds."""
    args = ["review", "--repo", str(repo), "--base", f"{sha}^", "--head", sha, "--no-state"]
    args += ["--no-tests", "--render-cache", "off", "--chart-cache", str(cache), "--format", fmt]
    started = time.monotonic()
    done = subprocess.run(
        [*AFTERSHOCK, *args, *(["--output", str(out)] if out else [])],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = round(time.monotonic() - started, 1)
    if done.returncode not in (0, 3, 4):
        raise SystemExit(f"review of {sha} failed ({done.returncode}): {done.stderr[-2000:]}")
    return (json.loads(done.stdout) if fmt == "json" else None), seconds


def figures(document: dict[str, Any], chart_id: str, seconds: float) -> dict[str, Any]:
    """What a maintainer gets from one review: parts not reviewed, those naming app-template, the
    app-template releases rendered at both refs, objects changed (those app-template renders)."""
    gaps = document["not_reviewed"]
    installs = [r for r in document["chart_reviews"] if r["chart"] == chart_id]
    rendered = {
        r["release"] for r in installs if {r["base"]["status"], r["head"]["status"]} == {"ok"}
    }
    ids = {r["id"] for r in installs}
    return {
        "status": document["status"],
        "not_reviewed": len(gaps),
        "not_reviewed_app_template": sum(f"{CHART}-" in g["reason"] for g in gaps),
        "releases_rendered": len(rendered),
        "objects_changed": document["summary"]["objects_changed"],
        "objects_changed_by_app_template": sum(o["review"] in ids for o in document["objects"]),
        "seconds": seconds,
    }


def fetch(repo: Path, sha: str, cache: Path, registry: Registry) -> dict[str, Any]:
    """`aftershock charts fetch` of both refs through the mirror: its exit status and lines."""
    mirror = f"ghcr.io={registry.url}"
    args = ["charts", "fetch", "--repo", str(repo), "--ref", f"{sha}^", "--ref", sha]
    args += ["--chart-cache", str(cache), "--mirror", mirror, "--timeout", "5"]
    done = subprocess.run([*AFTERSHOCK, *args], capture_output=True, text=True, check=False)
    lines = done.stdout.splitlines()
    return {
        "exit": done.returncode,
        "fetched_app_template": sum(ln.startswith("fetched: ") and CHART in ln for ln in lines),
        "fetched": sum(ln.startswith("fetched: ") for ln in lines),
        "not_fetched": sum(ln.startswith("not fetched: ") for ln in lines),
        "lines": lines,
    }


def bump(repo: Path, bjws: Path, sha: str, work: Path, registry: Registry) -> dict[str, Any]:
    """Step 1 and 2 for one commit (the registry up): the charts pushed, the review before, the fetch."""
    (url, old), (_, new) = source_at(repo, f"{sha}^"), source_at(repo, sha)
    path = url.removeprefix("oci://").split("/", 1)[1]
    for version in (old, new):
        if f"{path}:{version}" not in registry.manifests:
            registry.push(path, version, package(bjws, version, work / "packed" / version))
    chart_id = url.rsplit("/", 1)[0] + f"/{CHART}"
    empty = work / sha / "empty"
    empty.mkdir(parents=True)
    document, seconds = review(repo, sha, empty)
    return {
        "commit": sha,
        "bump": f"{old} -> {new}",
        "chart": chart_id,
        "releases": releases_at(repo, sha),
        "before": figures(document, chart_id, seconds),
        "fetch": fetch(repo, sha, work / sha / "cache", registry),
    }


def show(results: list[dict[str, Any]]) -> None:
    for r in results:
        b, a, f = r["before"], r["after"], r["fetch"]
        print(
            f"{r['commit'][:10]} app-template {r['bump']}: {r['releases']} releases install it; "
            f"fetch exit {f['exit']}: {f['fetched_app_template']} app-template archives "
            f"({f['fetched']} fetched, {f['not_fetched']} not)"
        )
        for name, key in (
            ("releases rendered at both refs", "releases_rendered"),
            ("parts not reviewed", "not_reviewed"),
            ("  of them naming app-template", "not_reviewed_app_template"),
            ("objects changed", "objects_changed"),
            ("  of them app-template renders", "objects_changed_by_app_template"),
        ):
            print(f"  {name}: {b[key]} -> {a[key]}")
        print(
            f"  status: {b['status']} -> {a['status']}; wall {b['seconds']} s -> {a['seconds']} s"
        )
    total, releases = len(results), sum(r["releases"] for r in results)
    for side in ("before", "after"):
        every = sum(r[side]["releases_rendered"] == r["releases"] for r in results)
        some = sum(r[side]["releases_rendered"] > 0 for r in results)
        rendered = sum(r[side]["releases_rendered"] for r in results)
        print(
            f"{side}: bumps with every app-template release rendered at both refs {every}/{total}, "
            f"with some {some}/{total}; releases {rendered}/{releases}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--home-ops", type=Path, help="a clone of home-ops [default: the corpus bundle's]"
    )
    parser.add_argument(
        "--bjw-s", type=Path, help="a clone of bjw-s helm-charts [default: the bundle's]"
    )
    parser.add_argument("--commits", default=COMMITS, help="comma-separated bump commits")
    parser.add_argument("--json", type=Path, help="write every figure as JSON")
    parser.add_argument("--markdown", type=Path, help="write each after-review's comment here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repo = clone(args.home_ops, "home-ops.bundle", work / "home-ops")
        bjws = clone(args.bjw_s, "bjw-s-helm-charts.bundle", work / "bjw-s")
        shas = [git(repo, "rev-parse", c).strip() for c in args.commits.split(",")]
        with serve_registry() as registry:
            results = [bump(repo, bjws, sha, work, registry) for sha in shas]
        for result in results:  # offline: the registry is gone, the reviews read the cache only
            sha = result["commit"]
            document, seconds = review(repo, sha, work / sha / "cache")
            result["after"] = figures(document, result["chart"], seconds)
            if args.markdown:
                args.markdown.mkdir(parents=True, exist_ok=True)
                out = args.markdown / f"{sha[:10]}.md"
                review(repo, sha, work / sha / "cache", "markdown", out.resolve())
    show(results)
    if args.json:
        args.json.write_text(json.dumps({"commits": results}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
