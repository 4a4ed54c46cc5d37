"""`aftershock test` prepares a chart as CI does after `helm dependency build`: local dependencies
copied in, values schemas split over files inlined. Real Helm through the SDK renderer."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

from aftershock.render.schemas.schema_refs import inline_schema_refs
from aftershock.render.workspaces.chart_copies import copy_chart
from aftershock.testrun import cli_entry


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


# A library with its test chart inside it, as bjw-s lays them out: the test chart depends on
# the library by `file://../`, and the library's .helmignore leaves the test chart out.
LIBRARY = {
    "lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
    "lib/.helmignore": "test-chart/\nschemas/\n",
    "lib/templates/_cm.tpl": '{{- define "lib.cm" -}}\napiVersion: v1\nkind: ConfigMap\n'
    "metadata: {name: {{ .Values.name }}}\n{{- end -}}\n",
    "lib/values.schema.json": json.dumps(
        {
            "$id": "https://example.invalid/values.schema.json",
            "type": "object",
            "properties": {"name": {"$ref": "schemas/name.json#/name"}},
        }
    ),
    "lib/schemas/name.json": json.dumps({"name": {"type": "string", "maxLength": 8}}),
    "lib/test-chart/Chart.yaml": """\
        apiVersion: v2
        name: lib-test
        version: 1.0.0
        dependencies:
          - name: lib
            repository: file://../
            version: ">0.0.0-0"
        """,
    "lib/test-chart/values.yaml": "name: short\n",
    "lib/test-chart/values.schema.json": json.dumps({"$ref": "file://../values.schema.json"}),
    "lib/test-chart/templates/cm.yaml": '{{ include "lib.cm" . }}\n',
    "lib/test-chart/unittests/cm/name_test.yaml": """\
        suite: name
        templates: [cm.yaml]
        tests:
          - it: uses the library
            asserts: [{equal: {path: metadata.name, value: short}}]
          - it: is validated by the library's schema in another file
            set: {name: far-too-long-a-name}
            asserts: [{failedTemplate: {}}]
        """,
}


def test_local_dependency_and_split_schema_as_after_dependency_build(tmp_path: Path):
    _write(tmp_path, LIBRARY)
    out = io.StringIO()
    code = cli_entry.run(
        [str(tmp_path / "lib/test-chart")],
        junit=None,
        workers=1,
        color=False,
        out=out,
        test_files=("unittests/**/*_test.yaml",),
    )
    assert code == 0, out.getvalue()
    assert "Tests:       2 passed, 2 total" in out.getvalue()
    assert not (tmp_path / "lib/test-chart/charts").exists()  # the chart itself is never changed


def test_schema_references_are_inlined_from_the_files_they_name(tmp_path: Path):
    _write(tmp_path, LIBRARY)
    target = tmp_path / "out"
    target.mkdir()
    assert inline_schema_refs(tmp_path / "lib/test-chart", tmp_path, target_dir=target)
    inlined = json.loads((target / "values.schema.json").read_text())
    assert inlined["properties"]["name"] == {"type": "string", "maxLength": 8}
    assert "$id" not in inlined  # an inlined document's $id would move Helm's base address


def test_a_reference_outside_the_allowed_folder_is_left_for_helm_to_report(tmp_path: Path):
    _write(tmp_path, LIBRARY)
    assert not inline_schema_refs(tmp_path / "lib/test-chart", tmp_path / "lib/test-chart")
    assert json.loads((tmp_path / "lib/test-chart/values.schema.json").read_text()) == {
        "$ref": "file://../values.schema.json"
    }


def test_copies_skip_what_helmignore_leaves_out_so_a_self_linking_library_ends(tmp_path: Path):
    _write(tmp_path, LIBRARY)
    (tmp_path / "lib/test-chart/charts").mkdir()
    (tmp_path / "lib/test-chart/charts/lib").symlink_to("../..", target_is_directory=True)
    copy_chart(tmp_path / "lib/test-chart", tmp_path / "copy")
    assert (tmp_path / "copy/charts/lib/templates/_cm.tpl").is_file()
    assert not (tmp_path / "copy/charts/lib/test-chart").exists()
    assert not (tmp_path / "copy/charts/lib/schemas").exists()


def test_a_symlinked_file_is_copied_as_its_target(tmp_path: Path):
    _write(tmp_path, LIBRARY)
    (tmp_path / "LICENSE").write_text("MIT\n", encoding="utf-8")
    (tmp_path / "lib/LICENSE").symlink_to("../LICENSE")
    copy_chart(tmp_path / "lib", tmp_path / "copy")
    assert not (tmp_path / "copy/LICENSE").is_symlink()
    assert (tmp_path / "copy/LICENSE").read_text() == "MIT\n"
