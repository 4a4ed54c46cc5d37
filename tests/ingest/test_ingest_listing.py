"""A head tree listed from its base's listing and the changed paths equals the head listed whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from aftershock.ingest.repository import listing
from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.tree import Tree
from gitrepo import Executable, Gitlink, Symlink, commit, make_repo

BASE = {
    "charts/web/Chart.yaml": "name: web\n",
    "charts/web/values.yaml": "replicas: 1\n",
    "charts/web/templates/deploy.yaml": "kind: Deployment\n",
    "moved/old.yaml": "a: 1\nb: 2\nc: 3\nd: 4\n",
    "run.sh": "echo hi\n",
    "plain": "text\n",
    "becomes-folder": "a file first\n",
    "folder/one": "1\n",
    "folder/two": "2\n",
    ":(top)odd": "a name that looks like pathspec magic\n",
    "a*b": "a name that looks like a glob\n",
    "axxb": "matched by that glob\n",
    "vendor/lib": Gitlink("1" * 40),
    "kept/deep/file.txt": "never changes\n",
}
HEAD = {
    "charts/web/values.yaml": "replicas: 2\n",  # modified
    "charts/web/templates/svc.yaml": "kind: Service\n",  # added
    "charts/web/templates/deploy.yaml": None,  # deleted
    "moved/old.yaml": None,
    "moved/new.yaml": "a: 1\nb: 2\nc: 3\nd: 4\n",  # renamed
    "run.sh": Executable("echo hi\n"),  # mode changed
    "plain": Symlink("run.sh"),  # file -> symlink
    "becomes-folder": None,
    "becomes-folder/inside": "now a folder\n",  # file -> folder
    "folder": "now a file\n",  # folder -> file
    ":(top)odd": "changed\n",
    "a*b": "changed\n",
    "vendor/lib": Gitlink("2" * 40),  # submodule moved
}


def _trees(tmp_path: Path) -> tuple[GitRepository, Tree, str]:
    repo_path = make_repo(tmp_path)
    commit(repo_path, dict(BASE), "base")
    head = commit(repo_path, dict(HEAD), "head")
    repo = GitRepository.open(repo_path)
    reader = BlobReader(repo)
    return repo, Tree.load(repo, "HEAD^", reader), head


def _changed(repo: GitRepository, head: str) -> set[str]:
    files = repo.file_changes("HEAD^", head)
    return {p for f in files for p in (f.path, f.old_path) if p}


def test_head_listed_from_base_equals_head_listed_whole(tmp_path: Path) -> None:
    repo, base, head = _trees(tmp_path)
    changed = _changed(repo, head)
    assert {"moved/old.yaml", "moved/new.yaml", "folder/one", "folder"} <= changed
    whole = Tree.load(repo, head, base._reader)
    derived = Tree.load_changed(repo, head, base, changed)
    assert dict(derived.entries) == dict(whole.entries)
    assert derived.is_dir("becomes-folder") and not derived.is_dir("folder")
    assert derived.read_text("folder", max_bytes=100) == "now a file\n"
    assert derived.resolve("plain").path == "run.sh"


def test_only_the_changed_paths_are_listed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _trees(tmp_path)
    changed = _changed(repo, head)
    listed: list[tuple[str, ...]] = []
    run = GitRepository.run

    def recording(self: GitRepository, *args: str) -> bytes:
        listed.append(args)
        return run(self, *args)

    monkeypatch.setattr(GitRepository, "run", recording)
    Tree.load_changed(repo, head, base, changed)
    ls_trees = [args for args in listed if "ls-tree" in args]
    assert len(ls_trees) == 1
    assert set(ls_trees[0][ls_trees[0].index("--", 2) + 1 :]) == changed
    assert "kept/deep/file.txt" not in ls_trees[0]


def test_a_large_change_lists_the_head_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, head = _trees(tmp_path)
    monkeypatch.setattr(listing, "MAX_RELISTED_PATHS", 3)
    derived = Tree.load_changed(repo, head, base, _changed(repo, head))
    assert dict(derived.entries) == dict(Tree.load(repo, head, base._reader).entries)


def test_a_partial_tree_cannot_stand_for_the_rest(tmp_path: Path) -> None:
    repo, base, head = _trees(tmp_path)
    partial = Tree.load(repo, "HEAD^", base._reader, only=("charts",))
    assert not partial.whole and base.whole
    with pytest.raises(AssertionError):
        Tree.load_changed(repo, head, partial, set())
