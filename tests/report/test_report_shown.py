"""What a report lists of a review's changes: ignored fields left out, an added release summarised."""

from __future__ import annotations

from aftershock.report.shown import listed_objects, values_lines


def _change(file: str, path: str, kind: str) -> dict:
    return {"file": file, "path": path, "change": kind, "description": f"{path} {kind}"}


def test_a_release_whose_keys_are_all_added_is_one_line():
    doc = {
        "values_changes": [_change("flux/app.yaml", f"k{n}", "added") for n in range(36)]
        + [_change("values.yaml", "a", "added"), _change("values.yaml", "b", "modified")]
    }
    assert values_lines(doc) == [
        ("flux/app.yaml", "36 keys added (k0, k1, k2, …): all of it is added"),
        ("values.yaml", "a added"),
        ("values.yaml", "b modified"),
    ]


def test_a_few_added_keys_are_each_listed():
    doc = {"values_changes": [_change("v.yaml", p, "added") for p in "abc"]}
    assert [text for _, text in values_lines(doc)] == ["a added", "b added", "c added"]


def test_an_object_changed_only_in_ignored_fields_is_not_listed():
    label = {"path": "metadata.labels.chart", "ignored": True}
    image = {"path": "spec.image", "ignored": False}
    objects = [
        {"change": "changed", "fields": [label]},
        {"change": "changed", "fields": [label, image]},
        {"change": "added", "fields": []},
    ]
    listed = listed_objects(objects)
    assert [o["fields"] for o in listed] == [[image], []]


def test_one_object_in_several_scenarios_is_one_entry_saying_where_each_field_changed():
    from aftershock.report.shown import field_where, merged_across_scenarios
    from aftershock.report.text import object_title

    rendered = ["default", "toggle:a=true", "guard:b=x", "test:t/x"]

    def entry(scenario: str, after: int, key: str = "cm") -> dict:
        return {
            "id": f"c#{scenario}::{key}",
            "review": f"c#{scenario}",
            "identity": f"c::{key}",
            "key": {"id": key},
            "rendered_in": rendered if key == "cm" else ["toggle:a=true"],
            "scenario": scenario,
            "same_in": [],
            "display": f"ConfigMap default/{key}",
            "change": "changed",
            "previous_key": None,
            "templates": ["t.yaml"],
            "fields": [{"path": "data.a", "after": after}],
        }

    merged = merged_across_scenarios(
        [
            entry("default", 1),
            entry("toggle:a=true", 1),
            entry("guard:b=x", 1),
            entry("test:t/x", 2),
            entry("toggle:a=true", 1, key="hpa"),
        ]
    )
    configmap, hpa = merged
    assert configmap["scenarios"] == ["default", "toggle:a=true", "guard:b=x", "test:t/x"]
    assert object_title(configmap) == "ConfigMap default/cm"  # changed wherever it rendered
    one, two = configmap["fields"]
    assert field_where(configmap, one) == "in 3 of 4 scenarios; not in: test:t/x"
    assert field_where(configmap, two) == "only in test:t/x"
    assert object_title(hpa) == "ConfigMap default/hpa [only in toggle:a=true]"
    assert field_where(hpa, hpa["fields"][0]) is None


def test_an_entry_standing_for_scenarios_that_changed_alike_merges_as_their_own_entries_did():
    """The JSON says a scenario's change identical to the default's once, by the default's entry
    (`same_in`): merged, it reads as one entry per scenario did, scenarios in rendered order."""
    from aftershock.report.shown import field_where, merged_across_scenarios

    rendered = ["default", "toggle:a=true", "guard:b=x", "test:t/x"]

    def entry(scenario: str, after: int, same_in: tuple[str, ...] = ()) -> dict:
        return {
            "id": f"c#{scenario}::cm",
            "identity": "c::cm",
            "key": {"id": "cm"},
            "rendered_in": rendered,
            "scenario": scenario,
            "same_in": list(same_in),
            "change": "changed",
            "templates": ["t.yaml"],
            "fields": [{"path": "data.a", "after": after}],
        }

    each = [entry(s, 2 if s == "toggle:a=true" else 1) for s in rendered]
    compact = [entry("default", 1, ("guard:b=x", "test:t/x")), entry("toggle:a=true", 2)]
    for entries in (each, compact):
        (configmap,) = merged_across_scenarios(entries)
        assert configmap["scenarios"] == rendered
        one, two = configmap["fields"]
        assert (
            one["scenarios"] == ["default", "guard:b=x", "test:t/x"]
            and one["id"] == "c#default::cm"
        )
        assert field_where(configmap, one) == "in 3 of 4 scenarios; not in: toggle:a=true"
        assert field_where(configmap, two) == "only in toggle:a=true"


