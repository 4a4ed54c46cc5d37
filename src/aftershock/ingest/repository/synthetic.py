"""Commits aftershock writes itself so that a state with no commit of its own can be reviewed as a range:
the index as it is staged (`review --staged`) and a whole tree (the Action's baseline on push).

Only objects are written (`git write-tree`, `git mktree`, `git commit-tree`): no ref, no index entry
and no file of the work tree changes, and an unreferenced object is left to git's garbage collection.
"""

from __future__ import annotations

from aftershock.ingest.repository.git import GitRepository
from aftershock.model.errors import GitError

_IDENTITY = ("-c", "user.name=aftershock", "-c", "user.email=aftershock@localhost")


def staged_commit(repo: GitRepository, parent: str = "HEAD") -> str:
    """A commit of the index on top of `parent`: what `git commit` would create now."""
    parent_sha = repo.resolve(parent)
    try:
        tree = repo.run("write-tree").decode("ascii").strip()
    except GitError as error:
        raise GitError(
            f"the index cannot be written as a tree in {repo.root}: {error.what}",
            hint="resolve the merge conflicts first (git status)",
        ) from None
    return _commit(repo, tree, (parent_sha,), "aftershock: the staged changes")


def whole_tree_range(repo: GitRepository, head: str) -> tuple[str, str]:
    """(base, head): an empty root commit and a commit of `head`'s tree on it, so everything is added."""
    head_sha = repo.resolve(head)
    empty_tree = repo.run("mktree").decode("ascii").strip()  # stdin is empty: the empty tree
    root = _commit(repo, empty_tree, (), "aftershock: the empty tree")
    tree = repo.run("rev-parse", f"{head_sha}^{{tree}}").decode("ascii").strip()
    return root, _commit(repo, tree, (root,), f"chore: the whole tree of {head_sha[:12]}")


def _commit(repo: GitRepository, tree: str, parents: tuple[str, ...], message: str) -> str:
    parent_args = [arg for sha in parents for arg in ("-p", sha)]
    sha = (
        repo.run(*_IDENTITY, "commit-tree", "--no-gpg-sign", tree, *parent_args, "-m", message)
        .decode("ascii")
        .strip()
    )
    repo.resolve(sha)
    return sha
