"""Benchmark of `lookup` against a cluster snapshot: the loopback API server against a template rewrite.

A chart whose template makes `--lookups` lookups (one object each) is rendered `--renders` times
with the SDK backend (one worker), in one run:

* offline: no snapshot, every lookup finds nothing (today's behaviour, the baseline);
* server: with a snapshot of `--objects` ConfigMaps, served by `render.lookup.kubeapi` (what aftershock does);
* rewrite: the chart as rewriting `lookup` calls into `include "aftershock.lookup" ... | fromJson`
  would make it, with a generated named template holding the snapshot (the alternative not taken).

    .venv/bin/python benchmarks/bench_lookup.py [--lookups 20] [--objects 200] [--renders 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import RenderRequest
from aftershock.render.lookup.cluster import snapshot_from_objects


def _objects(count: int) -> list[dict]:
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i}", "namespace": "platform"},
            "data": {"host": f"host-{i}.internal", "port": str(5000 + i)},
        }
        for i in range(count)
    ]


def _chart(root: Path, name: str, call: str, lookups: int, extra: dict[str, str]) -> str:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    lines = "".join(
        f'  k{i}: {{{{ dig "data" "host" "none" ({call.format(i=i)}) | quote }}}}\n'
        for i in range(lookups)
    )
    (chart / "templates" / "cm.yaml").write_text(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: out\ndata:\n{lines}"
    )
    for path, text in extra.items():
        (chart / "templates" / path).write_text(text)
    return str(chart)


def _rewrite_helper(objects: list[dict]) -> str:
    """The named template a rewrite would generate: the snapshot's objects by their lookup arguments."""
    branches = "".join(
        f"{{{{- {'if' if i == 0 else 'else if'} eq $k {json.dumps(chr(0).join(['v1', 'ConfigMap', 'platform', o['metadata']['name']]))} }}}}"
        f"{json.dumps(o)}"
        for i, o in enumerate(objects)
    )
    return (
        '{{- define "aftershock.lookup" -}}\n{{- $k := join "\\x00" . -}}\n'
        f"{branches}{{{{- else }}}}{{}}{{{{- end -}}}}\n{{{{- end -}}}}\n"
    )


def _time(renderer: SdkRenderer, request: RenderRequest, renders: int) -> float:
    renderer.render_many([request])  # warm: worker started, chart loaded once
    times = []
    for _ in range(renders):
        started = time.perf_counter()
        (outcome,) = renderer.render_many([request])
        times.append(time.perf_counter() - started)
        assert outcome.ok, outcome.error
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lookups", type=int, default=20)
    parser.add_argument("--objects", type=int, default=200)
    parser.add_argument("--renders", type=int, default=40)
    args = parser.parse_args()
    objects = _objects(args.objects)
    snapshot = snapshot_from_objects(objects)
    with tempfile.TemporaryDirectory() as folder, SdkRenderer(workers=1) as renderer:
        root = Path(folder)
        server_chart = _chart(
            root, "server", 'lookup "v1" "ConfigMap" "platform" "cm-{i}"', args.lookups, {}
        )
        rewrite_chart = _chart(
            root,
            "rewrite",
            'include "aftershock.lookup" (list "v1" "ConfigMap" "platform" "cm-{i}") | fromJson',
            args.lookups,
            {"_aftershock_lookup.tpl": _rewrite_helper(objects)},
        )
        offline = _time(renderer, RenderRequest(server_chart), args.renders)
        served = _time(renderer, RenderRequest(server_chart, cluster=snapshot), args.renders)
        rewritten = _time(renderer, RenderRequest(rewrite_chart), args.renders)
    print(
        f"{args.lookups} lookups per render, snapshot of {args.objects} objects, median of {args.renders} renders"
    )
    print(f"offline (no snapshot)   {offline * 1000:8.2f} ms  1.00x")
    print(f"server (render.lookup.kubeapi) {served * 1000:8.2f} ms  {served / offline:.2f}x")
    print(f"rewrite (include+fromJson) {rewritten * 1000:5.2f} ms  {rewritten / offline:.2f}x")


if __name__ == "__main__":
    main()
