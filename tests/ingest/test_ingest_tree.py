"""Trees at a ref from real git repositories: listing, reads, symlink safety, materialisation."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.tree import (
    EntryKind,
    Tree,
    TreeEntry,
    check_symlinks,
    materialize,
)
from aftershock.model.errors import (
    FileTooLargeError,
    GitError,
    MalformedInputError,
    UnsafeRepositoryError,
)
from gitrepo import Executable, Gitlink, Symlink, commit, git, make_repo

LIMIT = 1 << 20


OpenTree = Callable[..., Tree]


@pytest.fixture
def open_tree() -> Iterator[OpenTree]:
    """open_tree(repo, ref="HEAD") -> Tree; the blob readers close after the test."""
    readers: list[BlobReader] = []

    def opener(repo: Path, ref: str = "HEAD") -> Tree:
        opened = GitRepository.open(repo)
        readers.append(BlobReader(opened))
        return Tree.load(opened, ref, readers[-1])

    yield opener
    for reader in readers:
        reader.close()


def files_under(root: Path) -> dict[str, str]:
    """Every file and link under root: path -> content, or '-> target' for a link."""
    found = {}
    for folder, dirs, names in os.walk(root):
        for name in names + [d for d in dirs if Path(folder, d).is_symlink()]:
            full = Path(folder, name)
            key = full.relative_to(root).as_posix()
            found[key] = f"-> {os.readlink(full)}" if full.is_symlink() else full.read_text()
    return found


# --- listing and reading ---


def test_tree_lists_every_entry_with_its_kind(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            "charts/web/Chart.yaml": "name: web\n",
            "charts/web/templates/deploy.yaml": "kind: Deployment\n",
            "run.sh": Executable("#!/bin/sh\n"),
            "latest": Symlink("charts/web"),
            "vendor/lib": Gitlink("3" * 40),
            "my dir/ünï.yaml": "a: 1\n",
        },
        "all kinds",
    )
    tree = open_tree(repo, "main")
    assert tree.ref == "main" and len(tree.commit) == 40
    assert tree.entries["charts/web/Chart.yaml"] == TreeEntry(
        "charts/web/Chart.yaml", "100644", git(repo, "rev-parse", "main:charts/web/Chart.yaml"),
        10, EntryKind.BLOB,
    )  # fmt: skip
    assert tree.entries["run.sh"].executable and tree.entries["run.sh"].mode == "100755"
    assert (tree.entries["latest"].kind, tree.entries["latest"].size) == (EntryKind.SYMLINK, 10)
    assert (tree.entries["vendor/lib"].kind, tree.entries["vendor/lib"].size) == (
        EntryKind.SUBMODULE, None,
    )  # fmt: skip
    assert tree.paths_under("charts/web") == (
        "charts/web/Chart.yaml", "charts/web/templates/deploy.yaml",
    )  # fmt: skip
    assert tree.paths_under("charts/") == tree.paths_under("charts/web")
    assert tree.paths_under("charts/we") == ()  # a name prefix is not a folder
    assert len(tree.paths_under("")) == 6
    assert tree.is_dir("charts") and tree.is_dir("charts/web/templates") and tree.is_dir("")
    assert not tree.is_dir("charts/web/Chart.yaml") and not tree.is_dir("latest")
    assert tree.exists("charts/web/Chart.yaml") and tree.exists("my dir")
    assert not tree.exists("charts/db")
    assert tree.read_text("my dir/ünï.yaml", max_bytes=LIMIT) == "a: 1\n"


def test_reads_follow_symlinks_inside_the_tree(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            "library/lib/Chart.yaml": "name: lib\n",
            "charts/app/charts/lib": Symlink("../../../library/lib"),
        },
        "linked subchart",
    )
    tree = open_tree(repo)
    assert tree.read_text("charts/app/charts/lib/Chart.yaml", max_bytes=LIMIT) == "name: lib\n"
    with pytest.raises(GitError, match="no file charts/app/missing.yaml at HEAD"):
        tree.read_bytes("charts/app/missing.yaml", max_bytes=LIMIT)
    with pytest.raises(GitError, match="no file charts/app at HEAD"):
        tree.read_bytes("charts/app", max_bytes=LIMIT)


def test_read_many_returns_contents_in_order(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    files: dict[str, str | bytes] = {f"f/{n:03}.txt": f"file {n}\n" for n in range(300)}
    files["f/same.txt"] = "file 7\n"  # the same blob twice
    commit(repo, dict(files), "many files")
    tree = open_tree(repo)
    wanted = sorted(files, reverse=True)
    read = list(tree.read_many(wanted, max_bytes=LIMIT))
    assert [path for path, _ in read] == wanted
    assert all(data == files[path].encode() for path, data in read)  # type: ignore[union-attr]


def test_the_size_limit_is_checked_before_reading(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"values.yaml": "x" * 2000}, "big values")
    tree = open_tree(repo, "main")
    assert len(tree.read_bytes("values.yaml", max_bytes=2000)) == 2000
    with pytest.raises(FileTooLargeError) as caught:
        tree.read_text("values.yaml", max_bytes=1999)
    assert str(caught.value) == (
        "file over the size limit: values.yaml at main is 2000 bytes (limit 1999); "
        "raise --max-file-size or exclude it"
    )
    # An entry whose blob does not exist proves no read is attempted.
    ghost = TreeEntry("huge.bin", "100644", "f" * 40, 10**12, EntryKind.BLOB)
    with BlobReader(GitRepository.open(repo)) as reader:
        phantom = Tree(ref="main", commit=tree.commit, entries={"huge.bin": ghost}, reader=reader)
        with pytest.raises(FileTooLargeError, match="huge.bin at main is 1000000000000 bytes"):
            phantom.read_bytes("huge.bin", max_bytes=LIMIT)
        with pytest.raises(GitError, match=f"object {'f' * 40} is missing"):
            phantom.read_bytes("huge.bin", max_bytes=10**13)


def test_text_that_is_not_utf8_is_malformed_input(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"latin1.yaml": "caf\xe9: 1\n".encode("latin-1")}, "latin-1")
    with pytest.raises(MalformedInputError, match="not UTF-8 text: latin1.yaml at HEAD"):
        open_tree(repo).read_text("latin1.yaml", max_bytes=LIMIT)


def test_blob_reader_reports_missing_objects_and_recovers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a.txt": "hello\n"}, "one")
    sha = git(repo, "rev-parse", "HEAD:a.txt")
    with BlobReader(GitRepository.open(repo)) as reader:
        with pytest.raises(GitError, match="is missing from"):
            reader.read("0" * 40)
        with pytest.raises(GitError, match="not an object id"):
            reader.read("HEAD:a.txt")
        with pytest.raises(GitError, match="is a tree, not a file"):
            reader.read(git(repo, "rev-parse", "HEAD^{tree}"))
        assert reader.read(sha) == b"hello\n"


# --- symlink safety ---


def test_absolute_symlink_is_refused(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"charts/app/secrets": Symlink("/etc/passwd")}, "absolute link")
    with pytest.raises(UnsafeRepositoryError) as caught:
        check_symlinks(open_tree(repo, "main"))
    assert str(caught.value) == (
        "symlink leaves the repository: charts/app/secrets -> /etc/passwd at main; "
        "aftershock never follows links outside the repository root"
    )


def test_relative_symlink_climbing_out_is_refused(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"charts/app/up": Symlink("../../../outside")}, "climbing link")
    with pytest.raises(
        UnsafeRepositoryError, match=r"charts/app/up -> \.\./\.\./\.\./outside at HEAD"
    ):
        check_symlinks(open_tree(repo))


def test_escape_through_another_link_names_the_culprit(tmp_path: Path, open_tree: OpenTree) -> None:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {"a/deep/file": "x\n", "top": Symlink("a/deep"), "sneaky": Symlink("top/../../..")},
        "escape via a folder link",
    )
    # lexically "top/../../.." looks one level up; through top -> a/deep it is two levels out
    with pytest.raises(UnsafeRepositoryError, match=r"sneaky -> top/\.\./\.\./\.\."):
        check_symlinks(open_tree(repo))


def test_in_repo_chains_dangling_links_and_loops_are_fine(
    tmp_path: Path, open_tree: OpenTree
) -> None:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            "real/values.yaml": "a: 1\n",
            "one": Symlink("two/values.yaml"),
            "two": Symlink("three"),
            "three": Symlink("./real/../real"),
            "nested/up": Symlink("../real"),
            "gone": Symlink("nowhere/file"),
            "loop-a": Symlink("loop-b"),
            "loop-b": Symlink("loop-a"),
        },
        "chains",
    )
    tree = open_tree(repo)
    result = check_symlinks(tree)
    assert dict(result.targets) == {
        "one": "real/values.yaml", "two": "real", "three": "real", "nested/up": "real",
    }  # fmt: skip
    assert result.dangling == ("gone", "loop-a", "loop-b")
    assert tree.resolve("one").links == ("one", "two", "three")


# --- materialisation ---


@pytest.fixture
def platform(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path)
    commit(
        repo,
        {
            "charts/app/Chart.yaml": "name: app\n",
            "charts/app/templates/cm.yaml": "kind: ConfigMap\n",
            "charts/app/hooks/run.sh": Executable("#!/bin/sh\n"),
            "charts/app/charts/lib": Symlink("../../../library/lib"),
            "charts/app/charts/common": Symlink("../../../shared"),
            "charts/app/vendored": Gitlink("4" * 40),
            "charts/app/stale": Symlink("../../nowhere"),
            "library/lib/Chart.yaml": "name: lib\n",
            "library/lib/templates/_h.tpl": '{{- define "lib" -}}{{- end -}}\n',
            "library/lib/values.yaml": Symlink("../defaults.yaml"),
            "library/defaults.yaml": "d: 1\n",
            "library/unrelated.txt": "not needed\n",
            "shared": Symlink("library/shared-impl"),
            "library/shared-impl/Chart.yaml": "name: common\n",
            "charts/other/Chart.yaml": "name: other\n",
        },
        "platform",
    )
    return repo


def test_materialize_writes_charts_and_the_targets_of_their_links(
    platform: Path, tmp_path: Path, open_tree: OpenTree
) -> None:
    tree = open_tree(platform)
    dest = tmp_path / "work"
    result = materialize(tree, ["charts/app/"], dest, max_file_bytes=LIMIT)
    assert files_under(dest) == {
        "charts/app/Chart.yaml": "name: app\n",
        "charts/app/templates/cm.yaml": "kind: ConfigMap\n",
        "charts/app/hooks/run.sh": "#!/bin/sh\n",
        "charts/app/charts/lib": "-> ../../../library/lib",
        "charts/app/charts/common": "-> ../../../shared",
        "charts/app/stale": "-> ../../nowhere",
        "library/lib/Chart.yaml": "name: lib\n",
        "library/lib/templates/_h.tpl": '{{- define "lib" -}}{{- end -}}\n',
        "library/lib/values.yaml": "-> ../defaults.yaml",
        "library/defaults.yaml": "d: 1\n",
        "shared": "-> library/shared-impl",
        "library/shared-impl/Chart.yaml": "name: common\n",
    }
    # The links resolve inside dest, as in a checkout.
    assert (dest / "charts/app/charts/lib/values.yaml").read_text() == "d: 1\n"
    assert (dest / "charts/app/charts/common/Chart.yaml").read_text() == "name: common\n"
    assert stat.S_IMODE((dest / "charts/app/hooks/run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "charts/app/Chart.yaml").stat().st_mode) == 0o644
    assert result.submodules == ("charts/app/vendored",)
    assert result.dangling == ("charts/app/stale",)
    assert result.missing == ()
    assert "library/lib/values.yaml" in result.symlinks and "shared" in result.symlinks


def test_materialize_follows_a_prefix_that_is_itself_a_link(
    platform: Path, tmp_path: Path, open_tree: OpenTree
) -> None:
    dest = tmp_path / "work"
    result = materialize(
        open_tree(platform), ["charts/app/charts/lib", "charts/none"], dest, max_file_bytes=LIMIT
    )
    assert (dest / "charts/app/charts/lib/Chart.yaml").read_text() == "name: lib\n"
    assert not (dest / "charts/app/Chart.yaml").exists()
    assert result.missing == ("charts/none",)


def test_materialize_checks_sizes_and_links_before_writing(
    tmp_path: Path, open_tree: OpenTree
) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a/Chart.yaml": "name: a\n", "a/big.yaml": "x" * 500}, "big")
    dest = tmp_path / "work"
    with pytest.raises(FileTooLargeError, match="a/big.yaml at HEAD is 500 bytes"):
        materialize(open_tree(repo), ["a"], dest, max_file_bytes=100)
    assert files_under(dest) == {}
    commit(repo, {"a/big.yaml": None, "a/charts/evil": Symlink("../../../../home")}, "evil")
    with pytest.raises(UnsafeRepositoryError, match="a/charts/evil -> ../../../../home"):
        materialize(open_tree(repo), ["a"], dest, max_file_bytes=100)
    assert files_under(dest) == {}


def test_materialize_refuses_dot_dot_paths_in_a_crafted_tree(
    tmp_path: Path, open_tree: OpenTree
) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a/ok.yaml": "ok\n"}, "base")
    # git itself never writes such a tree, but plumbing can build one.
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="evil\n")
    inner = git(repo, "mktree", stdin=f"100644 blob {blob}\tescaped.txt\n")
    dots = git(repo, "mktree", stdin=f"040000 tree {inner}\t..\n")
    more_dots = git(repo, "mktree", stdin=f"040000 tree {dots}\t..\n")
    top = git(repo, "mktree", stdin=f"040000 tree {more_dots}\ta\n")
    sha = git(repo, "commit-tree", top, "-m", "crafted")
    tree = open_tree(repo, sha)
    assert "a/../../escaped.txt" in tree.entries
    with pytest.raises(
        UnsafeRepositoryError, match="unsafe path in the tree: 'a/../../escaped.txt'"
    ):
        materialize(tree, ["a"], tmp_path / "work" / "inner", max_file_bytes=LIMIT)
    assert not (tmp_path / "work" / "escaped.txt").exists()
