"""Players: each name's skeleton (what it looks like, :func:`~backgammon.web.errors.skeleton`),
indexed, so a new name that looks like one taken (a Cyrillic or full-width copy) is refused."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backgammon.web.errors import skeleton

revision = "0004"
down_revision: str | None = "0003"


def upgrade() -> None:
    """Add ``players.skeleton``, filled in for the names already taken, and its index."""
    op.add_column("players", sa.Column("skeleton", sa.Text))
    conn = op.get_bind()
    players = sa.table("players", sa.column("name", sa.Text), sa.column("skeleton", sa.Text))
    for (name,) in conn.execute(sa.select(players.c.name)).all():
        conn.execute(players.update().where(players.c.name == name).values(skeleton=skeleton(name)))
    op.create_index("players_skeleton", "players", ["skeleton"])
