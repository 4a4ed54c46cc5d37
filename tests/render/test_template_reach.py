"""The template files a render of a suite's templates may run: the selected ones and the files
defining what they include, transitively; the whole chart for no selection."""

from __future__ import annotations

from aftershock.model.contexts import TemplateSelection
from aftershock.render.template_reach import files_run

TEXTS = {
    "c/templates/_helpers.tpl": '{{- define "c.name" }}c{{ end }}\n{{- define "c.unused" }}{{ end }}',
    "c/templates/_pod.tpl": '{{- define "c.pod" }}name: {{ include "c.name" . }}{{ end }}',
    "c/templates/_other.tpl": '{{- define "c.other" }}x{{ end }}',
    "c/templates/deployment.yaml": 'spec: {{- include "c.pod" . | nindent 2 }}',
    "c/templates/requirements.yaml": '{{- template "c.other" . }}',
    "c/templates/service.yaml": "kind: Service",
}


def test_a_selected_template_runs_the_partials_it_includes_transitively():
    run = files_run(TemplateSelection(include=("deployment.yaml",)), "c", TEXTS)
    assert run == {
        "c/templates/deployment.yaml",
        "c/templates/_pod.tpl",
        "c/templates/_helpers.tpl",
    }


def test_a_template_including_nothing_of_a_partial_does_not_run_it():
    run = files_run(TemplateSelection(include=("requirements.yaml",)), "c", TEXTS)
    assert run == {"c/templates/requirements.yaml", "c/templates/_other.tpl"}


def test_excluded_templates_and_a_chart_at_the_root():
    root = {path.removeprefix("c/"): text for path, text in TEXTS.items()}
    run = files_run(TemplateSelection(exclude=("deployment.yaml", "requirements.yaml")), "", root)
    assert run == {"templates/service.yaml"}


def test_no_selection_is_the_whole_chart():
    assert files_run(TemplateSelection(), "c", TEXTS) is None
