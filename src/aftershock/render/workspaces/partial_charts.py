"""Partial charts: a copy of a materialised chart without some of its templates, and the templates a
Helm error names.

A chart renders all or nothing: one template that needs a live cluster or a value no context gives
fails the whole render, and Helm refuses a chart one of whose dependencies is missing. A copy can
also leave dependencies out: their entries go from the copy's Chart.yaml (requirements.yaml), a new
file in place of the link, so the chart renders without them. helm-unittest renders only the templates a suite selects (and every
partial); a copy of the chart holding only some templates gives any backend the same render. The
copy's files are hard links (or copies) of the materialised chart's, links followed, so linked
subcharts are real folders whose templates can be left out too; packaged subcharts are unpacked
only when one of their templates is left out. Nothing in a copy is ever executed.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shutil
import tarfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.helmtest.charts import chart_metadata
from aftershock.helmtest.selection import template_selected
from aftershock.model.contexts import TemplateSelection
from aftershock.model.errors import AftershockError, RenderError
from aftershock.render.workspaces.chart_copies import copy_chart

# A Helm template name followed by `:` (a position, or the message): `c/templates/x.yaml:3:4`,
# `execution error at (c/charts/sub/templates/x.yaml:1:3)`, `YAML parse error on c/templates/x.yaml: ...`.
_TEMPLATE_NAMED = re.compile(
    r"(?<![\w./-])([\w.-]+(?:/charts/[^/\s:()\"<>]+)*/templates/[^\s:()\"<>]+):"
)


def every_named_template(error: str) -> tuple[str, ...]:
    """The templates (Helm names) an error names, partials included, in order of mention."""
    return tuple(dict.fromkeys(_TEMPLATE_NAMED.findall(error)))


def named_templates(error: str) -> tuple[str, ...]:
    """The templates (Helm names) an error names, in order of mention, partials (`_*`) left out:
    a partial that fails is reached from a template that includes it, which is named first."""
    found = dict.fromkeys(_TEMPLATE_NAMED.findall(error))
    return tuple(name for name in found if not posixpath.basename(name).startswith("_"))


def partial_chart(
    chart_dir: Path, selection: TemplateSelection, copies: Path, origin: str | None = None
) -> Path:
    """A copy of the chart at `chart_dir` rendering only what `selection` keeps, made once under
    `copies` (keyed by the folder, or by the `origin` the caller names for what the folder holds,
    and the selection); RenderError when it cannot be made."""
    key = hashlib.sha256(
        json.dumps(
            [
                str(chart_dir) if origin is None else origin,
                selection.left_out,
                selection.include,
                selection.exclude,
                selection.dependencies_left_out,
            ]
        ).encode()
    ).hexdigest()[:20]
    done = copies / key
    if done.is_dir():
        return done / chart_dir.name
    building = copies / f".{key}-{os.getpid()}-{threading.get_ident()}"
    try:
        shutil.rmtree(building, ignore_errors=True)
        copy_chart(chart_dir, building / chart_dir.name, _pruned_templates(chart_dir, selection))
        _prune(building / chart_dir.name, selection)
        try:
            building.rename(done)
        except OSError:  # made meanwhile by another render of the same selection
            shutil.rmtree(building, ignore_errors=True)
    except (OSError, shutil.Error, tarfile.TarError, AftershockError) as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise RenderError(
            "cannot copy the chart to render some of its templates",
            where=str(chart_dir),
            hint=str(exc),
        ) from None
    return done / chart_dir.name


def _pruned_templates(chart_dir: Path, selection: TemplateSelection) -> Callable[[str], bool]:
    """Which files of the chart's own templates/ `_prune` would delete, so the copy never links
    them (a chart rendered one template at a time is copied once per template); its subcharts'
    are left to `_prune`, which deletes the same files whether or not they were copied."""
    name = str(chart_metadata(chart_dir)["name"])

    def pruned(relative: str) -> bool:
        if not relative.startswith("templates/") or posixpath.basename(relative).startswith("_"):
            return False
        return not _kept(f"{name}/{relative}", name, selection)

    return pruned


def _prune(chart_dir: Path, selection: TemplateSelection) -> None:
    name = str(chart_metadata(chart_dir)["name"])
    owners = {t.split("/templates/", 1)[0] for t in selection.left_out}  # (sub)charts, by Helm name
    _prune_chart(chart_dir, {name}, name, selection, owners)


def _prune_chart(
    chart_dir: Path,
    helm_names: set[str],
    route: str,
    selection: TemplateSelection,
    owners: set[str],
) -> None:
    """Delete the templates of this (sub)chart that the selection leaves out; then its subcharts'."""
    _drop_dependencies(chart_dir, helm_names, selection.dependencies_left_out)
    templates = chart_dir / "templates"
    if templates.is_dir():
        for path in sorted(templates.rglob("*")):
            if path.is_file() and not path.name.startswith("_"):
                relative = path.relative_to(chart_dir).as_posix()
                rendered_as = [f"{helm_name}/{relative}" for helm_name in helm_names]
                # one folder renders under each alias: left out under one, it is gone from all
                # (`alias_names` names them all, so the review says so)
                left_out = any(n in selection.left_out for n in rendered_as)
                if left_out or not any(_kept(n, route, selection) for n in rendered_as):
                    path.unlink()
    charts = chart_dir / "charts"
    if not charts.is_dir():
        return
    metadata = chart_metadata(chart_dir)
    if any(o.startswith(f"{n}/charts/") for o in owners for n in helm_names):
        _unpack_archives(charts)
    for sub in sorted(charts.iterdir()):
        if (sub / "Chart.yaml").is_file():
            names = _rendered_names(metadata, str(chart_metadata(sub)["name"]))
            sub_names = {f"{parent}/charts/{name}" for parent in helm_names for name in names}
            _prune_chart(sub, sub_names, route, selection, owners)


