"""Partial charts: the templates Helm's errors name, and copies of a chart without some templates,
rendered with the embedded Helm."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from aftershock.model.contexts import TemplateSelection
from aftershock.render.interface import RenderRequest
from aftershock.render.workspaces.partial_charts import named_templates, partial_chart

NIL = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Values.global.region }}}\n"
INDEX = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ index .Values.platform "r" }}}\n'
HELPERS = '{{- define "app.guard" -}}{{ fail "guarded by a helper" }}{{- end -}}\n'
USES_HELPER = '{{ include "app.guard" . }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\n'
PLAIN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def chart(root: Path, name: str = "app", **templates: str) -> Path:
    files = {"Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n"}
    files.update({f"templates/{k.replace('_', '-')}.yaml": v for k, v in templates.items()})
    return write(root, files)


def error_of(renderer, chart_dir: Path) -> str:
    (outcome,) = renderer.render_many([RenderRequest(str(chart_dir))])
    assert outcome.error is not None
    return outcome.error


def test_each_form_of_helm_error_names_its_template(tmp_path, renderer):
    app = chart(tmp_path / "app", nil=NIL)
    assert named_templates(error_of(renderer, app)) == ("app/templates/nil.yaml",)
    app = chart(tmp_path / "index", index=INDEX)
    assert named_templates(error_of(renderer, app)) == ("app/templates/index.yaml",)
    app = write(chart(tmp_path / "helper", uses_helper=USES_HELPER), {"templates/_h.tpl": HELPERS})
    assert named_templates(error_of(renderer, app)) == ("app/templates/uses-helper.yaml",)
    app = chart(tmp_path / "sub")
    chart(app / "charts" / "sub", "sub", req='{{ required "x is needed" .Values.x }}\n')
    assert named_templates(error_of(renderer, app)) == ("app/charts/sub/templates/req.yaml",)
    parse = "rendered template is not valid YAML: oops (app/templates/x.yaml:2); fix the template"
    assert named_templates(parse) == ("app/templates/x.yaml",)
    assert named_templates("values don't meet the specifications of the schema(s)") == ()


def packaged(name: str, files: dict[str, str]) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for path, text in files.items():
            info = tarfile.TarInfo(f"{name}/{path}")
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    return data.getvalue()


def test_a_packaged_subcharts_template_is_left_out_of_an_unpacked_copy(tmp_path, renderer):
    app = chart(tmp_path / "ws" / "app", plain=PLAIN)
    archive = app / "charts" / "sub-0.1.0.tgz"
    archive.parent.mkdir()
    archive.write_bytes(
        packaged(
            "sub",
            {
                "Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                "templates/req.yaml": '{{ required "x is needed" .Values.x }}\n',
                "templates/svc.yaml": PLAIN.replace("plain", "sub-plain"),
            },
        )
    )
    error = error_of(renderer, app)
    left_out = TemplateSelection(left_out=named_templates(error))
    copy = partial_chart(app, left_out, tmp_path / "copies")
    (outcome,) = renderer.render_many([RenderRequest(str(copy))])
    assert outcome.error is None
    assert sorted(outcome.manifests) == [
        "app/charts/sub/templates/svc.yaml",
        "app/templates/plain.yaml",
    ]
    assert archive.is_file()  # the workspace's own chart is untouched
    assert partial_chart(app, left_out, tmp_path / "copies") == copy  # made once


def test_a_suites_selection_keeps_its_templates_and_every_partial(tmp_path, renderer):
    """The failing templates are not selected; the partial the selected one includes is kept."""
    app = write(
        chart(tmp_path / "app", plain=PLAIN, uses_helper=USES_HELPER, nil=NIL),
        {"templates/_h.tpl": '{{- define "app.name" -}}named{{- end -}}\n'},
    )
    (app / "templates" / "plain.yaml").write_text(
        PLAIN.replace("plain", '{{ include "app.name" . }}')
    )
    copy = partial_chart(app, TemplateSelection(include=("plain.yaml",)), tmp_path / "copies")
    (outcome,) = renderer.render_many([RenderRequest(str(copy))])
    assert outcome.error is None and sorted(outcome.manifests) == ["app/templates/plain.yaml"]
    assert "name: named" in outcome.manifests["app/templates/plain.yaml"]


def test_a_dependency_left_out_leaves_the_copy_and_keeps_the_workspace(tmp_path, renderer):
    deps = (
        "dependencies:\n- {name: redis, version: 1.0.0, repository: https://charts.example.invalid}\n"
        "- {name: redis, alias: cache, version: 1.0.0, repository: https://charts.example.invalid}\n"
        "- {name: db, version: 1.0.0, repository: https://charts.example.invalid}\n"
    )
    sub = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sub}\n"
    root = write(
        tmp_path / "ws" / "app",
        {
            "Chart.yaml": f"apiVersion: v2\nname: app\nversion: 0.1.0\n{deps}",
            "templates/cm.yaml": PLAIN,
            "charts/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 1.0.0\n",
            "charts/redis/templates/cm.yaml": sub,
            "charts/db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 1.0.0\n",
            "charts/db/templates/cm.yaml": sub,
        },
    )
    original = (root / "Chart.yaml").read_text()

    def rendered(*routes: str) -> list[str]:
        selection = TemplateSelection(dependencies_left_out=routes)
        copy = partial_chart(root, selection, tmp_path / "copies")
        (outcome,) = renderer.render_many([RenderRequest(str(copy))])
        assert outcome.ok, outcome.error
        return sorted(outcome.manifests)

    everything = [
        "app/charts/cache/templates/cm.yaml",
        "app/charts/db/templates/cm.yaml",
        "app/charts/redis/templates/cm.yaml",
        "app/templates/cm.yaml",
    ]
    assert rendered("app/charts/none") == everything
    assert rendered("app/charts/db") == [t for t in everything if "/db/" not in t]
    # one alias left out, the other renders: the folder both share stays
    assert rendered("app/charts/cache") == [t for t in everything if "/cache/" not in t]
    assert rendered("app/charts/cache", "app/charts/redis") == [
        "app/charts/db/templates/cm.yaml",
        "app/templates/cm.yaml",
    ]
    assert (root / "Chart.yaml").read_text() == original  # the workspace's file is untouched
    assert (root / "charts" / "db" / "templates" / "cm.yaml").is_file()


def test_a_copy_never_links_the_templates_it_leaves_out(tmp_path, monkeypatch):
    """A chart rendered one template at a time is copied once per template: each copy links only
    what it keeps (the partials, Chart.yaml, the selected template), not every template to delete."""
    from aftershock.render.workspaces import chart_copies

    app = write(
        chart(tmp_path / "app", plain=PLAIN, uses_helper=USES_HELPER, nil=NIL),
        {"templates/_h.tpl": HELPERS, "templates/extra/more.yaml": PLAIN},
    )
    linked: list[str] = []
    real = chart_copies._link_or_copy

    def counting(source: str, target: str) -> str:  # the real link, counted
        linked.append(Path(source).relative_to(app).as_posix())
        return real(source, target)

    monkeypatch.setattr(chart_copies, "_link_or_copy", counting)
    copy = partial_chart(app, TemplateSelection(include=("plain.yaml",)), tmp_path / "copies")
    assert sorted(linked) == ["Chart.yaml", "templates/_h.tpl", "templates/plain.yaml"]
    kept = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
    assert kept == sorted(linked)
