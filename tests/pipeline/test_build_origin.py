"""Provenance of kustomize-built objects with real git and real kustomize: the origin annotations asked for
in the materialised copy are read and stripped, so the objects are exactly what a build without them
gives, and each object names its declaring file, its generator and the patches that changed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from aftershock.ingest.gitops.kustomizations import find_kustomizations
from aftershock.ingest.object_documents import objects_from_documents, parse_documents
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.pipeline.builds.build_origin import Attribution, kustomization_file, request_origins
from aftershock.render.kustomize import available, open_builder
from gitrepo import commit, make_repo

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

TREE = {
    "base/kustomization.yaml": """\
resources: [deployment.yaml, service.yaml]
configMapGenerator:
  - name: settings
    envs: [settings.env]
secretGenerator:
  - name: creds
    literals: [password=hunter2]
""",
    "base/settings.env": "MODE=fast\n",
    "base/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
  annotations: {team: payments}
spec:
  template:
    spec:
      containers:
        - name: web
          image: web:1
          envFrom: [{configMapRef: {name: settings}}, {secretRef: {name: creds}}]
""",
    "base/service.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web, annotations: {}}\nspec: {ports: [{port: 80}]}\n",
    "prod/kustomization.yaml": """\
resources: [../base]
namePrefix: prod-
patches:
  - path: memory.yaml
  - target: {kind: Service, labelSelector: "app!=web"}
    patch: |
      - {op: add, path: /spec/type, value: NodePort}
configMapGenerator:
  - name: settings
    behavior: merge
    literals: [REGION=eu]
""",
    "prod/memory.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: web, resources: {limits: {memory: 1Gi}}}]
""",
}


def _objects(folder: Path, text: str):
    return objects_from_documents(
        parse_documents({"prod/kustomization.yaml": text}), chart="prod", namespace="default"
    )


def test_objects_built_with_origins_are_those_of_a_plain_build_and_name_their_files(tmp_path):
    repo = make_repo(tmp_path / "repo")
    sha = commit(repo, TREE, "fleet")
    git = GitRepository.open(repo)
    with RefSnapshot.open(git, sha, "head", 2**20) as tree, open_builder() as builder:
        found = find_kustomizations(tree)
        plain, annotated = tmp_path / "plain", tmp_path / "annotated"
        tree.materialize(sorted(found.closure("prod")[0] | found.closure("prod")[1]), plain)
        tree.materialize(sorted(found.closure("prod")[0] | found.closure("prod")[1]), annotated)
        file = kustomization_file(annotated / "prod")
        assert file is not None and request_origins(file)
        without, with_origins = builder.build_many([str(plain / "prod"), str(annotated / "prod")])
        assert (
            without.yaml
            and with_origins.yaml
            and "config.kubernetes.io/origin" in with_origins.yaml
        )
        origins = Attribution(tree, found, found.closure("prod")[1], "prod")
        built = origins.objects(_objects(annotated, with_origins.yaml), strip=True)
    expected = _objects(plain, without.yaml)
    assert [(o.key, dict(o.body)) for o in built] == [(o.key, dict(o.body)) for o in expected]
    by_kind = {o.key.kind: o for o in built}
    assert (by_kind["Deployment"].template, by_kind["Deployment"].shaped_by) == (
        "base/deployment.yaml",
        ("prod/memory.yaml",),
    )
    assert (by_kind["Service"].template, by_kind["Service"].shaped_by) == (
        "base/service.yaml",
        ("prod/kustomization.yaml",),  # the inline patch, whose selector the Service matches
    )
    config = by_kind["ConfigMap"]
    assert (config.template, config.generator) == ("base/kustomization.yaml", "ConfigMapGenerator")
    assert config.shaped_by == ("base/settings.env", "prod/kustomization.yaml")  # env, merge
    secret = by_kind["Secret"]
    assert (secret.template, secret.generator, secret.shaped_by) == (
        "base/kustomization.yaml",
        "SecretGenerator",
        (),
    )


@pytest.mark.parametrize(
    "text",
    [
        "resources: [a.yaml]\nbuildMetadata: [originAnnotations]\n",  # the user's own: output kept
        "resources: [a.yaml]\nbuildMetadata: [managedByLabel]\n",
        "{resources: [a.yaml]}\n",  # a flow mapping cannot take one more block key
    ],
)
def test_a_kustomization_that_cannot_take_the_request_is_left_as_it_is(tmp_path, text):
    file = tmp_path / "kustomization.yaml"
    file.write_text(text)
    assert request_origins(file) is False
    assert file.read_text() == text
