"""What a side's jobs cost when a review makes them batch after batch: the facts read from a chart's
files once per ref, a shared workspace written once, and a partial copy of a chart once per source,
whichever workspace asks."""

from dataclasses import replace
from pathlib import Path

from aftershock.ingest.charts import discover_charts
from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.model.contexts import RenderInputs, TemplateSelection
from aftershock.model.units import AffectedChart, AffectStep
from aftershock.pipeline.rendering.chart_jobs import RenderSettings, side_jobs
from aftershock.render.plan import plan_renders
from blob_counts import CountingReader
from charts import app_chart
from gitrepo import commit, make_repo

RANDOM = "kind: Secret\nmetadata: {name: s}\nstringData: {pw: {{ randAlphaNum 8 | quote }}}\n"


def _repo(tmp_path: Path) -> tuple[GitRepository, str]:
    repo = make_repo(tmp_path)
    files = app_chart("apps/web", "web") | {"apps/web/templates/secret.yaml": RANDOM}
    return GitRepository.open(repo), commit(repo, files, "feat: web")


def _plan(snapshot: RefSnapshot, left_out: tuple[str, ...] = ()):
    charts = discover_charts(snapshot, "head")
    affected = AffectedChart("apps/web", (AffectStep("file", "apps/web/values.yaml", "changed"),))
    (plan,) = plan_renders([affected], charts, charts)
    inputs = RenderInputs(templates=TemplateSelection(left_out=left_out))
    return replace(plan, base_inputs=inputs, head_inputs=inputs), charts


def test_a_chart_is_read_for_random_functions_once_per_ref_over_many_batches(tmp_path):
    git, sha = _repo(tmp_path)
    settings = RenderSettings("release", "default")
    with (
        CountingReader(git) as reader,
        RefSnapshot.open(git, sha, "head", 1 << 20, reader) as tree,
    ):
        plan, charts = _plan(tree)
        asked = []
        for batch in range(3):
            reader.asked = 0
            (job,) = side_jobs([plan], Side.HEAD, (tree, charts), settings, tmp_path / f"w{batch}")
            asked.append(reader.asked)
            assert len(job.requests) == 2  # a chart that calls randAlphaNum renders twice
        reader.asked = 0  # a batch sharing a workspace with an earlier one writes nothing again
        (job,) = side_jobs([plan], Side.HEAD, (tree, charts), settings, tmp_path / "w0")
        assert reader.asked == 0 and len(job.requests) == 2
        assert (tmp_path / "w0" / "apps/web/templates/secret.yaml").read_text() == RANDOM
    files = len(app_chart("apps/web", "web")) + 1
    # every batch writes the chart's files into its workspace; only the first reads them to scan
    assert asked[0] == 2 * files
    assert asked[1:] == [files, files]


def test_a_partial_copy_is_made_once_per_source_for_every_workspace_that_asks(tmp_path):
    git, sha = _repo(tmp_path)
    settings = RenderSettings("release", "default")
    work = tmp_path / "work"
    dirs = []
    with BlobReader(git) as reader:
        for _ in range(2):  # two snapshots of one commit: each is a source of its own
            with RefSnapshot.open(git, sha, "head", 1 << 20, reader) as tree:
                plan, charts = _plan(tree, left_out=("web/templates/secret.yaml",))
                for name in ("contexts-head", "head"):
                    (job,) = side_jobs([plan], Side.HEAD, (tree, charts), settings, work / name)
                    dirs.append(job.requests[0].chart_dir)
    assert dirs[0] == dirs[1] != dirs[2] == dirs[3]
    for chart_dir in dirs:
        assert Path(chart_dir).parent.parent == work / "partial"
        assert sorted(p.name for p in (Path(chart_dir) / "templates").iterdir()) == [
            "deployment.yaml"
        ]
    assert len(list((work / "partial").iterdir())) == 2
