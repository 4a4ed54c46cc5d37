"""What a values key change says of a list or map whose size stays: what changed in its items,
never `from a 1-item list to a 1-item list`."""

from __future__ import annotations

from aftershock.diff.values_keys import describe_change, diff_values, what_differs

RULE = {"backendRefs": [{"name": "plex", "port": 80}], "matches": [{"path": {"value": "/"}}]}
NEW_RULE = {"backendRefs": [{"identifier": "app", "port": 80}], "matches": RULE["matches"]}


def _described(before, after, **options) -> list[str]:
    changes = diff_values(before, after, chart=None, file="release plex")
    return [describe_change(c, **options) for c in changes]


def test_a_list_of_one_item_says_what_changed_in_its_item():
    assert _described({"route": {"rules": [RULE]}}, {"route": {"rules": [NEW_RULE]}}) == [
        "route.rules changed in its item (backendRefs[port=80].name removed, "
        "backendRefs[port=80].identifier added)"
    ]


def test_a_longer_list_names_the_items_that_changed_and_counts_past_three_fields():
    before = [{"name": "a", "x": 1}, {"name": "b", "x": 1, "y": 1, "z": 1, "w": 1}]
    after = [{"name": "a", "x": 1}, {"name": "b", "x": 2, "y": 2, "z": 2, "w": 2}]
    assert what_differs(before, after) == (
        "in 1 of its 2 items ([name=b].x changed, [name=b].y changed, [name=b].z changed and 1 more)"
    )
    assert what_differs([1, 2], [2, 1]) == "in order"


def test_a_map_says_which_keys_changed():
    assert what_differs({"a": [1], "b": 2}, {"a": [2], "b": 2}) == "in its keys (a[0] changed)"


def test_a_size_that_changes_is_still_said_by_sizes_and_a_secret_names_no_field():
    assert _described({"rules": [RULE]}, {"rules": [RULE, RULE]}) == [
        "rules changed from a 1-item list to a 2-item list"
    ]
    assert _described({"rules": [RULE]}, {"rules": [NEW_RULE]}, secret=True) == [
        "rules changed in its item"
    ]
    assert what_differs("a", "b") is None and what_differs([1], [1.0, 2]) is None
