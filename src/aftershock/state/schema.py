"""The tables of the state database as they are at the latest schema version (SQLAlchemy Core).

Queries use these definitions; `migrations` owns how a database gets to this shape, and a test
checks that a migrated database has exactly these columns. Times are ISO 8601 UTC text, so both
SQLite and PostgreSQL store and sort them alike.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("applied_at", sa.String(40), nullable=False),
)

reviews = sa.Table(
    "reviews",
    metadata,
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
    sa.Column("mode", sa.String(16), nullable=False, server_default="full"),
    sa.Column("since_sha", sa.String(64), nullable=True),
    sa.Index("reviews_by_target", "repository", "target_kind", "target_name", "id"),
)

review_findings = sa.Table(
    "review_findings",
    metadata,
    sa.Column(
        "review_id", sa.Integer, sa.ForeignKey("reviews.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("position", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("fingerprint", sa.String(128), nullable=False),
    sa.Column("evidence_digest", sa.String(128), nullable=False),
    sa.Column("rule_id", sa.String(200), nullable=False),
    sa.Column("severity", sa.String(16), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("subject_kind", sa.String(32), nullable=False),
    sa.Column("subject_id", sa.Text, nullable=False),
    sa.Column("subject_display", sa.Text, nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("actionable", sa.Boolean, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("carried_forward", sa.Boolean, nullable=False),
    sa.Column("resolved_since", sa.String(64), nullable=True),
    sa.Column("payload", sa.JSON, nullable=True),
    sa.Column("suppression_reason", sa.Text, nullable=True),  # state "suppressed": why, and by what
    sa.Column("suppression_source", sa.Text, nullable=True),
)

verdicts = sa.Table(
    "verdicts",
    metadata,
    sa.Column(
        "review_id", sa.Integer, sa.ForeignKey("reviews.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("kind", sa.String(64), primary_key=True),
    sa.Column("level", sa.String(32), nullable=False),
    sa.Column("up_to_sha", sa.String(64), nullable=False),
    sa.Column("rationale", sa.Text, nullable=False),
    sa.Column("payload", sa.JSON, nullable=True),
)

decisions = sa.Table(
    "decisions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("repository", sa.String(500), nullable=False),
    sa.Column("target_kind", sa.String(16), nullable=False),
    sa.Column("target_name", sa.String(255), nullable=False),
    sa.Column("fingerprint", sa.String(128), nullable=False),
    sa.Column("action", sa.String(16), nullable=False),  # "dismiss" or "reopen"
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("decided_by", sa.String(200), nullable=False),
    sa.Column("decided_at", sa.String(40), nullable=False),
    sa.Column("evidence_digest", sa.String(128), nullable=False),
    sa.Index(
        "decisions_by_target", "repository", "target_kind", "target_name", "fingerprint", "id"
    ),
)

# The webhook service's ledger: one row per GitHub delivery (deduplicated by its GUID), what became
# of it, and the review job it asked for; `id` orders deliveries, so a newer job supersedes an older one.
webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
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

# Pull requests whose automatic reviews on push are paused (`@aftershock pause`).
paused_targets = sa.Table(
    "paused_targets",
    metadata,
    sa.Column("repository", sa.String(500), primary_key=True),
    sa.Column("target_kind", sa.String(16), primary_key=True),
    sa.Column("target_name", sa.String(255), primary_key=True),
    sa.Column("paused_by", sa.String(200), nullable=False),
    sa.Column("paused_at", sa.String(40), nullable=False),
)
