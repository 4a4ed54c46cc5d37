"""The CRD files a suite with `includeCrds: true` can assert on (Helm's Chart.CRDObjects).

Files under `crds/` ending in .yaml, .yml or .json, of the chart and of its subchart folders,
named as Helm names them (`chart/crds/x.yaml`, `chart/charts/sub/crds/y.yaml`). CRDs are not
templates: their text is taken as it is. Packaged (.tgz) subcharts are not opened.
"""

from __future__ import annotations

from pathlib import Path

from aftershock.helmtest.charts import chart_metadata

_EXTENSIONS = (".yaml", ".yml", ".json")


def chart_crds(chart_dir: Path, helm_name: str) -> dict[str, str]:
    """CRD file name -> text for the chart at `chart_dir` and its subchart folders."""
    found: dict[str, str] = {}
    crds = chart_dir / "crds"
    if crds.is_dir():
        for path in sorted(crds.rglob("*")):
            if path.is_file() and path.name.endswith(_EXTENSIONS):
                name = f"{helm_name}/{path.relative_to(chart_dir).as_posix()}"
                found[name] = path.read_text(encoding="utf-8", errors="replace")
    charts = chart_dir / "charts"
    if charts.is_dir():
        for sub in sorted(charts.iterdir()):
            if (sub / "Chart.yaml").is_file():
                sub_name = str(chart_metadata(sub)["name"])
                found.update(chart_crds(sub, f"{helm_name}/charts/{sub_name}"))
    return found
