"""The explicit list of every rule, in the order `aftershock rules` prints them.

A rule exists for aftershock only when it is listed here: importing a rule module registers nothing.
"""

from __future__ import annotations

from aftershock.rules.api import object_schema
from aftershock.rules.exposure import backend_missing, ingress_tls, service_exposure
from aftershock.rules.flux import depends_on_removed, remediation_weakened, timeout_shortened
from aftershock.rules.gitops import object_conflict
from aftershock.rules.helm import hook_deadlock, shell_injection
from aftershock.rules.hygiene import commit_title, commit_trailers, fixup_commits, review_feedback
from aftershock.rules.images import latest_tag, not_pinned
from aftershock.rules.model import Rule
from aftershock.rules.network import (
    created_without_policy,
    policy_removed,
    policy_selects_nothing,
    policy_widened,
    scrape_job_duplicate,
    selector_on_version,
    selector_retargeted,
    service_selects_nothing,
    servicemonitor_selects_nothing,
)
from aftershock.rules.pss import (
    apparmor,
    capabilities_baseline,
    capabilities_restricted,
    host_namespaces,
    host_path,
    host_ports,
    host_probes,
    host_process,
    privilege_escalation,
    privileged,
    proc_mount,
    read_only_root_fs,
    run_as_group,
    run_as_non_root,
    run_as_user,
    seccomp_baseline,
    seccomp_restricted,
    selinux,
    sysctls,
    volume_types,
)
from aftershock.rules.rbac import (
    cluster_admin_binding,
    cluster_scope_widening,
    create_pods,
    escalation_verbs,
    nodes_proxy,
    pod_exec,
    role_narrowed_in_use,
    role_widened,
    secrets_access,
    webhook_configuration,
    wildcard,
)
from aftershock.rules.secrets import committed_secret_value, configmap_credentials, env_literal
from aftershock.rules.tests import newly_failing, render_broken
from aftershock.rules.upgrade import (
    crd_versions,
    crds_folder,
    deprecated_api,
    field_consequence,
    immutable_fields,
    resource_deleted,
    values_rejected,
)
from aftershock.rules.values import (
    key_type_changed,
    override_trap,
    release_override_trap,
    removed_key_documented,
    removed_key_used,
    schema_violation,
    stale_key_reference,
    stale_test_assertion,
    undefined_reference,
    unknown_reference,
)
from aftershock.rules.workloads import (
    component_handed_over,
    config_not_rolled,
    created_without_probes,
    created_without_resources,
    deployment_strategy,
    env_duplicate,
    env_reference_missing,
    hash_rename_rolls,
    host_path_node_binaries,
    hpa_target_missing,
    pdb_above_hpa,
    pdb_blocks_eviction,
    port_invalid,
    port_not_exposed,
    privileged_port,
    probes_removed,
    resources_removed,
    restart_policy,
    rollout_everywhere,
    selector_mismatch,
    service_account_field,
    service_account_missing,
    ssh_port,
    token_automount,
)

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
    # Hardening beyond the Pod Security Standards
    host_path_node_binaries.RULE,
    shell_injection.RULE,
    read_only_root_fs.RULE,
    run_as_group.RULE,
    privileged_port.RULE,
    ssh_port.RULE,
    # RBAC
    wildcard.RULE,
    escalation_verbs.RULE,
    create_pods.RULE,
    secrets_access.RULE,
    pod_exec.RULE,
    nodes_proxy.RULE,
    cluster_admin_binding.RULE,
    webhook_configuration.RULE,
    cluster_scope_widening.RULE,
    role_widened.RULE,
    role_narrowed_in_use.RULE,
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
    created_without_policy.RULE,
    # Reliability and upgrade safety
    immutable_fields.RULE,
    resource_deleted.RULE,
    deprecated_api.RULE,
    crd_versions.RULE,
    crds_folder.RULE,
    field_consequence.RULE,
    probes_removed.RULE,
    resources_removed.RULE,
    created_without_probes.RULE,
    created_without_resources.RULE,
    deployment_strategy.RULE,
    depends_on_removed.RULE,
    remediation_weakened.RULE,
    timeout_shortened.RULE,
    hook_deadlock.RULE,
    # Schemas and consistency inside a release
    object_schema.RULE,
    selector_mismatch.RULE,
    service_selects_nothing.RULE,
    selector_retargeted.RULE,
    selector_on_version.RULE,
    scrape_job_duplicate.RULE,
    backend_missing.RULE,
    policy_selects_nothing.RULE,
    hpa_target_missing.RULE,
    port_not_exposed.RULE,
    port_invalid.RULE,
    servicemonitor_selects_nothing.RULE,
    env_reference_missing.RULE,
    config_not_rolled.RULE,
    component_handed_over.RULE,
    service_account_missing.RULE,
    env_duplicate.RULE,
    service_account_field.RULE,
    # Availability
    pdb_blocks_eviction.RULE,
    pdb_above_hpa.RULE,
    restart_policy.RULE,
    rollout_everywhere.RULE,
    hash_rename_rolls.RULE,
    # Sources of objects
    object_conflict.CONFLICT,
    object_conflict.DUPLICATE,
    # Values contract
    removed_key_used.RULE,
    key_type_changed.RULE,
    unknown_reference.RULE,
    removed_key_documented.RULE,
    stale_key_reference.RULE,
    schema_violation.RULE,
    stale_test_assertion.RULE,
    newly_failing.RULE,
    render_broken.RULE,
    values_rejected.RULE,
    override_trap.RULE,
    release_override_trap.RULE,
    undefined_reference.RULE,
    # Hygiene
    commit_title.RULE,
    commit_trailers.RULE,
    fixup_commits.RULE,
    review_feedback.RULE,
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
