"""Rule scrape-job-duplicate: a Prometheus configuration names one scrape job twice.

Read from the rendered text of a ConfigMap key holding a Prometheus configuration (a YAML document
with `scrape_configs`; a Secret's data is base64 and is not read), and across the Prometheus
operator's monitors of one render, by the job name each gives its series.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.network.servicemonitor_selects_nothing import MONITORING_GROUP
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.release import ReleaseObjects, judge_in_release
from aftershock.rules.support.sources import load_yaml_documents

CONFIG_KINDS = frozenset({("", "ConfigMap")})
MONITOR_KINDS = ("ServiceMonitor", "PodMonitor", "ScrapeConfig")
MARKER = "scrape_configs"


def job_names(obj: RenderedObject) -> Iterator[tuple[str, list[str]]]:
    """(data key, the job names its Prometheus configuration lists) of each key holding one."""
    for key, value in as_map(obj.body.get("data")).items():
        if not isinstance(value, str) or MARKER not in value:
            continue
        for document in load_yaml_documents(value):
            jobs = as_list(as_map(document).get(MARKER))
            names = [text(as_map(job).get("job_name")) for job in jobs]
            yield str(key), [n for n in names if n]


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    for key, names in job_names(obj):
        twice = sorted(name for name, n in Counter(names).items() if n > 1)
        if twice:
            listed = ", ".join(twice)
            yield Issue(
                facet=f"{key} jobs",
                message=f"lists scrape job {listed} more than once in data.{key}: Prometheus "
                "refuses to load the configuration, and keeps running the last one it accepted",
                field=f"data.{key}",
                tokens=("job_name", *twice),
                items=frozenset(twice),
                facts=(Fact("jobs", twice),),
                summary=f"job {listed} twice",
            )


def monitor_job(obj: RenderedObject) -> str | None:
    """The job name a monitor gives its series: a ScrapeConfig's `jobName`, or a static `job` a
    relabeling of a ServiceMonitor's or PodMonitor's endpoints writes."""
    spec = as_map(obj.body.get("spec"))
    if obj.key.kind == "ScrapeConfig":
        return text(spec.get("jobName")) or None
    for endpoint in map(as_map, as_list(spec.get("endpoints") or spec.get("podMetricsEndpoints"))):
        for relabel in map(as_map, as_list(endpoint.get("relabelings"))):
            if text(relabel.get("targetLabel")) == "job" and text(relabel.get("replacement")):
                return text(relabel.get("replacement"))
    return None


def monitor_issues(
    obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext
) -> Iterator[Issue]:
    if obj.key.group != MONITORING_GROUP:
        return
    job = monitor_job(obj)
    others = sorted(
        str(o.key)
        for o in release.of_kind(*MONITOR_KINDS)
        if o.key != obj.key and o.key.group == MONITORING_GROUP and monitor_job(o) == job
    )
    if job and others:
        yield Issue(
            facet="job",
            message=f"names its scrape job {job}, as {', '.join(others[:3])} does: their series "
            "share one job label and overwrite each other",
            field="spec",
            tokens=("job", "jobName", job),
            facts=(Fact("job", job), Fact("also", others)),
            severity=Severity.MEDIUM,
            summary=f"job {job} shared",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    yield from judge_objects(ctx, issues, kinds=CONFIG_KINDS)
    yield from judge_in_release(ctx, monitor_issues, MONITOR_KINDS)


RULE = Rule(
    id="scrape-job-duplicate",
    title="Scrape job named twice",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A ConfigMap key holding a Prometheus configuration (a YAML document with `scrape_configs`) "
        "whose `job_name`s are not unique, as rendered (High); and Prometheus operator monitors of one "
        "render that name the same job (a ScrapeConfig's `jobName`, a `job` relabeling of a "
        "ServiceMonitor's or PodMonitor's endpoints) (Medium: their series collide).",
        why="Prometheus rejects a configuration with a duplicate job name (`found multiple scrape configs "
        "with job name`): the reload fails, the server keeps its previous configuration, and nothing "
        "the change adds is scraped, often unnoticed until an alert does not fire.",
        example="    scrape_configs:\n      - job_name: node\n        ...\n      - job_name: node   # a second "
        "block pasted for another port",
        fix="Give each scrape config its own `job_name` (a suffix per port or target), or merge the blocks.",
    ),
)
