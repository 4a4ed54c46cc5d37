"""Rule host-path-node-binaries: a container can write into the node's binary or Kubernetes folders."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, is_true, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import PodSpec, containers_of, volumes_of

# Folders whose files the node executes or trusts: CNI plugins, system and local binaries, the
# kubelet's configuration and static pods, flexvolume drivers.
NODE_BINARY_FOLDERS = (
    "/opt/cni/bin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/bin",
    "/sbin",
    "/opt/bin",
    "/etc/kubernetes",
    "/usr/libexec/kubernetes",
)


def binary_folder(host_path: str) -> str | None:
    """The node binary folder the path is, lies in or contains (`/usr` holds /usr/bin); never `/`,
    which pss-host-path already grades critical."""
    path = host_path.rstrip("/")
    if not path:
        return None
    for folder in NODE_BINARY_FOLDERS:
        if path == folder or path.startswith(folder + "/") or folder.startswith(path + "/"):
            return folder
    return None


def writers(pod: PodSpec, volume: str) -> list[str]:
    """Labels of the containers that mount `volume` without `readOnly: true`."""
    found = []
    for container in containers_of(pod):
        for mount in map(as_map, as_list(container.body.get("volumeMounts"))):
            if text(mount.get("name")) == volume and not is_true(mount.get("readOnly")):
                found.append(container.label)
                break
    return found


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for path, name, volume in volumes_of(pod):
        host_path = text(as_map(volume.get("hostPath")).get("path"))
        folder = binary_folder(host_path) if "hostPath" in volume else None
        who = writers(pod, name) if folder else []
        if not folder or not who:
            continue
        into = (
            f"the node's {folder}"
            if host_path.rstrip("/") == folder or host_path.startswith(folder + "/")
            else f"the node's {host_path.rstrip('/')}, which holds {folder}"
        )
        yield Issue(
            facet=f"volume {name}",
            message=f"lets {', '.join(who)} write into {into} (hostPath {host_path}, "
            f"volume {name} mounted without readOnly)",
            field=f"{path}.hostPath.path",
            tokens=(host_path, "hostPath"),
            items=frozenset(who),
            facts=(Fact("host_path", host_path), Fact("folder", folder), Fact("writers", who)),
            summary=f"writable hostPath {host_path}",
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"hostPath"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="host-path-node-binaries",
    title="Writes into the node's binary or Kubernetes folders",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="hostPath volumes on a folder the node executes or trusts (/opt/cni/bin, /usr/local/bin, "
        "/usr/bin, /usr/sbin, /bin, /sbin, /opt/bin, /etc/kubernetes, /usr/libexec/kubernetes), below one "
        "or above one (`/usr`, `/opt`), that a container or init container mounts without `readOnly: true`. "
        "A new writer of the same volume widens the finding.",
        why="Whatever the container writes there runs on the node outside any container: a CNI plugin the "
        "kubelet executes for every pod, a binary on root's PATH, a static pod manifest or kubeconfig under "
        "/etc/kubernetes. A compromised image or a bad release replaces node software for good; deleting the "
        "chart leaves the files behind.",
        example="    initContainers:\n      - name: install-cni\n        volumeMounts:\n          - {name: cni-bin, "
        "mountPath: /host/opt/cni/bin}\n    volumes:\n      - name: cni-bin\n        hostPath: {path: /opt/cni/bin}",
        fix="Mount the folder `readOnly: true` where the pod only reads it. A node agent that must install "
        "binaries should do it from a dedicated init container with a pinned image, in a namespace whose "
        "admission policy allows only that, and write the narrowest path (one file) instead of the folder.",
    ),
)
