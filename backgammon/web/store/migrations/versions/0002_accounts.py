"""Accounts: players (people and bots) with their rating, login sessions, each player's
rating change per rated match (the key that lets a match change a rating once), the
accounts holding a match's seats, and the chat of each match."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"


def upgrade() -> None:
    """Create the players, sessions, ratings, seats and chat tables."""
    op.create_table(
        "players",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, nullable=False, unique=True),  # the name case-folded
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("password", sa.Text),  # an argon2id hash; None for a bot
        sa.Column("rating", sa.Float, nullable=False, server_default="1500"),
        sa.Column("experience", sa.Integer, nullable=False, server_default="0"),
        sa.Column("bot", sa.Text),  # the bot's engine name, for a bot
    )
    op.create_table(
        "sessions",
        sa.Column("token", sa.Text, primary_key=True),  # SHA-256 of the cookie's value
        sa.Column("player", sa.Text, sa.ForeignKey("players.name"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
    )
    op.create_index("sessions_seen", "sessions", ["seen"])
    op.create_table(
        "ratings",
        sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("player", sa.Text, sa.ForeignKey("players.name"), primary_key=True),
        sa.Column("opponent", sa.Text, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("experience", sa.Integer, nullable=False),  # after the match
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ratings_player", "ratings", ["player", "created"])
    op.create_table(
        "seats",  # which account holds which seat of a match
        sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player", sa.Text, sa.ForeignKey("players.name"), nullable=False),
    )
    op.create_index("seats_player", "seats", ["player"])
    op.create_table(
        "chat",
        sa.Column("match_id", sa.Text, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
