"""Writes src/aftershock/schema/config.schema.json from the configuration's pydantic model.

python scripts/write_config_schema.py      # after changing src/aftershock/config/settings.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from aftershock.config.schema import config_schema_text  # noqa: E402

if __name__ == "__main__":
    target = ROOT / "src" / "aftershock" / "schema" / "config.schema.json"
    target.write_text(config_schema_text(), encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")
