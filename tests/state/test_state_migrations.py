"""Schema migrations of the state database: fresh, older and newer databases, and clear refusals."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from aftershock.model.state_lifecycle import LifecycleState
from aftershock.state import schema
from aftershock.state.database import connect
from aftershock.state.errors import StateError, StateSchemaError
from aftershock.state.migrations import LATEST_VERSION, MIGRATIONS, migrate
from aftershock.state.store import open_store
from state_support import PR, REPO, finding, record, state_location  # noqa: F401 (fixture)

RBAC = finding(
    "rbac-wildcard", "charts/web::rbac.authorization.k8s.io/Role/default/web", {"verbs": ["*"]}
)


def versions(engine: sa.Engine) -> list[tuple[int, str]]:
    with engine.begin() as conn:
        return [
            tuple(row)
            for row in conn.execute(
                sa.select(schema.schema_version.c.version, schema.schema_version.c.name).order_by(
                    schema.schema_version.c.version
                )
            )
        ]


def test_a_fresh_database_gets_every_migration_and_the_declared_tables(state_location):
    store = open_store(state_location)
    assert versions(store.engine) == [(m.version, m.name) for m in MIGRATIONS]
    inspector = sa.inspect(store.engine)
    for table in schema.metadata.tables.values():
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name: c.nullable for c in table.columns}, table.name
    store.close()


def test_an_older_database_is_migrated_and_its_reviews_kept(state_location):
    database = connect(state_location, None)
    assert migrate(database.engine, database.where, upto=1) == 1
    with database.engine.begin() as conn:  # what aftershock wrote at schema version 1
        reviews = sa.Table("reviews", sa.MetaData(), autoload_with=conn)
        findings = sa.Table("review_findings", sa.MetaData(), autoload_with=conn)
        assert "mode" not in reviews.c
        review_id = conn.execute(
            sa.insert(reviews).values(
                repository=REPO,
                target_kind="pr",
                target_name="12",
                base_sha="b" * 40,
                head_sha="1" * 40,
                status="complete",
                not_reviewed=[],
                aftershock_version="0.0.9",
                config_hash="old",
                started_at="2026-10-01T00:00:00+00:00",
                recorded_at="2026-10-01T00:01:00+00:00",
            )
        ).inserted_primary_key[0]
        conn.execute(
            sa.insert(findings).values(
                review_id=review_id,
                position=0,
                fingerprint=RBAC.fingerprint,
                evidence_digest=RBAC.evidence_digest,
                rule_id=RBAC.rule_id,
                severity="medium",
                subject_kind="object",
                title=RBAC.title,
                subject_id=RBAC.subject.id,
                subject_display="web",
                message="m",
                actionable=True,
                state="new",
                carried_forward=False,
                resolved_since=None,
                payload=None,
            )
        )
    database.engine.dispose()

    store = open_store(state_location)
    assert [v for v, _ in versions(store.engine)] == list(range(1, LATEST_VERSION + 1))
    (old,) = store.history(REPO, PR)
    assert (old.aftershock_version, old.mode.value, old.since_sha, old.counts) == (
        "0.0.9",
        "full",
        None,
        {"new": 1},
    )
    store.dismiss(
        REPO, PR, RBAC.fingerprint, "kept from before the upgrade", "ada"
    )  # a table of version 2
    after = store.record_review(record("2" * 40, (RBAC,)))
    assert [e.state for e in after.lifecycle.entries] == [LifecycleState.DISMISSED]
    store.close()


def test_a_newer_database_is_refused_unchanged(state_location):
    store = open_store(state_location)
    store.record_review(record("1" * 40, (RBAC,)))
    with store.engine.begin() as conn:
        conn.execute(
            sa.insert(schema.schema_version).values(
                version=LATEST_VERSION + 4,
                name="from the future",
                applied_at="2027-01-01T00:00:00+00:00",
            )
        )
    before = versions(store.engine)
    store.close()
    with pytest.raises(StateSchemaError) as caught:
        open_store(state_location)
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(
        f"state database schema version {LATEST_VERSION + 4} is newer than this aftershock supports ({LATEST_VERSION}) ("
    )
    assert line.endswith("); upgrade aftershock, or pass another --state")
    database = connect(state_location, None)
    assert versions(database.engine) == before
    database.engine.dispose()


def test_unusable_locations_fail_with_one_line(tmp_path):
    not_a_database = tmp_path / "notes.db"
    not_a_database.write_text("these are my notes, not a database\n" * 100)
    cases = {
        str(not_a_database): "state database failed: file is not a database",
        "mysql://localhost/x": "unsupported state database 'mysql'",
        "sqlite://": "an in-memory state database keeps nothing",
        "postgresql://nobody:secret@127.0.0.1:1/none": "state database failed: ",
    }
    for location, start in cases.items():
        with pytest.raises(StateError) as caught:
            open_store(location)
        assert str(caught.value).startswith(start) and "\n" not in str(caught.value), str(
            caught.value
        )
        assert "secret" not in str(caught.value)


def test_the_default_location_is_inside_the_repository_and_ignored(tmp_path):
    store = open_store(None, repo_root=tmp_path)
    store.record_review(record("1" * 40))
    store.close()
    assert (tmp_path / ".aftershock" / "state.db").is_file()
    assert (tmp_path / ".aftershock" / ".gitignore").read_text().splitlines()[-1] == "*"
    with pytest.raises(StateError, match="no state database given"):
        open_store(None)
