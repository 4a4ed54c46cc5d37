"""Named, ordered schema migrations of the state database, each applied in its own transaction.

`schema_version` holds one row per applied migration. An older database is brought up to date
when it is opened; a newer one (written by a later aftershock) is refused, never altered. Table
definitions here are frozen copies of each version's shape: later changes get a new migration.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from aftershock.state import schema
from aftershock.state.errors import StateSchemaError

# Concurrent first opens of one PostgreSQL database take this transaction-level advisory lock.
_PG_MIGRATION_LOCK = int.from_bytes(
    hashlib.sha256(b"aftershock state migrations").digest()[:8], "big", signed=True
)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[Connection], None]


def _v1_reviews(conn: Connection) -> None:
    md = sa.MetaData()
    sa.Table(
        "reviews",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("repository", sa.String(500), nullable=False),
        sa.Column("target_kind", sa.String(16), nullable=False),
        sa.Column("target_name", sa.String(255), nullable=False),
        sa.Column("base_sha", sa.String(64), nullable=False),
        sa.Column("head_sha", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("not_reviewed", sa.JSON, nullable=False),
        sa.Column("aftershock_version", sa.String(64), nullable=False),
        sa.Column("config_hash", sa.String(128), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.Index("reviews_by_target", "repository", "target_kind", "target_name", "id"),
    )
    text_columns = ("title", "subject_id", "subject_display", "message")
    sa.Table(
        "review_findings",
        md,
        sa.Column(
            "review_id",
            sa.Integer,
            sa.ForeignKey("reviews.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("fingerprint", sa.String(128), nullable=False),
        sa.Column("evidence_digest", sa.String(128), nullable=False),
        sa.Column("rule_id", sa.String(200), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("subject_kind", sa.String(32), nullable=False),
        *(sa.Column(name, sa.Text, nullable=False) for name in text_columns),
        sa.Column("actionable", sa.Boolean, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("carried_forward", sa.Boolean, nullable=False),
        sa.Column("resolved_since", sa.String(64), nullable=True),
        sa.Column("payload", sa.JSON, nullable=True),
    )
    sa.Table(
        "verdicts",
        md,
        sa.Column(
            "review_id",
            sa.Integer,
            sa.ForeignKey("reviews.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("kind", sa.String(64), primary_key=True),
        sa.Column("level", sa.String(32), nullable=False),
        sa.Column("up_to_sha", sa.String(64), nullable=False),
        sa.Column("rationale", sa.Text, nullable=False),
        sa.Column("payload", sa.JSON, nullable=True),
    )
    md.create_all(conn)


def _v2_decisions(conn: Connection) -> None:
    md = sa.MetaData()
    sa.Table(
        "decisions",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("repository", sa.String(500), nullable=False),
        sa.Column("target_kind", sa.String(16), nullable=False),
        sa.Column("target_name", sa.String(255), nullable=False),
        sa.Column("fingerprint", sa.String(128), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("decided_by", sa.String(200), nullable=False),
        sa.Column("decided_at", sa.String(40), nullable=False),
        sa.Column("evidence_digest", sa.String(128), nullable=False),
        sa.Index(
            "decisions_by_target", "repository", "target_kind", "target_name", "fingerprint", "id"
        ),
    )
    md.create_all(conn)


def _v3_review_mode(conn: Connection) -> None:
    conn.exec_driver_sql("ALTER TABLE reviews ADD COLUMN mode VARCHAR(16) DEFAULT 'full' NOT NULL")
    conn.exec_driver_sql("ALTER TABLE reviews ADD COLUMN since_sha VARCHAR(64)")


def _v4_webhook_service(conn: Connection) -> None:
    md = sa.MetaData()
    sa.Table(
        "webhook_deliveries",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("delivery_id", sa.String(100), nullable=False, unique=True),
        sa.Column("event", sa.String(64), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("repository", sa.String(500), nullable=False),
        sa.Column("target_name", sa.String(255), nullable=True),
        sa.Column("head_sha", sa.String(64), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("job", sa.JSON, nullable=True),
        sa.Column("received_at", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Index("webhook_deliveries_by_target", "repository", "target_name", "id"),
        sa.Index("webhook_deliveries_by_outcome", "outcome", "id"),
    )
    sa.Table(
        "paused_targets",
        md,
        sa.Column("repository", sa.String(500), primary_key=True),
        sa.Column("target_kind", sa.String(16), primary_key=True),
        sa.Column("target_name", sa.String(255), primary_key=True),
        sa.Column("paused_by", sa.String(200), nullable=False),
        sa.Column("paused_at", sa.String(40), nullable=False),
    )
    md.create_all(conn)


def _v5_suppressed_findings(conn: Connection) -> None:
    conn.exec_driver_sql("ALTER TABLE review_findings ADD COLUMN suppression_reason TEXT")
    conn.exec_driver_sql("ALTER TABLE review_findings ADD COLUMN suppression_source TEXT")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "reviews, findings and verdicts", _v1_reviews),
    Migration(2, "dismiss and reopen decisions", _v2_decisions),
    Migration(3, "incremental reviews: mode and since_sha", _v3_review_mode),
    Migration(4, "webhook service: deliveries and paused pull requests", _v4_webhook_service),
    Migration(
        5, "suppressed findings: the suppression's reason and source", _v5_suppressed_findings
    ),
)
LATEST_VERSION = MIGRATIONS[-1].version


def current_version(conn: Connection) -> int:
    """The highest applied migration, 0 for a database aftershock never wrote to."""
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    return int(conn.scalar(sa.select(sa.func.max(schema.schema_version.c.version))) or 0)


def migrate(engine: Engine, where: str, *, upto: int = LATEST_VERSION) -> int:
    """Apply every pending migration up to `upto`, each in a transaction; return the version reached.

    Raises StateSchemaError, changing nothing, when the database is newer than this aftershock.
    """
    with engine.begin() as conn:
        version = current_version(conn)
    refuse_newer(version, where)
    for migration in MIGRATIONS:
        if version >= migration.version or migration.version > upto:
            continue
        with engine.begin() as conn:
            _serialise(conn)
            version = current_version(conn)  # another process may have migrated meanwhile
            refuse_newer(version, where)
            if version >= migration.version:
                continue
            schema.schema_version.create(conn, checkfirst=True)
            migration.apply(conn)
            conn.execute(
                sa.insert(schema.schema_version).values(
                    version=migration.version,
                    name=migration.name,
                    applied_at=datetime.now(UTC).isoformat(timespec="seconds"),
                )
            )
            version = migration.version
    return version


def refuse_newer(version: int, where: str) -> None:
    if version > LATEST_VERSION:
        raise StateSchemaError(
            f"state database schema version {version} is newer than this aftershock supports ({LATEST_VERSION})",
            where=where,
            hint="upgrade aftershock, or pass another --state",
        )


def _serialise(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
