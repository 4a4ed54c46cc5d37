"""Pod Security Standards tables: allowed values of each control, by Kubernetes version.

Source: the Pod Security Standards page and the pod-security-admission checks
(k8s.io/pod-security-admission/policy, check_*.go), which version each control by the minimum
Kubernetes minor version whose policy it belongs to.
"""

from __future__ import annotations

PSS_REFERENCE = "https://kubernetes.io/docs/concepts/security/pod-security-standards/"

BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
RESTRICTED_ADD_CAPABILITIES = frozenset({"NET_BIND_SERVICE"})
# Capabilities that amount to root on the node: a container adding them is graded critical.
NODE_ROOT_CAPABILITIES = frozenset(
    {"ALL", "SYS_ADMIN", "SYS_MODULE", "SYS_RAWIO", "SYS_PTRACE", "BPF", "DAC_READ_SEARCH"}
)

_SYSCTLS_1_0 = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}

_SELINUX_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 | {"container_engine_t"}

RESTRICTED_VOLUME_SOURCES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)

SENSITIVE_HOST_PATHS = frozenset(
    {
        "/",
        "/etc",
        "/proc",
        "/sys",
        "/root",
        "/var/lib/kubelet",
        "/var/lib/docker",
        "/var/lib/containerd",
        "/var/run/docker.sock",
        "/run/docker.sock",
        "/var/run/containerd/containerd.sock",
        "/run/containerd/containerd.sock",
        "/var/run/crio/crio.sock",
        "/run/crio/crio.sock",
        "/etc/kubernetes",
    }
)


def allowed_sysctls(version: tuple[int, int]) -> frozenset[str]:
    if version >= (1, 29):
        return _SYSCTLS_1_29
    if version >= (1, 27):
        return _SYSCTLS_1_27
    return _SYSCTLS_1_0


def allowed_selinux_types(version: tuple[int, int]) -> frozenset[str]:
    return _SELINUX_TYPES_1_31 if version >= (1, 31) else _SELINUX_TYPES_1_0


def capability_name(value: object) -> str:
    """A capability as the container runtime applies it: case-insensitive, with or without the CAP_
    prefix (`drop: ["all"]` drops every capability), so `all`, `ALL` and `CAP_ALL` are one name."""
    return (value if isinstance(value, str) else str(value)).strip().upper().removeprefix("CAP_")