def test_the_same_edit_to_a_script_is_one_change_whose_other_lines_differ_by_scenario():
    """A script line listed in random order is masked in one scenario and not in another (its two
    renders agreed by chance): the edit both show is one change, in both scenarios."""
    from aftershock.report.shown import field_where, merged_across_scenarios

    def entry(scenario: str, listing: str, extra: str = "") -> dict:
        head = f"{extra}#!/bin/sh\nIPS={listing}\nA=1\nB=1\nC=1\nD=1\nOPTS=%s\nexec db\n"
        return {
            "id": f"c#{scenario}::cm",
            "identity": "c::cm",
            "key": {"id": "cm"},
            "rendered_in": ["default", "toggle:a=true"],
            "scenario": scenario,
            "same_in": [],
            "change": "changed",
            "templates": ["t.yaml"],
            "fields": [
                {
                    "path": "data.run",
                    "change": "modified",
                    "before": head % "a",
                    "after": head % "b",
                }
            ],
        }

    one = [entry("default", "<unstable>"), entry("toggle:a=true", "x,y", "# primary\n")]
    (configmap,) = merged_across_scenarios(one)
    (field,) = configmap["fields"]
    assert field_where(configmap, field) is None
    other = [entry("default", "x"), {**entry("toggle:a=true", "x")}]
    other[1]["fields"][0]["after"] = other[1]["fields"][0]["after"].replace("OPTS=b", "OPTS=c")
    (configmap,) = merged_across_scenarios(other)
    assert len(configmap["fields"]) == 2  # another edit is another change


def test_a_long_scenario_id_is_shown_by_a_short_label():
    from aftershock.report.text import MAX_SCENARIO_LABEL, scenario_label

    test = (
        "test:requirements-config_test.yaml/should pass when using the v3.7.11 CRD naming and TLS"
    )
    label = scenario_label(test)
    assert len(label) == MAX_SCENARIO_LABEL and label.endswith("…") and test.startswith(label[:-1])
    assert scenario_label("toggle:a=true") == "toggle:a=true"


def test_a_source_bump_is_said_by_its_version_field():
    from aftershock.report.shown import version_phrases

    oci = {
        "key": {"kind": "OCIRepository", "name": "konflate"},
        "fields": [
            {"path": "spec.ref.tag", "before": "0.6.0", "after": "0.6.1"},
            {"path": "spec.interval", "before": "1h", "after": "2h"},
        ],
    }
    assert version_phrases([oci, oci]) == ["OCIRepository konflate tag 0.6.0 → 0.6.1"]


def test_a_change_reaching_only_builds_counts_them_not_zero_charts():
    from aftershock.report.text import headline

    summary = {"commits": 1, "files": 6, "charts_affected": 0, "charts_rendered": 3}
    doc = {"summary": {**summary, "objects_changed": 7}}
    assert headline(doc) == (
        "1 commit(s) · 6 file(s) · 3 build(s) or release(s) rendered · 7 object(s) changed"
    )
    doc["summary"]["charts_affected"] = 2
    assert "2 chart(s) affected · 3 rendered" in headline(doc)


def test_installs_that_render_differently_come_first_and_identical_ones_fold():
    from aftershock.report.overview import chart_lines

    def review(chart: str, outcome: str) -> dict:
        return {
            "id": chart,
            "chart": chart,
            "release": None,
            "scenario": "default",
            "outcome": outcome,
        }

    doc = {
        "charts": [],
        "objects": [],
        "chart_reviews": [review(c, "unchanged") for c in ("a", "b", "c")]
        + [review("d", "not_reviewed")],
    }
    lines = chart_lines(doc)
    assert [line.label for line in lines] == ["d", "3 other install(s)"]
    assert lines[1].phrases == ("render identically (a, b, …)",)
