"""SdkRenderer renders real charts with helm-python-sdk in worker processes, within bounds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aftershock.gocompat import yamlio
from aftershock.model.errors import RenderError
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import RenderOutcome, RenderRequest

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
  namespace: {{ .Release.Namespace }}
data:
  greeting: {{ .Values.greeting | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  hasWidget: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}
  upgrade: {{ .Release.IsUpgrade | quote }}
  revision: {{ .Release.Revision | quote }}
"""
# A render that takes about `n` * 40 µs of CPU: nested empty loops.
SLOW = "{{- range until (int .Values.n) }}{{ range until 1000 }}{{ end }}{{ end }}\nkind: Slow\n"


def write_chart(root: Path, name: str, templates: dict[str, str], values: str = "") -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(values)
    for path, text in templates.items():
        (chart / "templates" / path).write_text(text)
    return chart


def worker_pids() -> set[int]:
    """Live sdk_worker children of this process."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"aftershock.render.helm.sdk_worker" in cmdline:
            pids.add(int(entry.name))
    return pids


@pytest.fixture(scope="module")
def two_workers() -> Iterator[SdkRenderer]:
    with SdkRenderer(workers=2, spill_seconds=0) as sdk:
        yield sdk


@pytest.fixture(scope="module")
def charts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("charts")
    write_chart(
        root,
        "app",
        {"cm.yaml": CONFIGMAP, "NOTES.txt": "Installed {{ .Release.Name }}\n"},
        values="greeting: hello\n",
    )
    write_chart(root, "bad", {"x.yaml": 'a: 1\n{{ fail "boom" }}\n'})
    write_chart(root, "slow", {"slow.yaml": SLOW}, values="n: 1\n")
    write_chart(root, "big", {"big.yaml": 'data: {{ repeat 2000 "x" }}\n'})
    return root


def request(charts: Path, name: str, **fields: object) -> RenderRequest:
    return RenderRequest(chart_dir=str(charts / name), **fields)  # type: ignore[arg-type]


def test_renders_release_values_and_capabilities(two_workers: SdkRenderer, charts: Path) -> None:
    seen: list[RenderOutcome] = []
    defaults, custom = two_workers.render_many(
        [
            request(charts, "app"),
            request(
                charts,
                "app",
                values={"greeting": "hi"},
                release_name="shop",
                namespace="prod",
                kube_version="v1.29.3",
                api_versions=("example.com/v1",),
                revision=4,
                is_upgrade=True,
            ),
        ],
        progress=seen.append,
    )
    assert len(seen) == 2 and defaults.ok and custom.ok
    base = yamlio.load_one(defaults.manifests["app/templates/cm.yaml"], source="cm")
    assert base["metadata"] == {"name": "release-cm", "namespace": "default"}
    assert base["data"]["greeting"] == "hello"
    assert (base["data"]["hasWidget"], base["data"]["upgrade"]) == ("false", "false")
    changed = yamlio.load_one(custom.manifests["app/templates/cm.yaml"], source="cm")
    assert changed["metadata"] == {"name": "shop-cm", "namespace": "prod"}
    assert changed["data"] == {
        "greeting": "hi",
        "kube": "v1.29.3",
        "hasWidget": "true",
        "upgrade": "true",
        "revision": "4",
    }
    assert base["data"]["kube"] != "v1.29.3"
    assert custom.manifests["app/templates/NOTES.txt"] == "Installed shop\n"


def test_fail_template_gives_helms_own_error(two_workers: SdkRenderer, charts: Path) -> None:
    (outcome,) = two_workers.render_many([request(charts, "bad")])
    assert not outcome.ok and outcome.manifests == {}
    assert outcome.error is not None
    assert outcome.error.startswith("execution error at (bad/templates/x.yaml:2:")
    assert outcome.error.endswith("): boom")


def test_symlinked_subchart_renders_and_helm_logs_stay_off_the_protocol(
    two_workers: SdkRenderer, tmp_path: Path
) -> None:
    write_chart(tmp_path / "library", "sub", {"cm.yaml": "kind: ConfigMap\nname: sub\n"})
    app = write_chart(tmp_path, "app", {"x.yaml": "c: {{ toJson .Values.c }}\n"}, "c: 2\n")
    (app / "charts").mkdir()
    (app / "charts" / "sub").symlink_to("../../library/sub")
    # Overriding a scalar with a table makes Helm log "warning: skipped value ..." too.
    (outcome,) = two_workers.render_many([RenderRequest(str(app), values={"c": {"d": 1}})])
    assert outcome.error is None
    assert outcome.manifests["app/charts/sub/templates/cm.yaml"] == "kind: ConfigMap\nname: sub\n"


def test_outcomes_keep_request_order_while_workers_run_in_parallel(
    two_workers: SdkRenderer, charts: Path
) -> None:
    requests = [
        request(charts, "slow", values={"n": 15000}, release_name="slow"),
        *(request(charts, "app", release_name=f"fast{i}") for i in range(3)),
    ]
    finished: list[str] = []
    outcomes = two_workers.render_many(
        requests, progress=lambda outcome: finished.append(outcome.request.release_name)
    )
    assert [o.request for o in outcomes] == requests
    assert all(o.ok for o in outcomes)
    assert finished[-1] == "slow"
    assert sorted(finished) == sorted(r.release_name for r in requests)
    assert two_workers.render_many([]) == []


def test_a_worker_not_running_yet_joins_only_a_batch_that_outlasts_the_spill_time(
    charts: Path,
) -> None:
    renders = [request(charts, "app", release_name=f"r{i}") for i in range(6)]
    with SdkRenderer(workers=2, spill_seconds=600) as sdk:
        assert all(o.ok for o in sdk.render_many(renders))
        assert [w.running for w in sdk._processes] == [True, False]  # done before 600 s
    with SdkRenderer(workers=2, spill_seconds=0) as sdk:
        assert all(o.ok for o in sdk.render_many(renders))
        assert [w.running for w in sdk._processes] == [True, True]


def test_values_that_are_not_json_give_an_error_outcome(
    two_workers: SdkRenderer, charts: Path
) -> None:
    (outcome,) = two_workers.render_many([request(charts, "app", values={"x": float("nan")})])
    assert outcome.error is not None
    assert outcome.error.startswith("values cannot be passed to Helm:")


def test_version_names_the_sdk_and_its_helm(two_workers: SdkRenderer) -> None:
    assert two_workers.version.startswith("helm-python-sdk 0.2.2 (Helm v4.")
    assert two_workers.version.endswith(")")


def test_oversized_output_is_an_error_outcome(charts: Path) -> None:
    with SdkRenderer(workers=1, max_output_bytes=1000) as sdk:
        big, small = sdk.render_many([request(charts, "big"), request(charts, "app")])
    assert big.error == "rendered output exceeds 1000 bytes"
    assert small.ok


def test_timeout_kills_the_worker_and_the_next_render_succeeds(charts: Path) -> None:
    others = worker_pids()
    with SdkRenderer(workers=1, timeout_seconds=1.0) as sdk:
        sdk.version  # starts the worker: its start-up is not part of a render's time
        (before,) = worker_pids() - others
        (slow,) = sdk.render_many([request(charts, "slow", values={"n": 10**6})])
        assert slow.error == "render timed out after 1 s"
        assert slow.seconds < 10
        assert before not in worker_pids()
        (after,) = sdk.render_many([request(charts, "app")])
        assert after.ok


def test_a_dead_worker_gives_an_error_outcome_and_is_replaced(charts: Path) -> None:
    others = worker_pids()
    with SdkRenderer(workers=1) as sdk:
        sdk.version
        (pid,) = worker_pids() - others
        outcomes: list[RenderOutcome] = []
        slow = request(charts, "slow", values={"n": 10**6})
        thread = threading.Thread(target=lambda: outcomes.extend(sdk.render_many([slow])))
        thread.start()
        time.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        thread.join(timeout=30)
        assert outcomes[0].error is not None
        assert outcomes[0].error.startswith("render worker exited unexpectedly (exit code -9)")
        (again,) = sdk.render_many([request(charts, "app")])
        assert again.ok
        (replacement,) = worker_pids() - others
        assert replacement != pid
    assert worker_pids() - others == set()


def test_a_worker_that_cannot_start_gives_error_outcomes_and_a_clear_version_error(
    charts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken_library = tmp_path / "libhelm_c.so"
    broken_library.write_text("not a shared library")
    monkeypatch.setenv("HELM_C_LIB", str(broken_library))  # helm_python loads this one instead
    with SdkRenderer(workers=1) as sdk:
        (outcome,) = sdk.render_many([request(charts, "app")])
        assert outcome.error is not None
        assert outcome.error.startswith("render worker failed to start: ")
        assert "HelmLibraryError" in outcome.error
        with pytest.raises(RenderError, match="cannot start the Helm SDK render worker"):
            sdk.version


def test_importing_the_backend_does_not_load_helm_python() -> None:
    check = "import sys, aftershock.render.helm.sdk\nsys.exit(1 if 'helm_python' in sys.modules else 0)\n"
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_default_kube_version_is_the_one_the_constraint_check_assumes(tmp_path):
    from aftershock.gocompat.semver import SDK_DEFAULT_KUBE_VERSION
    from aftershock.render.helm.sdk import SdkRenderer
    from aftershock.render.interface import RenderRequest

    chart = tmp_path / "kv"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: kv\nversion: 0.1.0\nkubeVersion: '>=1.22.0-0'\n"
    )
    (chart / "templates" / "cm.yaml").write_text(
        "kind: ConfigMap\nmetadata: {name: x}\ndata: {v: {{ .Capabilities.KubeVersion.Version | quote }}}\n"
    )
    with SdkRenderer(workers=1) as renderer:
        default, old = renderer.render_many(
            [
                RenderRequest(chart_dir=str(chart)),
                RenderRequest(chart_dir=str(chart), kube_version="v1.21.0"),
            ]
        )
    assert f'v: "{SDK_DEFAULT_KUBE_VERSION}"' in default.manifests["kv/templates/cm.yaml"]
    assert (
        old.error
        == "chart requires kubeVersion: >=1.22.0-0 which is incompatible with Kubernetes v1.21.0"
    )


CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}-{{ .Values.tier | default "none" }}\n'


def _names(outcome: RenderOutcome) -> list[str]:
    return sorted(doc["metadata"]["name"] for _, _, doc in outcome.documents or ())


def test_a_chart_rendered_again_in_one_batch_shows_what_each_request_asks(tmp_path: Path) -> None:
    """Workers keep a chart loaded across one batch; a subchart one request disables by its
    condition is still there for the next request, and values never carry over."""
    parent = write_chart(tmp_path, "parent", {"cm.yaml": CONFIG_MAP})
    (parent / "Chart.yaml").write_text(
        "apiVersion: v2\nname: parent\nversion: 0.1.0\n"
        "dependencies:\n  - name: child\n    version: 0.1.0\n    condition: child.enabled\n"
    )
    write_chart(parent / "charts", "child", {"cm.yaml": CONFIG_MAP}, values="enabled: true\n")
    plain = write_chart(tmp_path, "plain", {"cm.yaml": CONFIG_MAP})
    requests = [
        RenderRequest(str(parent), values={"child": {"enabled": False}}),
        RenderRequest(str(parent), values={"tier": "web"}),
        RenderRequest(str(plain), values={"tier": "a"}),
        RenderRequest(str(plain), values={}),
    ]
    with SdkRenderer(
        workers=1
    ) as renderer:  # one worker: every request goes through the same loaded charts
        outcomes = renderer.render_many(requests)
        assert [_names(o) for o in outcomes] == [
            ["parent-none"],
            ["child-none", "parent-web"],
            ["plain-a"],
            ["plain-none"],
        ]
        (plain / "templates" / "cm.yaml").write_text(CONFIG_MAP.replace("name: ", "name: v2-"))
        (again,) = renderer.render_many(
            [RenderRequest(str(plain), values={})]
        )  # a new batch loads anew
        assert _names(again) == ["v2-plain-none"]
