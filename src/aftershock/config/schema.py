"""The JSON Schema of `.aftershock.yaml`, generated from its pydantic model (`aftershock.config.settings`).

A copy ships in the package (`aftershock/schema/config.schema.json`, written by
`scripts/write_config_schema.py`, checked equal to this by a test) for editors:
`# yaml-language-server: $schema=<that file or its URL>`.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from aftershock.config.settings import AftershockConfig

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def config_schema() -> dict[str, Any]:
    """The schema of the configuration file as pydantic generates it, with a title and dialect."""
    schema = AftershockConfig.model_json_schema(mode="validation")
    return {
        "$schema": SCHEMA_DIALECT,
        "title": ".aftershock.yaml",
        "description": "aftershock's repository configuration, read at the base ref of each review.",
        **schema,
    }


def config_schema_text() -> str:
    return json.dumps(config_schema(), indent=2, sort_keys=True) + "\n"


def shipped_schema_text() -> str:
    """The copy in the package."""
    return (
        resources.files("aftershock")
        .joinpath("schema", "config.schema.json")
        .read_text(encoding="utf-8")
    )
