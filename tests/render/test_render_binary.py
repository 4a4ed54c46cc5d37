"""HelmBinaryRenderer: `helm template` output split per template; real renders need `helm`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aftershock.ingest.object_documents import parse_manifests
from aftershock.model.errors import ConfigError
from aftershock.render.helm.binary import HelmBinaryRenderer, helm_error_text, split_template_output
from aftershock.render.helm.sdk import SdkRenderer
from aftershock.render.interface import RenderRequest

needs_helm = pytest.mark.skipif(
    shutil.which("helm") is None, reason="the helm binary is not installed on this machine"
)

# What `helm template` prints: each document behind its own `---` and `# Source:` line,
# in install order (so one template's documents may be apart).
TEMPLATE_OUTPUT = """\
---
# Source: app/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
---
# Source: app/charts/sub/templates/svc.yaml
apiVersion: v1
kind: Service
metadata:
  name: s
---
# Source: app/templates/cm.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
"""


def test_output_is_split_into_templates_like_the_sdk_returns() -> None:
    manifests = split_template_output(TEMPLATE_OUTPUT)
    assert manifests == {
        "app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n",
        "app/charts/sub/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n"
        "  name: s\n",
    }
    objects = parse_manifests(manifests, chart="app", namespace="ns")
    assert sorted(obj.key.name for obj in objects) == ["a", "d", "s"]


def test_empty_output_has_no_templates() -> None:
    assert split_template_output("") == {}


def test_error_text_is_helms_error_without_prefix_warnings_or_hints() -> None:
    stderr = (
        "walk.go:74: found symbolic link in path: /x/charts/sub resolves to /lib/sub\n"
        "Error: execution error at (app/templates/x.yaml:4:3): boom\n"
        "Use --debug flag to render out invalid YAML\n"
    )
    assert helm_error_text(stderr) == "execution error at (app/templates/x.yaml:4:3): boom"
    assert helm_error_text("something odd\n\n") == "something odd"
    assert helm_error_text("") == "helm failed without a message"


def test_a_missing_helm_binary_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="helm binary not found"):
        HelmBinaryRenderer(helm_path=str(tmp_path / "no-such-helm"))


def _chart(root: Path) -> Path:
    chart = root / "app"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: app\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicas: 1\n")
    (chart / "templates" / "deploy.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
        "spec:\n  replicas: {{ .Values.replicas }}\n"
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
        "data:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
    )
    (chart / "templates" / "NOTES.txt").write_text("Installed\n")
    return chart


@needs_helm
def test_binary_and_sdk_render_the_same_objects(tmp_path: Path) -> None:
    request = RenderRequest(
        str(_chart(tmp_path)),
        values={"replicas": 3},
        release_name="shop",
        namespace="prod",
        kube_version="v1.29.0",
    )
    with HelmBinaryRenderer() as binary, SdkRenderer(workers=1) as sdk:
        (from_binary,) = binary.render_many([request])
        (from_sdk,) = sdk.render_many([request])
        assert binary.version.startswith("helm v")
    assert from_binary.error is None, from_binary.error
    binary_objects = parse_manifests(from_binary.manifests, chart="app", namespace="prod")
    sdk_objects = parse_manifests(from_sdk.manifests, chart="app", namespace="prod")
    assert {o.key: o.body for o in binary_objects} == {o.key: o.body for o in sdk_objects}
    assert "app/templates/NOTES.txt" not in from_binary.manifests


@needs_helm
def test_binary_template_error_is_helms_text(tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    (chart / "templates" / "fail.yaml").write_text('{{ fail "boom" }}\n')
    with HelmBinaryRenderer() as binary:
        (outcome,) = binary.render_many([RenderRequest(str(chart))])
    assert outcome.error is not None
    assert outcome.error.startswith("execution error at (app/templates/fail.yaml:1:")
    assert "boom" in outcome.error
