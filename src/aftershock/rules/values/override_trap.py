"""Rule values-override-trap: a partial override of a default list that a template merges drops its defaults.

The rule only reads the review's override probes (`Review.override_probes`, made by the
pipeline's override-trap stage, which renders); it never renders itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.override import OverrideProbe, ProbeStatus
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

_SHOWN = 5  # dropped entries named in a message


def probe_delta(probe: OverrideProbe) -> Delta | None:
    """What the change did to the trap, comparing what the same override drops at base and at head."""
    if probe.status not in (ProbeStatus.DROPPED, ProbeStatus.KEPT):
        return None  # cut or failed: nothing observed
    head = set(probe.dropped_entries)
    base = set(probe.base_dropped or ())
    if probe.base_dropped is None or not base:
        return Delta.INTRODUCED if head else None  # a base not probed never lowers what head shows
    if not head:
        return Delta.RESOLVED
    if head == base:
        return Delta.PRE_EXISTING
    return Delta.WIDENED if head - base else Delta.NARROWED


def _names(entries: tuple[str, ...]) -> str:
    shown = ", ".join(entries[:_SHOWN])
    return shown + (f" and {len(entries) - _SHOWN} more" if len(entries) > _SHOWN else "")


def _message(probe: OverrideProbe, delta: Delta) -> str:
    if delta is Delta.RESOLVED:
        return (
            f"a partial override of {probe.override_path} no longer drops the default entries of "
            f"{probe.values_path} ({probe.values_file}); at base it dropped {_names(probe.base_dropped or ())}"
        )
    first = probe.dropped[0]
    where = f"{first.object} {first.field}"
    new = sorted(set(probe.dropped_entries) - set(probe.base_dropped or ()))
    added = (
        f" ({_names(tuple(new))} new with this change)" if delta is Delta.WIDENED and new else ""
    )
    merged = f"{probe.site.function} in {probe.site.template.rsplit('/', 1)[-1]}:{probe.site.line}"
    return (
        f"a partial override of {probe.override_path} replaces the whole default list {probe.values_path} "
        f"({merged}): rendered with one override entry, {where} loses {_names(probe.dropped_entries)}{added}"
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for probe in ctx.review.override_probes:
        delta = probe_delta(probe)
        if delta is None:
            continue
        entries = (
            probe.dropped_entries
            if delta is not Delta.RESOLVED
            else tuple(probe.base_dropped or ())
        )
        where = probe.dropped[0] if probe.dropped else None
        path = (
            PathStep("file", probe.values_file, "holds the default list"),
            PathStep("values_key", probe.values_path, "default list"),
            PathStep(
                "file",
                probe.site.template,
                f"line {probe.site.line}: {probe.site.function} with {probe.override_path}",
            ),
        ) + (
            (
                PathStep("object", where.object_id, "rendered with a partial override"),
                PathStep("field", where.field, f"drops {len(entries)} default entries"),
            )
            if where
            else ()
        )
        yield Concern(
            subject=Subject(
                SubjectKind.VALUES_KEY,
                f"{probe.values_file}#{probe.values_path}",
                f"{probe.values_path} in {probe.values_file}",
                probe.override_path,
            ),
            message=_message(probe, delta),
            delta=delta,
            location=Location(probe.values_file, probe.values_line),
            path=path,
            facts=(Fact("dropped", sorted(entries)),),
            scope_paths=(probe.chart, probe.values_file, probe.site.template),
        )


RULE = Rule(
    id="values-override-trap",
    title="Partial override drops default list entries",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Default lists in a chart's values.yaml that a template merges with user overrides (`merge`, "
        "`mergeOverwrite`, `mustMerge`, `mustMergeOverwrite`, in the chart or a library chart it includes), "
        "when the change touches the list or the template holding the merge. The review renders the chart "
        "again with the merge's override side set to a one-entry list (e.g. `overrides.orders.env: "
        "[{name: aftershock-probe}]`) and reports the default entries that render no longer holds, with "
        "the object and field where they disappear; the same probe at base says whether the change "
        "introduced, widened or only kept the trap. Probes are bounded per review (12 renders). A list of "
        "strings is probed with one string; a list of maps without an identity field (name, key, host, ...) "
        "is not probed, and entries rendered into a string (a ConfigMap's YAML) are not seen.",
        why="Sprig's merge functions merge maps key by key but replace a list as a whole. Whoever overrides "
        "one entry (to change a log level, add a host) silently loses every default entry they did not "
        "repeat: a service starts without its configuration file, an Ingress loses a host. Nothing fails "
        "at render time, and a default added later is dropped from every release that already overrides.",
        example="    # values.yaml\n    defaults:\n      orders:\n        env: [{name: LOG_LEVEL, value: info}, "
        "{name: ORDERS_CONFIG_FILE, value: /etc/orders/app.yaml}]\n"
        "    # templates/helmreleases.yaml\n"
        "    {{- $values := mergeOverwrite (deepCopy (index .Values.defaults $name)) (index .Values.overrides $name) }}\n"
        "    # overrides.orders.env: [{name: LOG_LEVEL, value: debug}] leaves orders with LOG_LEVEL only",
        fix="Keep defaults that must survive out of the overridable list (a separate `extraEnv` appended with "
        "`concat`), merge lists by name in the template, or document that an override must repeat the whole "
        "list and check it in the release's tests.",
    ),
)
