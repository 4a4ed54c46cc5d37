"""The explicit list of every rule, in the order `aftershock rules` prints them.

A rule exists for aftershock only when it is listed here: importing a rule module registers nothing.
"""

from __future__ import annotations

from aftershock.rules.exposure import ingress_tls, service_exposure
from aftershock.rules.flux import depends_on_removed, remediation_weakened, timeout_shortened
from aftershock.rules.helm import hook_deadlock
from aftershock.rules.hygiene import commit_title, commit_trailers, fixup_commits
from aftershock.rules.images import latest_tag, not_pinned
from aftershock.rules.model import Rule
from aftershock.rules.network import policy_removed, policy_widened
from aftershock.rules.pss import (
    apparmor, capabilities_baseline, capabilities_restricted, host_namespaces, host_path, host_ports, host_probes,
    host_process, privilege_escalation, privileged, proc_mount, run_as_non_root, run_as_user, seccomp_baseline,
    seccomp_restricted, selinux, sysctls, volume_types,
)
from aftershock.rules.rbac import (
    cluster_admin_binding, cluster_scope_widening, escalation_verbs, nodes_proxy, pod_exec, secrets_access, webhook_configuration,
    wildcard,
)
from aftershock.rules.tests import newly_failing, render_broken
from aftershock.rules.secrets import committed_secret_value, configmap_credentials, env_literal
from aftershock.rules.upgrade import crd_versions, crds_folder, deprecated_api, immutable_fields, resource_deleted
from aftershock.rules.values import (
    override_trap, removed_key_documented, removed_key_used, schema_violation, stale_test_assertion, undefined_reference,
)
from aftershock.rules.workloads import deployment_strategy, probes_removed, resources_removed, token_automount

RULES: tuple[Rule, ...] = (
    # Pod Security Standards, baseline
    host_process.RULE,
    host_namespaces.RULE,
    privileged.RULE,
    capabilities_baseline.RULE,
    host_path.RULE,
    host_ports.RULE,
    apparmor.RULE,
    selinux.RULE,
    proc_mount.RULE,
    seccomp_baseline.RULE,
    sysctls.RULE,
    host_probes.RULE,
    # Pod Security Standards, restricted
    volume_types.RULE,
    privilege_escalation.RULE,
    run_as_non_root.RULE,
    run_as_user.RULE,
    seccomp_restricted.RULE,
    capabilities_restricted.RULE,
    # RBAC
    wildcard.RULE,
    escalation_verbs.RULE,
    secrets_access.RULE,
    pod_exec.RULE,
    nodes_proxy.RULE,
    cluster_admin_binding.RULE,
    webhook_configuration.RULE,
    cluster_scope_widening.RULE,
    # Exposure, secrets, images, service accounts, network policies
    service_exposure.RULE,
    ingress_tls.RULE,
    env_literal.RULE,
    configmap_credentials.RULE,
    committed_secret_value.RULE,
    latest_tag.RULE,
    not_pinned.RULE,
    token_automount.RULE,
    policy_removed.RULE,
    policy_widened.RULE,
    # Reliability and upgrade safety
    immutable_fields.RULE,
    resource_deleted.RULE,
    deprecated_api.RULE,
    crd_versions.RULE,
    crds_folder.RULE,
    probes_removed.RULE,
    resources_removed.RULE,
    deployment_strategy.RULE,
    depends_on_removed.RULE,
    remediation_weakened.RULE,
    timeout_shortened.RULE,
    hook_deadlock.RULE,
    # Values contract
    removed_key_used.RULE,
    removed_key_documented.RULE,
    schema_violation.RULE,
    stale_test_assertion.RULE,
    newly_failing.RULE,
    render_broken.RULE,
    override_trap.RULE,
    undefined_reference.RULE,
    # Hygiene
    commit_title.RULE,
    commit_trailers.RULE,
    fixup_commits.RULE,
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
