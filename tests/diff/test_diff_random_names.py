"""Names that change from one render to the next are masked alike in both renders of a side."""

from __future__ import annotations

from aftershock.diff.varying.names import RANDOM_PART, mask_random_names
from aftershock.model.objects import ObjectKey, RenderedObject


def _obj(name: str, kind: str = "Job", index: int = 0, template: str = "app/templates/job.yaml"):
    body = {"apiVersion": "batch/v1", "kind": kind, "metadata": {"name": name}, "spec": {"x": 1}}
    key = ObjectKey("batch", kind, "default", name)
    return RenderedObject(key, "batch/v1", body, "charts/app", template, index)


def test_the_parts_of_a_name_that_differ_between_two_renders_are_masked_in_both():
    first = (_obj("web"), _obj("web-cfg-n6sajmgf", index=1), _obj("db-x1y2.q9", index=2))
    second = (_obj("web"), _obj("web-cfg-xzez7yre", index=1), _obj("db-a7b8.q9", index=2))
    masked_first, masked_second = mask_random_names(first, second)
    names = [o.key.name for o in masked_first]
    assert names == ["web", f"web-cfg-{RANDOM_PART}", f"db-{RANDOM_PART}.q9"]
    assert [o.key for o in masked_second] == [o.key for o in masked_first]
    assert masked_first[1].body["metadata"]["name"] == f"web-cfg-{RANDOM_PART}"
    assert masked_first[0] is first[0] and first[1].key.name == "web-cfg-n6sajmgf"  # not edited


def test_objects_of_other_documents_kinds_or_part_counts_are_left_as_they_are():
    first = (_obj("a-1", index=0), _obj("b-2", kind="CronJob", index=1), _obj("c-x", index=3))
    second = (_obj("a-9", index=5), _obj("b-3", index=1), _obj("c-x-y", index=3))
    assert mask_random_names(first, second) == (first, second)


def test_names_masked_alike_in_one_render_stay_apart():
    first = (_obj("job-k2x9", index=0), _obj("job-m3z1", index=1))
    second = (_obj("job-q7w4", index=0), _obj("job-p0v8", index=1))
    masked, _ = mask_random_names(first, second)
    assert [o.key.name for o in masked] == [f"job-{RANDOM_PART}", f"job-{RANDOM_PART}-2"]
