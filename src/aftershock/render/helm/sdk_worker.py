"""The Helm SDK render worker: a child process that owns helm_python and renders on request.

Started by `aftershock.render.helm.sdk_process` as `python -m aftershock.render.helm.sdk_worker`. It speaks
line-delimited JSON: on start it writes one ready line
`{"ready": true, "sdk_version": ..., "helm_version": ...}`, then answers each request line
`{"chart_dir", "values_json", "options", "max_output_bytes", "parse", "batch"}` with one reply line,
`{"manifests": {path: text}}` or `{"error": text}`. It exits when its stdin closes. A request with
a `cluster` snapshot renders against a `render.lookup.kubeapi` server in this process (started on first
use), so `lookup` finds the snapshot's objects; its reply also lists the keys `lookup` returned.

Its arguments `--parent PID --lifeline FD --memory-mib N` bound it (`render.helm.process_bounds`): it
dies with its parent, and its memory is capped once helm_python is loaded.

Only protocol lines reach the real stdout: fd 1 is pointed at stderr before helm_python loads,
so anything the Go library prints goes there, and the protocol uses a duplicate of the old fd 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, BinaryIO

from aftershock.gocompat.semver import SDK_DEFAULT_KUBE_VERSION, satisfies
from aftershock.ingest.object_documents import parse_documents
from aftershock.model.errors import MalformedInputError
from aftershock.render.helm.process_bounds import cap_own_memory, die_with_parent
from aftershock.render.limits import memory_error, output_size, oversize_error
from aftershock.render.lookup.cluster import ClusterSnapshot, snapshot_from_message
from aftershock.render.lookup.kubeapi import SnapshotServer
from aftershock.render.schemas.schema_reach import folder_schema_refusal

WORKER_PROG = "python -m aftershock.render.helm.sdk_worker"
MAX_LOADED_CHARTS = 16  # charts a worker keeps loaded within one batch
MAX_SNAPSHOTS = 8  # cluster snapshots a worker keeps, so a request may name one by its digest
_CLIENT_RATE = 10000  # client-go's requests per second (and burst) towards our own loopback server
# The SDK hands the whole output over as one JSON text: a manifest character takes at most 6 there
# (`\u003c`), so a longer text is over the bound before it is decoded. The slack is for the paths.
_JSON_EXPANSION = 6
_JSON_SLACK = 1 << 20


def _take_protocol_stream() -> BinaryIO:
    """Keep the real stdout for the protocol alone; send fd 1 (and sys.stdout) to stderr."""
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb", buffering=0)


def _send(stream: BinaryIO, message: dict[str, Any]) -> None:
    stream.write(json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n")


class RefusedChart(Exception):
    """A chart Helm must not load: its values schema would make Helm fetch or open a file (the reason)."""


class LoadedCharts:
    """Charts loaded for the current batch of requests, by folder: a batch renders folders that do
    not change while it runs (a test suite renders one chart many times). Only a chart without
    subcharts is kept: rendering one with subcharts edits the loaded chart (Helm drops the subcharts
    a condition or tag disables, and merges imported values into it), while a render leaves a chart
    without any as it was. A request of another batch, or of none, starts afresh."""

    def __init__(self, helm: Any) -> None:
        self._helm = helm
        self._batch: str | None = None
        self._charts: dict[str, Any] = {}
        self._refused: dict[str, str | None] = {}  # folder -> why Helm must not load it, this batch

    def get(self, chart_dir: str, batch: str | None) -> Any:
        if batch is None or batch != self._batch:
            self.clear()
            self._batch = batch
        chart = self._charts.get(chart_dir)
        if chart is None:
            if (
                chart_dir not in self._refused
            ):  # its archives unpacked once a batch, not each render
                self._refused[chart_dir] = folder_schema_refusal(Path(chart_dir))
            refused = self._refused[chart_dir]
            if refused is not None:
                raise RefusedChart(refused)
            chart = self._helm.Chart.load(chart_dir)
            if batch is not None and not chart.dependencies:
                if len(self._charts) >= MAX_LOADED_CHARTS:
                    self._charts.pop(next(iter(self._charts))).close()
                self._charts[chart_dir] = chart
        return chart

    def release(self, chart_dir: str, chart: Any) -> None:
        """Done with `chart`: closed unless the batch keeps it."""
        if self._charts.get(chart_dir) is not chart:
            chart.close()

    def clear(self) -> None:
        for chart in self._charts.values():
            chart.close()
        self._charts = {}
        self._refused = {}


class ClusterAccess:
    """The loopback API server serving a request's snapshot, and the Helm configuration that points
    `lookup` at it; both made on first use and kept for the worker's life."""

    def __init__(self, helm: Any) -> None:
        self._helm = helm
        self._server: SnapshotServer | None = None
        self._config: Any = None
        self._snapshots: dict[str, ClusterSnapshot] = {}  # by digest, the most recent last

    def serve(self, message: dict[str, Any]) -> Any:
        """The Helm configuration for a render against the snapshot in `message`."""
        if self._server is None:
            self._server = SnapshotServer()
            self._config = self._helm.Config(
                kubeconfig_content=self._server.kubeconfig(),
                qps=_CLIENT_RATE,
                burst_limit=_CLIENT_RATE,
            )
        digest = message["digest"]
        snapshot = self._snapshots.pop(digest, None)
        if snapshot is None:
            if "objects" not in message:
                raise LookupError(
                    "render worker does not hold the cluster snapshot it was sent before"
                )
            snapshot = snapshot_from_message(message)
        self._snapshots[digest] = snapshot
        while len(self._snapshots) > MAX_SNAPSHOTS:
            self._snapshots.pop(next(iter(self._snapshots)))
        self._server.use(snapshot)
        return self._config

    def returned(self) -> list[list[str]]:
        return [] if self._server is None else [list(key) for key in self._server.returned()]


