#!/usr/bin/env python3
"""Packs the fleet example's upstream charts into its chart cache, as `helm package` lays them out.

Usage: python3 scripts/pack_charts.py

Each folder examples/fleet/upstream/<name>-<version>/ becomes <name>-<version>.tgz (a `<name>/` folder
inside) in examples/fleet/states/00-initial/chart-cache/, with an index.yaml holding each archive's
sha256 digest, as a Helm chart repository publishes it. The archives are byte-for-byte reproducible
(sorted members, zero times and ids), so rerunning changes nothing. Needs only the standard library and PyYAML.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import sys
import tarfile
from pathlib import Path

import yaml

FLEET = Path(__file__).resolve().parent.parent / "examples" / "fleet"
CACHE = FLEET / "states" / "00-initial" / "chart-cache"


def pack(folder: Path, name: str) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{name}/{path.relative_to(folder).as_posix()}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def main() -> int:
    CACHE.mkdir(parents=True, exist_ok=True)
    entries: dict[str, list[dict[str, object]]] = {}
    for folder in sorted((FLEET / "upstream").iterdir()):
        chart = yaml.safe_load((folder / "Chart.yaml").read_text())
        data = pack(folder, chart["name"])
        archive = f"{chart['name']}-{chart['version']}.tgz"
        (CACHE / archive).write_bytes(data)
        entries.setdefault(chart["name"], []).append(
            {
                "name": chart["name"],
                "version": chart["version"],
                "digest": hashlib.sha256(data).hexdigest(),
                "urls": [archive],
            }
        )
        print(f"{archive} {len(data)} bytes")
    (CACHE / "index.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "entries": entries}, sort_keys=True)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
