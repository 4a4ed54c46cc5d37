"""Temporary copies of a chart that a test needs but the repository does not have.

* `chart: {version, appVersion}` in a suite overrides `.Chart.Version`/`.Chart.AppVersion` of the
  chart and its direct subcharts (helm-unittest edits the loaded chart); here a copy gets an
  edited Chart.yaml. One copy per distinct override.
* The render backend refuses a chart whose `kubeVersion` excludes the Kubernetes version;
  helm-unittest's engine render never checks it: such a test renders a copy without it.
* helm-unittest renders only a suite's selected templates and the partials: a copy without the
  unselected templates reproduces that (a selected template including an unselected one fails,
  a failing unselected template does not matter). One copy per distinct selection.

* CI runs `helm dependency build` before `helm unittest`: a `file://` dependency missing from
  `charts/` is copied in (with its own `.helmignore` applied, as packaging does), and a values
  schema referring to other files is inlined (`render.schemas.schema_refs`), as charts' CI dereferences it.
  One prepared copy per chart, which the other copies start from.

Copies skip what a chart's `.helmignore` leaves out (Helm never loads it, and a linked dependency
that holds its dependent, as a library with its test chart, would otherwise be copied endlessly).
Copies live under one temporary folder owned by the run; nothing in them is ever executed.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aftershock.helmtest.charts import chart_metadata
from aftershock.helmtest.selection import template_selected
from aftershock.helmtest.suite import ChartOverride
from aftershock.ingest.helmignore import HelmIgnore, parse_helmignore
from aftershock.model.errors import RenderError
from aftershock.render.schemas.schema_refs import inline_schema_refs
from aftershock.render.workspaces.tempdirs import fast_temp_root

# `aftershock test` runs on the user's own files: a schema reference may name any local file.
_LOCAL_FILES = Path("/")


def _write_metadata(chart_file: Path, metadata: dict[str, Any]) -> None:
    text = json.dumps(metadata, indent=2, ensure_ascii=False)  # JSON is YAML; Helm reads it
    chart_file.unlink()  # a new file: the copy's may be a hard link to the chart's own
    chart_file.write_text(text + "\n", encoding="utf-8")


def _link_or_copy(source: str, target: str) -> str:
    """A hard link where the file system allows one (copies are pruned and edited by replacing
    files, never by writing into them), else a copy. A symlinked file is linked to its target:
    a relative link would point elsewhere from the copy."""
    if os.path.islink(source):  # the folders on the way are followed by link() itself
        source = os.path.realpath(source)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    return target


def _edit_metadata(chart_dir: Path, override: ChartOverride, constrain_dependencies: bool) -> None:
    """Rewrite Chart.yaml with the override; as JSON, which Helm reads as the YAML it loaded.

    With a new version, the chart's own `dependencies` must accept that version too, or Helm
    would drop (or fail to alias) the subcharts whose version was just changed.
    """
    chart_file = chart_dir / "Chart.yaml"
    metadata = dict(chart_metadata(chart_dir))
    if override.version:
        metadata["version"] = override.version
        if constrain_dependencies:
            metadata["dependencies"] = [
                {**dependency, "version": override.version}
                if isinstance(dependency, dict)
                else dependency
                for dependency in metadata.get("dependencies") or []
            ]
    if override.app_version:
        metadata["appVersion"] = override.app_version
    _write_metadata(chart_file, metadata)


def _unpack_archives(charts_dir: Path) -> None:
    """Replace packaged subcharts by folders, so their Chart.yaml can be edited."""
    for archive in sorted(charts_dir.glob("*.tgz")):
        target = charts_dir / f".unpacked-{archive.stem}"
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(target, filter="data")
        roots = [entry for entry in target.iterdir() if (entry / "Chart.yaml").is_file()]
        if len(roots) == 1:
            roots[0].rename(charts_dir / archive.stem)
            shutil.rmtree(target)
            archive.unlink()
        else:
            shutil.rmtree(target)


def _chart_ignores(
    folder: str, cache: dict[str, HelmIgnore | None]
) -> tuple[str, HelmIgnore] | None:
    """The nearest chart root at or above `folder` (as walked, links not resolved) and its rules."""
    current = folder
    while True:
        if current not in cache:
            rules = None
            if os.path.isfile(os.path.join(current, "Chart.yaml")):
                try:
                    with open(os.path.join(current, ".helmignore"), encoding="utf-8") as handle:
                        rules = parse_helmignore(handle.read())
                except (OSError, UnicodeDecodeError):
                    rules = parse_helmignore(None)
            cache[current] = rules
        if cache[current] is not None:
            return current, cache[current]  # type: ignore[return-value]
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def copy_chart(source: Path, target: Path, leave_out: Callable[[str], bool] | None = None) -> None:
    """Copy a chart folder (links followed, files hard-linked) without what `.helmignore` leaves out,
    nor the files `leave_out` names (by their path in `source`, `/`-separated)."""
    cache: dict[str, HelmIgnore | None] = {}

    def ignored(folder: str, names: list[str]) -> set[str]:
        found = _chart_ignores(folder, cache)
        if found is None:
            return set()
        root, rules = found
        # `folder` is `root` or under it, and under `source`, as walked: paths by slicing
        relative, in_source = _under(folder, root), _under(folder, str(source))
        skipped = set()
        for name in names:
            if os.path.isdir(os.path.join(folder, name)):
                left = rules.ignores_folder(f"{relative}{name}")
            else:
                left = rules.ignores_file(f"{relative}{name}") or (
                    leave_out is not None and leave_out(f"{in_source}{name}")
                )
            if left:
                skipped.add(name)
        return skipped

    shutil.copytree(source, target, symlinks=False, copy_function=_link_or_copy, ignore=ignored)


def _under(folder: str, root: str) -> str:
    """`folder` relative to `root` (an ancestor as walked, or itself), `/`-terminated unless empty."""
    rest = folder[len(root) :].lstrip(os.sep).replace(os.sep, "/")
    return f"{rest}/" if rest else ""


def _missing_local_dependencies(chart_dir: Path) -> list[tuple[str, Path]]:
    """(name, folder) of each `file://` dependency that `charts/` does not hold yet."""
    metadata = chart_metadata(chart_dir)
    charts = chart_dir / "charts"
    present = set()
    if charts.is_dir():
        for entry in charts.iterdir():
            if (entry / "Chart.yaml").is_file():
                present.add(str(chart_metadata(entry)["name"]))
            elif entry.name.endswith(".tgz"):
                present.add(entry.name.rsplit("-", 1)[0])
    missing = []
    for dependency in metadata.get("dependencies") or []:
        if not isinstance(dependency, dict) or not isinstance(dependency.get("repository"), str):
            continue
        name, repository = str(dependency.get("name") or ""), dependency["repository"]
        folder = chart_dir / repository.removeprefix("file://")
        if (
            repository.startswith("file://")
            and name
            and name not in present
            and (folder / "Chart.yaml").is_file()
        ):
            missing.append((name, folder))
    return missing


def _schema_sources(chart_dir: Path) -> list[Path]:
    """The chart's folder and its subchart folders (whose schemas Helm validates too)."""
    charts = chart_dir / "charts"
    subs = (
        sorted(entry for entry in charts.iterdir() if (entry / "Chart.yaml").is_file())
        if charts.is_dir()
        else []
    )
    return [chart_dir, *subs]


