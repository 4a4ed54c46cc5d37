"""What the head's `.aftershock.yaml` would change, for a notice on a change that edits the file
(the review itself runs with the base's file, so a change cannot soften the rules that review it)."""

from __future__ import annotations

from typing import Any

from aftershock.config.settings import (
    CONFIG_FILE_NAME,
    AftershockConfig,
    default_config,
    parse_config,
)
from aftershock.model.errors import AftershockError
from aftershock.model.validated import plain


def config_notice(base_text: str | None, head_text: str | None, head_label: str) -> str | None:
    """One line naming the settings the head's file changes; None when the file is the same."""
    if base_text == head_text:
        return None
    base = _parsed(base_text, "base")
    try:
        head = (
            parse_config(head_text, source=f"{CONFIG_FILE_NAME} at {head_label}")
            if head_text
            else default_config()
        )
    except AftershockError as error:
        return f"this change makes {CONFIG_FILE_NAME} invalid ({error.line()}); the review used the base's file"
    changed = changed_settings(base, head)
    what = ", ".join(changed) if changed else "nothing the review reads (comments or layout only)"
    return f"this change edits {CONFIG_FILE_NAME}; the review used the base's file. The head's file would change: {what}"


def changed_settings(base: AftershockConfig, head: AftershockConfig) -> list[str]:
    """Top-level settings that differ, rules and entries by name: `rules.pss-host-namespaces`, `max_scenarios`."""
    before, after = plain(base), plain(head)
    changed: list[str] = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict) and key == "rules":
            changed += [
                f"rules.{rule}"
                for rule in sorted(set(old) | set(new))
                if old.get(rule) != new.get(rule)
            ]
        elif isinstance(old, list) and isinstance(new, list) and _named(old + new):
            changed += [f"{key}.{name}" for name in _names_changed(old, new)]
        else:
            changed.append(key)
    return changed


def _parsed(text: str | None, side: str) -> AftershockConfig:
    try:
        return (
            parse_config(text, source=f"{CONFIG_FILE_NAME} at {side}") if text else default_config()
        )
    except AftershockError:
        return default_config()  # the base's file is validated by the review itself


def _named(entries: list[Any]) -> bool:
    return all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in entries)


def _names_changed(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    before, after = {e["name"]: e for e in old}, {e["name"]: e for e in new}
    return [
        name for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)
    ]
