"""Small, realistic chart files for tests, as path -> text mappings to pass to gitrepo.commit."""

from __future__ import annotations


def chart_yaml(name: str, *, kind: str = "application", deps: str = "") -> str:
    return f"apiVersion: v2\nname: {name}\nversion: 0.1.0\ntype: {kind}\n{deps}"


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
