"""Scenarios render in the order that reaches most of the change: within each group, next the one
setting a field the changed lines of some file read that no scenario before it set for that file."""

from __future__ import annotations

from aftershock.render.scenario_order import covering_first, reached_by
from aftershock.render.scenarios import GUARDS_OPENED, Scenario

REACHED = {
    "test:req/all three": {("req", "a"), ("req", "b"), ("req", "c")},
    "test:pod/a": {("pod", "a")},
    "test:pod/a again": {("pod", "a")},
    "test:pod/b": {("pod", "b")},
    "test:pod/c": {("pod", "c")},
    "file:ci/x.yaml": set(),
    GUARDS_OPENED: {("pod", "a"), ("pod", "b"), ("pod", "c")},
}


def reached(scenario: Scenario) -> frozenset[tuple[str, str]]:
    return frozenset(REACHED[scenario.name])


def names(scenarios: list[Scenario]) -> list[str]:
    return [s.name for s in scenarios]


def ranked(*named: str) -> list[Scenario]:
    return [Scenario(name) for name in named]


def test_a_scenario_reaching_only_what_those_before_it_reach_waits():
    group = ranked(
        "test:req/all three", "test:pod/a", "test:pod/a again", "test:pod/b", "test:pod/c"
    )
    assert names(covering_first([group], reached, 4)) == [
        "test:req/all three",
        "test:pod/a",
        "test:pod/b",
        "test:pod/c",
        "test:pod/a again",
    ]


def test_groups_keep_their_order_and_ties_their_rank():
    first, second = ranked("file:ci/x.yaml", "test:pod/b"), ranked("test:pod/a", "test:pod/c")
    assert names(covering_first([first, second], reached, 10)) == [
        "test:pod/b",
        "file:ci/x.yaml",
        "test:pod/a",
        "test:pod/c",
    ]


def test_what_made_up_values_reach_is_not_counted_as_reached():
    groups = [ranked(GUARDS_OPENED), ranked("test:pod/a", "test:pod/a again", "test:pod/c")]
    assert names(covering_first(groups, reached, 3)) == [
        GUARDS_OPENED,
        "test:pod/a",
        "test:pod/c",
        "test:pod/a again",
    ]


def test_past_the_picks_the_rest_keep_their_ranked_order():
    group = ranked("test:pod/a", "test:pod/a again", "test:pod/b")
    assert names(covering_first([group], reached, 1)) == [
        "test:pod/a",
        "test:pod/a again",
        "test:pod/b",
    ]


def test_past_the_whole_groups_a_scenario_adding_nothing_waits_for_the_later_groups():
    # bjw-s db552e2: the tests of 40 edited suites, adding nothing, crowded out the values files
    # reaching lines no test reached
    written = ranked(GUARDS_OPENED, "file:ci/x.yaml")
    edited_suites = ranked("test:pod/a", "test:pod/a again")
    others = ranked("test:req/all three")
    assert names(covering_first([written, edited_suites, others], reached, 4, whole=1)) == [
        GUARDS_OPENED,
        "file:ci/x.yaml",  # within the whole groups, it keeps its place
        "test:pod/a",
        "test:req/all three",
        "test:pod/a again",
    ]
    assert names(covering_first([written, edited_suites, others], reached, 4)) == [
        GUARDS_OPENED,
        "file:ci/x.yaml",
        "test:pod/a",
        "test:pod/a again",
        "test:req/all three",
    ]


def test_a_values_path_reaches_the_files_that_read_each_of_its_known_keys():
    """Seven components each gain a `startupProbe`: the controller's toggle reaches the controller's
    template, not the server's, which reads no `controller`; a key no edited file reads (a
    library's `controllers.main`, read through a variable) narrows nothing."""
    fields = {
        "c/templates/controller.yaml": frozenset({"controller", "startupProbe", "httpPath"}),
        "c/templates/server.yaml": frozenset({"server", "startupProbe", "httpPath"}),
        "lib/templates/_pod.tpl": frozenset({"pod", "nodeSelector"}),
    }
    reach = reached_by("c", {}, fields)
    controller = Scenario(
        "toggle:controller", overrides={"controller": {"startupProbe": {"enabled": True}}}
    )
    assert reach(controller) == {
        ("c/templates/controller.yaml", "controller"),
        ("c/templates/controller.yaml", "startupProbe"),
    }
    both = Scenario(
        "file:ci/probes.yaml",
        overrides={
            "server": {"startupProbe": {"httpPath": "/h"}},
            "controller": {"startupProbe": {"httpPath": "/h"}},
        },
    )
    assert {path for path, _ in reach(both)} == {
        "c/templates/controller.yaml",
        "c/templates/server.yaml",
    }
    library = Scenario(
        "test:pod/nodeSelector",
        overrides={"controllers": {"main": {"pod": {"nodeSelector": {"a": "b"}}}}},
    )
    assert reach(library) == {
        ("lib/templates/_pod.tpl", "pod"),
        ("lib/templates/_pod.tpl", "nodeSelector"),
    }