def _needs_preparing(chart_dir: Path) -> bool:
    if _missing_local_dependencies(chart_dir):
        return True
    for folder in _schema_sources(chart_dir):
        text = folder / "values.schema.json"
        if text.is_file() and '"$ref"' in text.read_text(encoding="utf-8", errors="replace"):
            return True
    return False


class ChartCopies:
    """The run's temporary chart copies, made on demand and reused."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._made: dict[tuple[object, ...], str] = {}

    def _fresh(self, source: Path) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="aftershock-helmtest-", dir=fast_temp_root()))
        target = self._root / str(len(self._made)) / source.resolve().name
        try:
            copy_chart(source, target)
        except (OSError, shutil.Error) as exc:
            raise RenderError(
                "cannot copy the chart for a test", where=str(source), hint=str(exc)
            ) from None
        return target

    def prepared(self, chart_dir: str) -> str:
        """The chart as CI tests it after `helm dependency build`: a copy with its missing
        `file://` dependencies and inlined schemas, or the chart itself when it needs neither."""
        key = ("prepared", chart_dir)
        if key not in self._made:
            source = Path(chart_dir)
            if not _needs_preparing(source):
                return chart_dir
            copy = self._fresh(source)
            for name, folder in _missing_local_dependencies(source):
                copy_chart(folder, copy / "charts" / name)
            for folder in _schema_sources(source):
                target = copy / folder.relative_to(source)
                inline_schema_refs(folder, _LOCAL_FILES, target_dir=target)
            for name, folder in _missing_local_dependencies(source):
                inline_schema_refs(folder, _LOCAL_FILES, target_dir=copy / "charts" / name)
            self._made[key] = str(copy)
        return self._made[key]

    def with_metadata(self, chart_dir: str, override: ChartOverride) -> str:
        """A copy whose chart and direct subcharts carry the overridden version/appVersion."""
        key = ("metadata", chart_dir, override)
        if key not in self._made:
            copy = self._fresh(Path(chart_dir))
            _edit_metadata(copy, override, constrain_dependencies=True)
            charts = copy / "charts"
            if charts.is_dir():
                _unpack_archives(charts)
                for sub in sorted(charts.iterdir()):
                    if (sub / "Chart.yaml").is_file():
                        _edit_metadata(sub, override, constrain_dependencies=False)
            self._made[key] = str(copy)
        return self._made[key]

    def without_kube_version(self, chart_dir: str) -> str:
        """A copy whose Chart.yaml has no `kubeVersion`.

        helm-unittest renders with Helm's engine, which never checks the chart's kubeVersion
        against the (old, v1.20) Kubernetes version it tests with; aftershock's render backend
        checks it, as `helm install` does. Only used when that check would refuse the chart.
        """
        key = ("kube-version", chart_dir)
        if key not in self._made:
            copy = self._fresh(Path(chart_dir))
            metadata = dict(chart_metadata(copy))
            metadata.pop("kubeVersion", None)
            _write_metadata(copy / "Chart.yaml", metadata)
            self._made[key] = str(copy)
        return self._made[key]

    def with_templates(
        self, chart_dir: str, route: str, include: tuple[str, ...], exclude: tuple[str, ...]
    ) -> str:
        """A copy keeping only the selected templates (and every partial) of each chart folder."""
        key = ("templates", chart_dir, route, include, exclude)
        if key not in self._made:
            copy = self._fresh(Path(chart_dir))
            _prune(copy, {str(chart_metadata(copy)["name"])}, route, include, exclude)
            self._made[key] = str(copy)
        return self._made[key]

    @property
    def count(self) -> int:
        return len(self._made)

    def close(self) -> None:
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None
        self._made.clear()


def _rendered_names(parent: dict[str, Any], name: str) -> set[str]:
    """The names a subchart renders under: its own, or each alias the parent gives it."""
    names = {
        str(dependency.get("alias") or name)
        for dependency in parent.get("dependencies") or []
        if isinstance(dependency, dict) and dependency.get("name") == name
    }
    return names or {name}


def _prune(
    chart_dir: Path,
    helm_names: set[str],
    route: str,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
) -> None:
    """Delete the templates no rendered name of this chart selects (partials always stay)."""
    templates = chart_dir / "templates"
    if templates.is_dir():
        for path in sorted(templates.rglob("*")):
            if not path.is_file() or path.name.startswith("_"):
                continue
            relative = path.relative_to(chart_dir).as_posix()
            if not any(
                template_selected(posixpath.join(helm_name, relative), route, include, exclude)
                for helm_name in helm_names
            ):
                path.unlink()
    charts = chart_dir / "charts"
    if not charts.is_dir():
        return
    metadata = chart_metadata(chart_dir)
    for sub in sorted(charts.iterdir()):
        if (sub / "Chart.yaml").is_file():
            names = _rendered_names(metadata, str(chart_metadata(sub)["name"]))
            sub_names = {f"{parent}/charts/{name}" for parent in helm_names for name in names}
            _prune(sub, sub_names, route, include, exclude)
