"""The rule helpers shared by several rules (disruption budgets, declared container ports), on real objects."""

from __future__ import annotations

from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.rules.support.disruption import min_available_count
from aftershock.rules.support.pods import pod_spec_of
from aftershock.rules.support.ports import declared_ports


def _obj(kind: str, group: str, body: dict) -> RenderedObject:
    return RenderedObject(ObjectKey(group, kind, "ns", "x"), "v1", body, "c", "c/templates/x.yaml")


def _pdb(spec: dict) -> RenderedObject:
    return _obj("PodDisruptionBudget", "policy", {"spec": spec})


def test_min_available_count_is_a_number_of_pods_without_max_unavailable():
    assert min_available_count(_pdb({"minAvailable": 2})) == 2
    assert min_available_count(_pdb({"minAvailable": 0})) == 0
    assert min_available_count(_pdb({"minAvailable": "50%"})) is None
    assert min_available_count(_pdb({"minAvailable": True})) is None
    assert min_available_count(_pdb({"minAvailable": 2, "maxUnavailable": 1})) is None
    assert min_available_count(_pdb({"maxUnavailable": 1})) is None


def test_declared_ports_walk_init_and_app_containers_with_their_container():
    deployment = _obj(
        "Deployment",
        "apps",
        {
            "spec": {
                "template": {
                    "spec": {
                        "initContainers": [{"name": "init", "ports": [{"containerPort": 22}]}],
                        "containers": [
                            {
                                "name": "app",
                                "ports": [
                                    {"containerPort": 80, "protocol": "UDP"},
                                    {"containerPort": 8080},
                                ],
                            },
                            {"name": "side"},
                        ],
                    }
                }
            }
        },
    )
    found = [
        (container.name, port.number, port.protocol)
        for container, port in declared_ports(pod_spec_of(deployment))
    ]
    assert sorted(found) == [("app", 80, "UDP"), ("app", 8080, "TCP"), ("init", 22, "TCP")]