def _render_chart(helm: Any, chart: Any, request: dict[str, Any], config: Any) -> str:
    options = json.dumps(request["options"])
    if config is None:
        return str(
            helm._native.call_string("helm_render", chart._raw(), request["values_json"], options)
        )
    return str(
        helm._native.call_string(
            "helm_render_with_config", config._raw(), chart._raw(), request["values_json"], options
        )
    )


def _render(
    helm: Any, request: dict[str, Any], charts: LoadedCharts, cluster: ClusterAccess
) -> dict[str, Any]:
    """Render one request; Helm's own error text on failure."""
    # Taken first, whatever happens next: the reviewer counts on the worker holding it from now on.
    config = cluster.serve(request["cluster"]) if request.get("cluster") is not None else None
    try:
        chart = charts.get(request["chart_dir"], request.get("batch"))
        try:
            incompatible = _kube_version_error(chart.metadata, request["options"])
            if incompatible:
                return {"error": incompatible}
            rendered = _render_chart(helm, chart, request, config)
        finally:
            charts.release(request["chart_dir"], chart)
    except helm.HelmError as exc:
        return {"error": str(exc).strip() or type(exc).__name__}
    except RefusedChart as exc:
        return {"error": str(exc)}
    if len(rendered) > _JSON_EXPANSION * request["max_output_bytes"] + _JSON_SLACK:
        return {"error": oversize_error(request["max_output_bytes"])}  # known before decoding it
    manifests: dict[str, str] = json.loads(rendered)
    if output_size(manifests) > request["max_output_bytes"]:
        return {"error": oversize_error(request["max_output_bytes"])}
    reply: dict[str, Any] = {"manifests": manifests}
    if request.get("cluster") is not None:
        reply["lookups"] = cluster.returned()
    if request.get("parse", True):
        reply["documents"] = _documents(manifests)
    return reply


def _documents(manifests: dict[str, str]) -> list[list[Any]] | None:
    """Parse here, in parallel with the other workers, so the reviewer's process need not.
    Malformed output is left to the reviewer, which reports it with the template's name."""
    try:
        return [[template, index, body] for template, index, body in parse_documents(manifests)]
    except MalformedInputError:
        return None


def _kube_version_error(metadata: dict[str, Any], options: dict[str, Any]) -> str | None:
    """Helm's install action refuses a chart whose kubeVersion excludes the target; the SDK's
    render call skips that check, so it is made here with Helm's own words."""
    constraint = metadata.get("kubeVersion")
    if not constraint:
        return None
    target = options.get("kube_version") or SDK_DEFAULT_KUBE_VERSION
    try:
        ok = satisfies(target, str(constraint))
    except ValueError:
        return f"chart kubeVersion {constraint!r} is not a valid version constraint"
    if ok:
        return None
    return (
        f"chart requires kubeVersion: {constraint} which is incompatible with Kubernetes {target}"
    )


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=WORKER_PROG)
    parser.add_argument("--parent", type=int, default=None)
    parser.add_argument("--lifeline", type=int, default=None)
    parser.add_argument("--memory-mib", type=int, default=None)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments = _arguments(sys.argv[1:] if argv is None else argv)
    if arguments.parent is not None:
        die_with_parent(arguments.parent, arguments.lifeline)
    protocol = _take_protocol_stream()
    import helm_python as helm  # only ever imported in this child process

    helm.disable_logging()
    if arguments.memory_mib is not None:
        cap_own_memory(arguments.memory_mib)
    _send(
        protocol,
        {"ready": True, "sdk_version": helm.__version__, "helm_version": helm.helm_sdk_version()},
    )
    charts = LoadedCharts(helm)
    cluster = ClusterAccess(helm)
    for line in sys.stdin.buffer:
        try:
            reply = _render(helm, json.loads(line), charts, cluster)
        except MemoryError:
            reply = {
                "error": memory_error(arguments.memory_mib)
                if arguments.memory_mib
                else "render worker ran out of memory"
            }
            _send(protocol, reply)
            return 1  # what ran out may have left this process unusable: the parent starts another
        except Exception as exc:  # a bug here must not kill the worker silently
            reply = {"error": f"render worker failed: {type(exc).__name__}: {exc}"}
        _send(protocol, reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