def _drop_dependencies(chart_dir: Path, helm_names: set[str], routes: tuple[str, ...]) -> None:
    """Take the dependencies the selection leaves out from this (sub)chart: their entries in its
    metadata, and their folders or archives under charts/ (Helm renders every chart there)."""
    if not routes:
        return
    dropped: set[str] = set()
    kept: set[str] = set()
    for file in ("Chart.yaml", "requirements.yaml"):
        path = chart_dir / file
        metadata = _metadata_file(chart_dir, file)
        if metadata is None:
            continue
        entries = [d for d in metadata["dependencies"] if isinstance(d, dict)]
        gone = [
            d
            for d in entries
            if any(f"{n}/charts/{d.get('alias') or d.get('name')}" in routes for n in helm_names)
        ]
        dropped |= {str(d.get("name")) for d in gone}
        kept |= {str(d.get("name")) for d in entries if d not in gone}
        if gone:
            path.unlink()  # a link to the workspace's file: never written through
            remaining = [d for d in metadata["dependencies"] if d not in gone]
            # JSON is YAML, and says the values as they were read
            path.write_text(
                json.dumps({**metadata, "dependencies": remaining}, default=str), "utf-8"
            )
    _remove_subcharts(chart_dir / "charts", dropped - kept)


def _metadata_file(chart_dir: Path, file: str) -> dict[str, Any] | None:
    """Chart.yaml (or requirements.yaml) of a chart when it lists dependencies."""
    path = chart_dir / file
    if not path.is_file():
        return None
    metadata = (
        chart_metadata(chart_dir)
        if file == "Chart.yaml"
        else yamlio.load_one(path.read_text("utf-8"), source=str(path))
    )
    if isinstance(metadata, dict) and isinstance(metadata.get("dependencies"), list):
        return metadata
    return None


def _remove_subcharts(charts_dir: Path, names: set[str]) -> None:
    """Delete the subcharts named `names` (chart names) under `charts_dir`, packaged ones unpacked first."""
    if not names or not charts_dir.is_dir():
        return
    _unpack_archives(charts_dir)
    for sub in sorted(charts_dir.iterdir()):
        if (sub / "Chart.yaml").is_file() and str(chart_metadata(sub).get("name")) in names:
            shutil.rmtree(sub)


def alias_names(chart_dir: Path, helm_name: str) -> tuple[str, ...]:
    """Every Helm name the template file `helm_name` renders under: a subchart folder that several
    dependencies take under aliases renders once per alias (`c/charts/a/...` and `c/charts/b/...`).
    `helm_name` alone when the chart's folders cannot say more (a packaged subchart)."""
    top, *subcharts = helm_name.split("/templates/", 1)[0].split("/charts/")
    names, folder = [top], chart_dir
    for segment in subcharts:
        try:
            metadata = chart_metadata(folder)
        except (OSError, AftershockError):
            return (helm_name,)
        dependency = _dependency_named(metadata, segment)
        sub = _subchart_folder(folder, dependency) if dependency else None
        if dependency is None or sub is None:
            return (helm_name,)
        aliases = sorted(_rendered_names(metadata, dependency))
        names = [f"{n}/charts/{a}" for n in names for a in aliases]
        folder = sub
    rest = helm_name.split("/templates/", 1)[1]
    return tuple(f"{n}/templates/{rest}" for n in names)


def _dependency_named(metadata: dict[str, Any], segment: str) -> str | None:
    """The chart name of the dependency that renders as `segment` (its alias, or its name)."""
    for d in metadata.get("dependencies") or []:
        if isinstance(d, dict) and segment in (d.get("alias"), d.get("name")):
            return str(d.get("name"))
    return None


def _subchart_folder(chart_dir: Path, name: str) -> Path | None:
    charts = chart_dir / "charts"
    if not charts.is_dir():
        return None
    for sub in sorted(charts.iterdir()):
        try:
            if (sub / "Chart.yaml").is_file() and chart_metadata(sub).get("name") == name:
                return sub
        except (OSError, AftershockError):
            continue
    return None


def _kept(helm_name: str, route: str, selection: TemplateSelection) -> bool:
    if helm_name in selection.left_out:
        return False
    if not (selection.include or selection.exclude):
        return True
    return template_selected(helm_name, route, selection.include or ("**",), selection.exclude)


def _rendered_names(parent: dict[str, Any], name: str) -> set[str]:
    """The names a subchart renders under: its own, or each alias the parent gives it."""
    dependencies: Iterable[Any] = parent.get("dependencies") or []
    names = {
        str(d.get("alias") or name)
        for d in dependencies
        if isinstance(d, dict) and d.get("name") == name
    }
    return names or {name}


def _unpack_archives(charts_dir: Path) -> None:
    """Replace packaged subcharts by folders, so that their templates can be left out."""
    for archive in sorted(charts_dir.glob("*.tgz")):
        target = charts_dir / f".unpacked-{archive.stem}"
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(target, filter="data")
        roots = [entry for entry in target.iterdir() if (entry / "Chart.yaml").is_file()]
        if len(roots) == 1 and not (charts_dir / archive.stem).exists():
            roots[0].rename(charts_dir / archive.stem)
            archive.unlink()  # a hard link: the workspace's own archive stays
        shutil.rmtree(target)
