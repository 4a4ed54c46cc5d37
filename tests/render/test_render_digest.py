"""The content key of a chart folder (render/caching/digest.py): what Helm loads, and nothing it does not."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from aftershock.render.caching import digest
from aftershock.render.caching.digest import DigestMemo, chart_digest
from aftershock.render.interface import RenderRequest

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  size: {{ .Values.size | quote }}\n"


def _chart(
    root: Path, values: str, template: str = CONFIG_MAP, subchart_values: str | None = None
) -> Path:
    chart = root / "app"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: app\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(values)
    (chart / "templates" / "cm.yaml").write_text(template)
    if subchart_values is not None:
        sub = chart / "charts" / "sub"
        (sub / "templates").mkdir(parents=True)
        (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
        (sub / "values.yaml").write_text(subchart_values)
    return chart


def _key(root: Path, values: str, *, by_content: bool = True, **kwargs: str) -> str:
    found = chart_digest(str(_chart(root, values, **kwargs)), values_by_content=by_content)
    assert found is not None
    return found[0]


def test_a_values_files_comments_and_layout_are_not_part_of_the_key(tmp_path):
    plain = _key(tmp_path / "a", "size: 3\nname: web\n")
    assert _key(tmp_path / "b", "# the size\nname: web   # a name\nsize: 3\n") == plain
    assert _key(tmp_path / "c", "size: 4\nname: web\n") != plain
    assert _key(tmp_path / "d", "size: 3.0\nname: web\n") != plain  # an int is not a float
    assert _key(tmp_path / "e", "size: '3'\nname: web\n") != plain
    sub = _key(tmp_path / "f", "size: 3\nname: web\n", subchart_values="a: 1\n")
    assert _key(tmp_path / "g", "size: 3\nname: web\n", subchart_values="# doc\na: 1\n") == sub
    # unless asked, a values file counts by its bytes (parsing every chart's values costs time)
    assert _key(tmp_path / "h", "size: 3\nname: web\n", by_content=False) != _key(
        tmp_path / "i", "# the size\nname: web   # a name\nsize: 3\n", by_content=False
    )


READS_FILES = (
    CONFIG_MAP
    + '  raw: {{ .Files.Get "values.yaml" | quote }}\n'
    + '  glob: {{ range $p, $_ := $.Files.Glob "**" }}{{ $p }} {{ end }}\n'
)


def test_a_chart_that_reads_its_files_keys_every_byte_helm_puts_among_them(tmp_path):
    """Helm never puts a (sub)chart's own values.yaml among `.Files` (see the next test): its
    comments change no key even then, but any file that is among them counts by its bytes."""
    plain = _key(tmp_path / "a", "size: 3\n", template=READS_FILES, subchart_values="a: 1\n")
    assert (
        _key(
            tmp_path / "b", "# commented\nsize: 3\n", template=READS_FILES, subchart_values="a: 1\n"
        )
        == plain
    )
    assert (
        _key(tmp_path / "c", "size: 3\n", template=READS_FILES, subchart_values="# doc\na: 1\n")
        == plain
    )
    assert (
        _key(tmp_path / "d", "size: 4\n", template=READS_FILES, subchart_values="a: 1\n") != plain
    )
    chart = _chart(tmp_path / "e", "size: 3\n", template=READS_FILES, subchart_values="a: 1\n")
    (chart / "files").mkdir()
    (chart / "files" / "values.yaml").write_text("size: 3\n")  # among .Files: read as text
    first = chart_digest(str(chart), values_by_content=True)
    (chart / "files" / "values.yaml").write_text("# commented\nsize: 3\n")
    assert first is not None and first != chart_digest(str(chart), values_by_content=True)
    # unless asked, a values file counts by its bytes
    assert _key(tmp_path / "f", "size: 3\n", by_content=False, template=READS_FILES) != _key(
        tmp_path / "g", "# commented\nsize: 3\n", by_content=False, template=READS_FILES
    )


def test_helm_reads_no_values_yaml_chart_yaml_or_schema_through_files(tmp_path, renderer):
    """What the key above relies on, observed with real Helm: `.Files` of a chart and of its
    subchart hold neither their values.yaml, Chart.yaml nor values.schema.json."""
    sub_template = READS_FILES.replace("name: x", "name: sub")
    chart = _chart(
        tmp_path, "size: 3 # commented\n", template=READS_FILES, subchart_values="a: 1\n"
    )
    (chart / "values.schema.json").write_text("{}")
    (chart / "charts" / "sub" / "templates" / "cm.yaml").write_text(sub_template)
    (chart / "files").mkdir()
    (chart / "files" / "values.yaml").write_text("size: 4\n")
    (outcome,) = renderer.render_many([RenderRequest(str(chart))])
    assert outcome.error is None, outcome.error
    app = yaml.safe_load(outcome.manifests["app/templates/cm.yaml"])
    sub = yaml.safe_load(outcome.manifests["app/charts/sub/templates/cm.yaml"])
    assert (app["data"]["raw"], app["data"]["glob"]) == ("", "files/values.yaml")
    assert (sub["data"]["raw"], sub["data"]["glob"]) == ("", None)


def test_only_a_charts_own_values_yaml_counts_by_its_values(tmp_path):
    """A template named values.yaml, or a values file Helm cannot read, counts by its bytes."""
    plain = _key(tmp_path / "a", "size: 3\n")
    chart = _chart(tmp_path / "b", "size: 3\n")
    (chart / "templates" / "values.yaml").write_text("# a template\nkind: X\n")
    first = chart_digest(str(chart), values_by_content=True)
    (chart / "templates" / "values.yaml").write_text("kind: X\n")
    assert (
        first != chart_digest(str(chart), values_by_content=True)
        and first is not None
        and first[0] != plain
    )
    assert _key(tmp_path / "c", "size: [\n") != _key(tmp_path / "d", "# note\nsize: [\n")


def test_files_no_render_reads_are_not_part_of_the_key_unless_a_template_reads_files(tmp_path):
    chart = _chart(tmp_path / "a", "size: 3\n", subchart_values="a: 1\n")
    first = chart_digest(str(chart))
    for path, text in {
        "README.md": "docs\n",
        "VALUES.md": "| size | 3 |\n",
        "ci/test-values.yaml": "size: 4\n",
        "crds/crd.yaml": "kind: CustomResourceDefinition\n",
        "charts/sub/README.md": "sub\n",
    }.items():
        (chart / path).parent.mkdir(parents=True, exist_ok=True)
        (chart / path).write_text(text)
    assert chart_digest(str(chart)) == first
    for path, text in {
        "Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.2.0\n",
        "values.schema.json": "{}",
        "templates/_helpers.tpl": '{{- define "x" -}}{{- end -}}',
        "charts/sub/templates/cm.yaml": "kind: X\n",
        "charts/other.tgz": "archive",
    }.items():
        before = chart_digest(str(chart))
        (chart / path).write_text(text)
        assert chart_digest(str(chart)) != before, path  # a render reads it
    before = chart_digest(str(chart))
    (chart / "templates" / "files.yaml").write_text('x: {{ .Files.Get "README.md" }}\n')
    reading = chart_digest(str(chart))
    (chart / "README.md").write_text("other docs\n")
    assert before != reading != chart_digest(str(chart))  # now README.md can reach a render


def _linked_copy(chart: Path, target: Path) -> Path:
    """A copy of the chart whose files are hard links to the chart's, as the review's copies are."""
    for folder, _, names in os.walk(chart):
        inside = target / Path(folder).relative_to(chart)
        inside.mkdir(parents=True, exist_ok=True)
        for name in names:
            os.link(Path(folder) / name, inside / name)
    return target


def test_a_batch_reads_a_file_linked_into_many_copies_once(tmp_path, monkeypatch):
    chart = _chart(tmp_path / "src", "size: 3\n", subchart_values="port: 80\n")
    copies = [_linked_copy(chart, tmp_path / f"copy{i}" / "app") for i in range(3)]
    (copies[2] / "templates" / "cm.yaml").unlink()  # a copy edits a file by replacing it
    (copies[2] / "templates" / "cm.yaml").write_text(CONFIG_MAP + "# edited\n")
    alone = [chart_digest(str(c), values_by_content=True) for c in (chart, *copies)]
    reads: list[str] = []
    real = digest.read_file

    def counting(path: str) -> bytes:  # the real read, counted
        reads.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(digest, "read_file", counting)
    memo = DigestMemo()
    batch = [chart_digest(str(c), memo, values_by_content=True) for c in (chart, *copies)]
    assert batch == alone  # the memo changes no key
    assert alone[1] == alone[0] and alone[3] != alone[0]
    # the chart's five files once (its and its subchart's Chart.yaml and values.yaml, cm.yaml),
    # and the file the third copy replaced
    assert sorted(reads) == sorted(["Chart.yaml", "values.yaml", "cm.yaml"] * 2)


def test_a_file_changed_under_the_same_inode_is_read_again(tmp_path):
    chart = _chart(tmp_path / "src", "size: 3\n")
    copy = _linked_copy(chart, tmp_path / "copy" / "app")
    memo = DigestMemo()
    first = chart_digest(str(chart), memo)
    with open(chart / "templates" / "cm.yaml", "a", encoding="utf-8") as handle:
        handle.write("# appended in place\n")  # the copy's file too: same inode, another size
    assert chart_digest(str(copy), memo) == chart_digest(str(copy)) != first
