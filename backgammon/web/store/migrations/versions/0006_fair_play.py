"""Fair play: when the server must next look at a match (``matches.due``: a clock running out,
an invitation expiring, a match left idle), the address a sign-up came from (``players.origin``,
hashed: sign-ups are limited per address), and whether a rated match moved a rating
(``ratings.counted``: a pair's repeated matches and wins over new accounts do not)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"


def upgrade() -> None:
    """Add ``matches.due``, ``players.origin`` and ``ratings.counted`` (every rating before
    counted)."""
    op.add_column("matches", sa.Column("due", sa.Float))
    op.create_index("matches_due", "matches", ["due"])
    op.add_column("players", sa.Column("origin", sa.Text))
    op.create_index("players_origin", "players", ["origin", "created"])
    op.add_column("ratings", sa.Column("counted", sa.Integer, nullable=False, server_default="1"))
    op.create_index("ratings_opponent", "ratings", ["player", "opponent", "created"])
