"""Layers 0-1 from real git repositories: commits, trailers, file changes, hunks, hardening."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.gitparse import parse_patch
from aftershock.ingest.repository.tree import Tree, check_symlinks, materialize
from aftershock.model.change import FileChange, FileStatus, Hunk, Person, Trailer
from aftershock.model.errors import EmptyRangeError, GitError
from gitrepo import Executable, Gitlink, Symlink, commit, git, make_repo

TWENTY_LINES = "".join(f"line {n}\n" for n in range(1, 21))


def by_path(changes: tuple[FileChange, ...]) -> dict[str, FileChange]:
    return {change.path: change for change in changes}


# --- opening and refs ---


def test_open_outside_a_repository_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(GitError) as caught:
        GitRepository.open(tmp_path)
    assert str(caught.value) == (
        f"not a git repository: {tmp_path}; run aftershock inside a repository or pass --repo"
    )


def test_open_a_missing_folder_is_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        GitRepository.open(tmp_path / "nowhere")


def test_a_work_tree_folder_that_does_not_exist_is_named_not_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a.yaml": "a: 1\n"}, "add a")
    git(repo, "config", "core.worktree", str(tmp_path / "gone"))
    with pytest.raises(GitError) as caught:
        GitRepository.open(repo)
    assert str(caught.value).startswith(
        f"the repository's work tree folder does not exist: {tmp_path / 'gone'}"
    )
    assert "core.worktree" in str(caught.value) and "not installed" not in str(caught.value)


def test_a_work_tree_removed_after_opening_is_named_not_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    commit(repo, {"a.yaml": "a: 1\n"}, "add a")
    opened = GitRepository.open(repo)
    shutil.rmtree(tmp_path / "r")
    with pytest.raises(GitError, match="work tree folder does not exist"):
        opened.resolve("HEAD")


def test_open_from_a_subfolder_keeps_the_toplevel(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"charts/a/Chart.yaml": "name: a\n"}, "add a")
    opened = GitRepository.open(repo / "charts" / "a")
    assert opened.root == repo.resolve()


def test_a_bare_repository_opens_at_its_git_folder(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a": "1\n"}, "one")
    head = commit(repo, {"a": "2\n"}, "two")
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "bare.git"))
    opened = GitRepository.open(tmp_path / "bare.git")
    assert opened.root == (tmp_path / "bare.git").resolve()
    assert [c.sha for c in opened.commits("main~1", "main")] == [head]


def test_resolve_names_full_shas_and_refuses_unknown_refs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    first = commit(repo, {"a": "1\n"}, "one")
    git(repo, "tag", "-a", "v1", "-m", "annotated tag")
    second = commit(repo, {"a": "2\n"}, "two")
    opened = GitRepository.open(repo)
    assert opened.resolve("main") == second
    assert opened.resolve(first[:8]) == first
    assert opened.resolve("v1") == first  # an annotated tag peels to its commit
    assert opened.resolve("HEAD~1") == first
    with pytest.raises(GitError) as caught:
        opened.resolve("no-such-branch")
    assert "unknown git ref: 'no-such-branch'" in str(caught.value)
    assert "fetch it first" in str(caught.value)
    with pytest.raises(GitError, match="unknown git ref: '--all'"):
        opened.resolve("--all")  # never taken as an option


def test_default_branch_prefers_origin_head_then_known_names(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, branch="feature")
    sha = commit(repo, {"a": "1\n"}, "one")
    opened = GitRepository.open(repo)
    assert opened.default_branch() is None
    git(repo, "update-ref", "refs/remotes/origin/trunk", sha)
    assert opened.default_branch() == "origin/trunk"
    git(repo, "branch", "master")
    assert opened.default_branch() == "master"
    git(repo, "branch", "main")
    assert opened.default_branch() == "main"
    git(repo, "update-ref", "refs/remotes/origin/release", sha)
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/release")
    assert opened.default_branch() == "origin/release"


def test_merge_base_finds_the_fork_point(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    fork = commit(repo, {"a": "1\n"}, "one")
    git(repo, "switch", "-q", "-c", "topic")
    commit(repo, {"b": "1\n"}, "topic work")
    git(repo, "switch", "-q", "main")
    commit(repo, {"c": "1\n"}, "main moves on")
    assert GitRepository.open(repo).merge_base("main", "topic") == fork


def test_merge_base_of_unrelated_histories_is_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a": "1\n"}, "one")
    git(repo, "switch", "-q", "--orphan", "other")
    commit(repo, {"b": "1\n"}, "unrelated")
    with pytest.raises(GitError, match="no common ancestor between main and other"):
        GitRepository.open(repo).merge_base("main", "other")


# --- commits ---


def test_commits_oldest_first_with_body_author_and_trailers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"a": "1\n"}, "base")
    message = (
        "Bump the web chart\n\n"
        "The image moves to 1.2.\nSecond body line.\n\n"
        "Signed-off-by: Ada Lovelace <ada@example.com>\n"
        "Co-authored-by: Grace Hopper\n"
        "  <grace@example.com>\n"
        "Reviewed-by: Alan Turing <alan@example.com>\n"
    )
    first = commit(
        repo,
        {"a": "2\n"},
        message,
        author="Ada Lovelace <ada@example.com>",
        date="2024-05-01T10:00:00+02:00",
    )
    second = commit(repo, {"a": "3\n"}, "Plain follow-up", author="Bob <bob@example.com>")
    commits = GitRepository.open(repo).commits("main~2", "main")
    assert [c.sha for c in commits] == [first, second]
    bump = commits[0]
    assert bump.title == "Bump the web chart"
    assert bump.body.startswith("The image moves to 1.2.\nSecond body line.")
    assert bump.author == Person("Ada Lovelace", "ada@example.com")
    assert bump.committer == Person("Test Committer", "committer@example.com")
    assert bump.authored_at == "2024-05-01T10:00:00+02:00"
    assert bump.parents == (base,)
    assert bump.trailers == (
        Trailer("Signed-off-by", "Ada Lovelace <ada@example.com>"),
        Trailer("Co-authored-by", "Grace Hopper <grace@example.com>"),  # unfolded
        Trailer("Reviewed-by", "Alan Turing <alan@example.com>"),
    )
    assert commits[1].trailers == ()
    assert commits[1].body == ""
    assert commits[1].author == Person("Bob", "bob@example.com")


def test_a_message_without_a_trailer_block_has_no_trailers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a": "1\n"}, "base")
    commit(repo, {"a": "2\n"}, "Title\n\nNote: this is prose, not a trailer\nat all.\n")
    (only,) = GitRepository.open(repo).commits("main~1", "main")
    assert only.trailers == ()
    assert "Note: this is prose" in only.body


def test_same_base_and_head_is_an_empty_range(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a": "1\n"}, "one")
    opened = GitRepository.open(repo)
    with pytest.raises(EmptyRangeError) as caught:
        opened.commits("main", "HEAD")
    assert str(caught.value).startswith("nothing to review: main..HEAD has no commits; ")
    with pytest.raises(EmptyRangeError):
        opened.file_changes("main", "HEAD")


def test_head_behind_base_has_no_commits_to_review(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a": "1\n"}, "one")
    commit(repo, {"a": "2\n"}, "two")
    with pytest.raises(EmptyRangeError, match="nothing to review: main..main~1"):
        GitRepository.open(repo).commits("main", "main~1")


def test_unknown_refs_in_a_range_name_the_ref(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    commit(repo, {"a": "1\n"}, "one")
    with pytest.raises(GitError, match="unknown git ref: 'nope'"):
        GitRepository.open(repo).file_changes("nope", "main")


# --- file changes ---


@pytest.fixture
def changed_repo(tmp_path: Path) -> tuple[Path, str, str, str]:
    """A base commit and two head commits touching every kind of change."""
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "modified.txt": "alpha\nbeta\ngamma\n",
            "deleted.txt": "bye\n",
            "old-name.txt": TWENTY_LINES,
            "script.sh": "#!/bin/sh\necho hi\n",
            "became-link": "a regular file\n",
            "spaced dir/my file.yaml": "k: 1\n",
            "ünïcode/ファイル.txt": "x\n",
        },
        "base",
    )
    first = commit(
        repo,
        {
            "modified.txt": "alpha\nBETA\ngamma\n",
            "deleted.txt": None,
            "old-name.txt": None,
            "new-name.txt": TWENTY_LINES + "line 21\n",
            "script.sh": Executable("#!/bin/sh\necho hi\n"),
        },
        "first",
    )
    second = commit(
        repo,
        {
            "added.txt": "new\n",
            "link": Symlink("modified.txt"),
            "became-link": Symlink("modified.txt"),
            "blob.bin": b"\x00\x01\x02binary\x00",
            "spaced dir/my file.yaml": "k: 2\n",
            "ünïcode/ファイル.txt": "y\n",
            "line\nbreak.txt": "odd name\n",
        },
        "second",
    )
    return repo, base, first, second


def test_file_changes_cover_every_kind_of_change(changed_repo: tuple[Path, str, str, str]) -> None:
    repo, base, _first, second = changed_repo
    changes = by_path(GitRepository.open(repo).file_changes(base, second))
    assert set(changes) == {
        "added.txt", "modified.txt", "deleted.txt", "new-name.txt", "script.sh", "link",
        "became-link", "blob.bin", "spaced dir/my file.yaml", "ünïcode/ファイル.txt",
        "line\nbreak.txt",
    }  # fmt: skip
    added = changes["added.txt"]
    assert (added.status, added.old_mode, added.new_mode) == (FileStatus.ADDED, None, "100644")
    assert (added.additions, added.deletions) == (1, 0)
    deleted = changes["deleted.txt"]
    assert (deleted.status, deleted.old_mode, deleted.new_mode) == (
        FileStatus.DELETED,
        "100644",
        None,
    )
    renamed = changes["new-name.txt"]
    assert (renamed.status, renamed.old_path) == (FileStatus.RENAMED, "old-name.txt")
    assert renamed.similarity is not None and 80 <= renamed.similarity < 100
    assert (renamed.additions, renamed.deletions) == (1, 0)
    chmod = changes["script.sh"]
    assert (chmod.status, chmod.old_mode, chmod.new_mode) == (
        FileStatus.MODIFIED,
        "100644",
        "100755",
    )
    assert chmod.mode_changed and chmod.hunks == () and chmod.additions == 0
    link = changes["link"]
    assert (link.status, link.new_mode, link.is_symlink) == (FileStatus.ADDED, "120000", True)
    assert link.hunks[0].lines == ("+modified.txt",)
    typechange = changes["became-link"]
    assert typechange.status is FileStatus.TYPE_CHANGED
    assert (typechange.old_mode, typechange.new_mode) == ("100644", "120000")
    assert [h.lines for h in typechange.hunks] == [("-a regular file",), ("+modified.txt",)]
    binary = changes["blob.bin"]
    assert binary.binary and binary.hunks == () and (binary.additions, binary.deletions) == (0, 0)
    assert changes["spaced dir/my file.yaml"].hunks[0].lines == ("-k: 1", "+k: 2")
    assert changes["ünïcode/ファイル.txt"].status is FileStatus.MODIFIED
    assert changes["line\nbreak.txt"].hunks[0].lines == ("+odd name",)


def test_hunks_carry_ranges_header_and_lines(changed_repo: tuple[Path, str, str, str]) -> None:
    repo, base, _first, second = changed_repo
    changes = by_path(GitRepository.open(repo).file_changes(base, second))
    assert changes["modified.txt"].hunks == (
        Hunk(1, 3, 1, 3, "", (" alpha", "-beta", "+BETA", " gamma")),
    )
    assert changes["new-name.txt"].hunks == (
        Hunk(18, 3, 18, 4, "line 17", (" line 18", " line 19", " line 20", "+line 21")),
    )


def test_hunk_header_keeps_the_function_context(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    body = "def render():\n" + "".join(f"    step{n}()\n" for n in range(10))
    base = commit(repo, {"code.py": body}, "base")
    head = commit(repo, {"code.py": body.replace("step8", "STEP8")}, "head")
    (change,) = GitRepository.open(repo).file_changes(base, head)
    assert change.hunks[0].header == "def render():"
    assert (change.hunks[0].old_start, change.hunks[0].old_lines) == (7, 5)


def test_each_file_lists_the_commits_that_touched_it(
    changed_repo: tuple[Path, str, str, str],
) -> None:
    repo, base, first, second = changed_repo
    changes = by_path(GitRepository.open(repo).file_changes(base, second))
    assert changes["modified.txt"].commits == (first,)
    assert changes["new-name.txt"].commits == (first,)  # via its new and its old path
    assert changes["added.txt"].commits == (second,)
    assert changes["line\nbreak.txt"].commits == (second,)


def test_commits_of_a_renamed_file_include_those_of_its_old_path(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"old.txt": TWENTY_LINES}, "base")
    edit = commit(repo, {"old.txt": TWENTY_LINES + "more\n"}, "edit under the old name")
    move = commit(repo, {"old.txt": None, "new.txt": TWENTY_LINES + "more\n"}, "rename")
    (change,) = GitRepository.open(repo).file_changes(base, move)
    assert (change.status, change.old_path, change.commits) == (
        FileStatus.RENAMED, "old.txt", (edit, move),
    )  # fmt: skip


def test_a_pure_rename_is_fully_similar(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"a/values.yaml": TWENTY_LINES}, "base")
    head = commit(repo, {"a/values.yaml": None, "b/values.yaml": TWENTY_LINES}, "move")
    (change,) = GitRepository.open(repo).file_changes(base, head)
    assert (change.status, change.similarity, change.hunks) == (FileStatus.RENAMED, 100, ())


def test_copies_are_detected_only_when_asked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"a.txt": TWENTY_LINES}, "base")
    head = commit(repo, {"a.txt": TWENTY_LINES + "x\n", "b.txt": TWENTY_LINES}, "copy")
    opened = GitRepository.open(repo)
    plain = by_path(opened.file_changes(base, head))
    assert plain["b.txt"].status is FileStatus.ADDED
    copies = by_path(opened.file_changes(base, head, detect_copies=True))
    assert (copies["b.txt"].status, copies["b.txt"].old_path) == (FileStatus.COPIED, "a.txt")


def test_submodule_changes_keep_the_gitlink_mode(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"sub": Gitlink("1" * 40)}, "add submodule")
    head = commit(repo, {"sub": Gitlink("2" * 40)}, "bump submodule")
    (change,) = GitRepository.open(repo).file_changes(base, head)
    assert (change.old_mode, change.new_mode) == ("160000", "160000")
    assert change.hunks[0].lines == (
        f"-Subproject commit {'1' * 40}",
        f"+Subproject commit {'2' * 40}",
    )


def test_a_file_over_the_hunk_limit_keeps_counts_but_no_hunks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"big.txt": "", "small.txt": "a\n"}, "base")
    head = commit(repo, {"big.txt": "x" * 100 + "\n" * 50, "small.txt": "b\n"}, "head")
    changes = by_path(GitRepository.open(repo).file_changes(base, head, max_hunk_bytes=100))
    assert changes["big.txt"].hunks == () and changes["big.txt"].additions == 50
    assert changes["small.txt"].hunks[0].lines == ("-a", "+b")


def test_repository_diff_settings_do_not_change_what_is_parsed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    base = commit(repo, {"a.txt": "one\n\ntwo\n", "b.txt": "1\n"}, "base")
    head = commit(repo, {"a.txt": "one\n\nTWO\n", "b.txt": "2\n"}, "head")
    for key, value in [
        ("color.ui", "always"), ("color.diff", "always"), ("diff.noprefix", "true"),
        ("diff.context", "0"), ("diff.suppressBlankEmpty", "true"), ("diff.renames", "copies"),
        ("diff.orderFile", str(repo / "order")), ("diff.relative", "true"),
        ("log.abbrevCommit", "true"), ("format.pretty", "oneline"), ("diff.mnemonicPrefix", "true"),
        ("log.decorate", "full"),
    ]:  # fmt: skip
        git(repo, "config", key, value)
    (repo / "order").write_text("b.txt\na.txt\n")
    opened = GitRepository.open(repo)
    changes = opened.file_changes(base, head)
    assert [c.path for c in changes] == ["a.txt", "b.txt"]
    assert changes[0].hunks[0].lines == (" one", " ", "-two", "+TWO")
    assert opened.commits(base, head)[0].sha == head


def test_an_unreadable_diff_order_file_is_ignored_by_every_git_call(tmp_path: Path) -> None:
    # `git log --name-only` honours diff.orderFile as `git diff` does: a missing file failed the review.
    repo = make_repo(tmp_path)
    base = commit(repo, {"a.txt": "1\n", "b.txt": "1\n"}, "base")
    head = commit(repo, {"a.txt": "2\n", "b.txt": "2\n"}, "head")
    git(repo, "config", "diff.orderFile", str(tmp_path / "missing-order-file"))
    opened = GitRepository.open(repo)
    changes = opened.file_changes(base, head)
    assert [c.path for c in changes] == ["a.txt", "b.txt"]
    assert all(c.commits == (head,) for c in changes)
    assert opened.commits(base, head)[0].sha == head


def test_patch_parser_reads_blank_context_and_no_newline_markers() -> None:
    patch = [
        b"diff --git a/x b/x\n",
        b"--- a/x\n",
        b"+++ b/x\n",
        b"@@ -1,3 +1,3 @@ section\n",
        b" one\n",
        b"\n",  # an empty context line, as diff.suppressBlankEmpty prints it
        b"-two\n",
        b"\\ No newline at end of file\n",
        b"+two\n",
        b"\\ No newline at end of file\n",
        b"diff --git a/y b/y\n",
        b"old mode 100644\n",
        b"new mode 100755\n",
    ]
    first, second = parse_patch(patch, max_hunk_bytes=1000)
    assert first.hunks == (Hunk(1, 3, 1, 3, "section", (" one", " ", "-two", "+two")),)
    assert second.hunks == ()


# --- hardening: a repository cannot make aftershock run its code ---


def _arm_traps(repo: Path, markers: Path) -> dict[str, str]:
    """Hooks, fsmonitor, external diff, textconv, filters and pager that each touch a marker."""
    scripts = {}
    for name in ("post-checkout", "fsmonitor", "external", "textconv", "smudge", "pager", "hook"):
        script = markers / f"{name}.sh"
        script.write_text(f"#!/bin/sh\ntouch {markers / name}\ncat\n")
        script.chmod(0o755)
        scripts[name] = str(script)
    hooks = repo / ".git" / "hooks"
    for hook in ("post-checkout", "reference-transaction", "pre-commit", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {markers / 'hook'}\n")
        (hooks / hook).chmod(0o755)
    settings = {
        "core.fsmonitor": scripts["fsmonitor"],
        "diff.external": scripts["external"],
        "diff.evil.textconv": scripts["textconv"],
        "diff.evil.command": scripts["external"],
        "filter.evil.smudge": scripts["smudge"],
        "filter.evil.clean": scripts["smudge"],
        "filter.evil.required": "true",
        "core.pager": scripts["pager"],
        "pager.log": scripts["pager"],
        "pager.diff": scripts["pager"],
    }
    for key, value in settings.items():
        git(repo, "config", key, value)
    return scripts


def _plain_git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, check=False
    )


def test_a_malicious_repository_runs_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    base = commit(
        repo,
        {".gitattributes": "*.yaml diff=evil filter=evil\n", "c/values.yaml": "a: 1\n"},
        "base",
    )
    head = commit(repo, {"c/values.yaml": "a: 2\n", "c/link": Symlink("values.yaml")}, "head")
    _arm_traps(repo, markers)
    # The traps are armed: plain git walks into them.
    _plain_git(repo, "status")
    _plain_git(repo, "diff", base, head)
    _plain_git(repo, "diff", "--no-ext-diff", base, head)
    _plain_git(repo, "checkout", "-q", "-b", "probe")
    assert {p.name for p in markers.iterdir() if not p.suffix} >= {
        "fsmonitor", "external", "textconv", "smudge", "hook",
    }  # fmt: skip
    for marker in markers.iterdir():
        if not marker.suffix:
            marker.unlink()

    opened = GitRepository.open(repo)
    opened.resolve("main")
    opened.default_branch()
    opened.merge_base(base, head)
    assert len(opened.commits(base, head)) == 1
    changes = by_path(opened.file_changes(base, head))
    assert changes["c/values.yaml"].hunks[0].lines == ("-a: 1", "+a: 2")  # no textconv output
    with BlobReader(opened) as reader:
        tree = Tree.load(opened, head, reader)
        assert tree.read_text("c/values.yaml", max_bytes=100) == "a: 2\n"  # no smudge filter
        check_symlinks(tree)
        materialize(tree, ["c"], tmp_path / "out", max_file_bytes=100)
    assert sorted(p.name for p in markers.iterdir() if not p.suffix) == []


def test_blob_reader_answers_a_blob_read_before_from_memory_within_its_bound(tmp_path):
    repo = make_repo(tmp_path)
    head = commit(repo, {"small.txt": "tiny\n", "big.txt": "x" * 5000}, "files")
    opened = GitRepository.open(repo)
    with BlobReader(opened, cache_bytes=1000) as reader:
        tree = Tree.load(opened, head, reader)
        small, big = tree.entries["small.txt"].sha, tree.entries["big.txt"].sha
        assert dict(reader.read_many([small, big, small])) == {small: b"tiny\n", big: b"x" * 5000}
        reader.close()
        shutil.rmtree(repo / ".git")  # git can answer nothing now: only what was kept can be read
        assert reader.read(small) == b"tiny\n"
        with pytest.raises(GitError):
            reader.read(big)  # over the bound: never kept
