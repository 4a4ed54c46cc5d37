"""Small, realistic chart files for tests, as path -> text mappings to pass to gitrepo.commit."""

from __future__ import annotations

import io
import json
import tarfile


def chart_yaml(name: str, *, kind: str = "application", deps: str = "") -> str:
    return f"apiVersion: v2\nname: {name}\nversion: 0.1.0\ntype: {kind}\n{deps}"


def library_and_app(library: dict[str, str], app: dict[str, str]) -> dict[str, str]:
    """A library chart `lib` and a chart `app` that depends on it through `file://../lib`, each with
    the given files (paths inside the chart folder)."""
    deps = "dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../lib\n"
    return {
        "lib/Chart.yaml": chart_yaml("lib", kind="library"),
        **{f"lib/{path}": text for path, text in library.items()},
        "app/Chart.yaml": chart_yaml("app", deps=deps),
        **{f"app/{path}": text for path, text in app.items()},
    }


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  labels:
    helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Chart.Name }}}
  template:
    metadata:
      labels: {app: {{ .Chart.Name }}}
    spec:
      containers:
        - name: app
          image: "{{ .Values.image }}"
          env:
            - name: MODE
              value: {{ .Values.mode | quote }}
"""


def app_chart(
    prefix: str, name: str, *, replicas: int = 2, image: str = "nginx:1.27.0"
) -> dict[str, str]:
    return {
        f"{prefix}/Chart.yaml": chart_yaml(name),
        f"{prefix}/values.yaml": f"replicas: {replicas}\nimage: {image}\nmode: fast\n",
        f"{prefix}/templates/deployment.yaml": DEPLOYMENT,
    }


# A node agent sharing the host's process namespace: a pss-host-namespaces finding in any chart.
HOST_PID_DAEMONSET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      hostPID: true
      containers: [{name: agent, image: "busybox:1.36"}]
"""


# A chart rendering a Flux HelmRelease (with valuesFrom ConfigMaps) that installs a second chart.
FLUX_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: flux-system
spec:
  targetNamespace: apps
  releaseName: web
  chart:
    spec:
      chart: {{ .Values.chartPath }}
      sourceRef: {kind: {{ .Values.sourceKind }}, name: platform}
  valuesFrom:
    - kind: ConfigMap
      name: web-values
    - kind: ConfigMap
      name: web-mode
      valuesKey: mode
      targetPath: mode
    - kind: ConfigMap
      name: not-there
      optional: true
  values:
    replicas: {{ .Values.replicas }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-values
  namespace: flux-system
data:
  values.yaml: |
    image: {{ .Values.image }}
    replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-mode
  namespace: flux-system
data:
  mode: {{ .Values.mode }}
"""


def releases_chart(
    *,
    replicas=4,
    image="nginx:1.27.0",
    mode="steady",
    chart_path="./apps/web",
    source="GitRepository",
):
    return {
        "releases/Chart.yaml": chart_yaml("releases"),
        "releases/values.yaml": f"replicas: {replicas}\nimage: {image}\nmode: {mode}\nchartPath: {chart_path}\nsourceKind: {source}\n",
        "releases/templates/web.yaml": FLUX_RELEASE,
    }


# A DaemonSet that shares the node's PIDs or not, optionally silenced with aftershock.io/ignore.
def agent_daemonset(host_pid: bool, ignore: str | None = None) -> str:
    annotations = (
        f"\n  annotations:\n    aftershock.io/ignore: {json.dumps(ignore)}" if ignore else ""
    )
    return f"""apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent{annotations}
spec:
  selector: {{matchLabels: {{app: agent}}}}
  template:
    metadata: {{labels: {{app: agent}}}}
    spec:
      hostPID: {str(host_pid).lower()}
      containers: [{{name: agent, image: "busybox:1.36"}}]
"""


def packaged(files: dict[str, str]) -> bytes:
    """A chart archive as `helm package` writes it: the files (paths under the chart's folder name),
    gzipped tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
