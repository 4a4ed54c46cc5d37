"""What a change does to a values file, said by intent: keys changing alike together, lists by size."""

from __future__ import annotations

from aftershock.report.values_intent import intent_lines


def change(path: str, kind: str, before, after, file: str = "release db") -> dict:
    return {"file": file, "path": path, "change": kind, "before": before, "after": after}


def test_keys_changing_alike_are_said_together_and_added_lists_by_their_size():
    doc = {
        "values_changes": [
            change("backup.enabled", "changed", True, False),
            change("metrics.enabled", "changed", True, False),
            change("env", "added", None, [{"name": str(n)} for n in range(5)]),
            change("init.env", "added", None, [1, 2, 3]),
            change("replicas", "changed", 2, 3, file="apps/web/values.yaml"),
        ]
    }
    assert intent_lines(doc) == [
        (
            "release db",
            "backup.enabled and metrics.enabled true → false, adds env (5 entries) and init.env (3 entries)",
        ),
        ("apps/web/values.yaml", "replicas 2 → 3"),
    ]


def test_a_secret_value_is_never_said_and_many_added_keys_are_counted():
    doc = {
        "values_changes": [
            {**change("auth.token", "changed", "a", "b"), "sensitive": True},
            *(change(f"k{n}", "added", None, n, file="new.yaml") for n in range(36)),
        ]
    }
    (secret, new) = intent_lines(doc)
    assert secret == ("release db", "changes auth.token (secret)")
    assert new == ("new.yaml", "adds 36 keys (k0 = 0, k1 = 1, k2 = 2, …)")
