"""Baseline: the schema of the releases before Alembic (matches, actions, analyses,
uploads), exactly as their ``create_all`` made it."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backgammon.web.store.migrations import baseline_upload_columns

revision = "0001"
down_revision: str | None = None


def upgrade() -> None:
    """Create the four tables of the baseline."""
    op.create_table(
        "matches",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("bot", sa.Text),
        sa.Column("bot_seat", sa.Integer),
        sa.Column("token0", sa.Text, nullable=False),
        sa.Column("token1", sa.Text, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("commitment", sa.Text, nullable=False),
        sa.Column("names", sa.Text, nullable=False),
        sa.Column("over", sa.Integer, nullable=False, server_default="0"),
        sa.Column("bot_since", sa.Float),
        sa.Column("options", sa.JSON, nullable=False, server_default=sa.text("'{}'")),
    )
    op.create_table(
        "actions",
        sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "analyses",
        sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("analysis", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table("uploads", *baseline_upload_columns())
