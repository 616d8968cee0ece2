"""The database schema's history as Alembic revisions, run by :func:`migrate` when a store
opens: a new database is made by them, an older one is upgraded in place.

A database made before Alembic (no ``alembic_version`` table) holds the baseline schema,
perhaps without the columns added to it later: those are added, the database is stamped
at the baseline and then upgraded like any other.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

__all__ = ["BASELINE", "HEAD", "baseline_upload_columns", "migrate"]

BASELINE = "0001"
"""The schema the releases before Alembic made (matches, actions, analyses, uploads)."""
HEAD = "0006"
"""The newest revision."""

_LATER_COLUMNS = {"bot_since": "REAL", "options": "{} NOT NULL DEFAULT '{{}}'"}
"""Columns the baseline's ``matches`` gained before Alembic, added to a database older still."""


def baseline_upload_columns() -> list[sa.Column[object]]:
    """The ``uploads`` table's columns as the baseline made them (revision 0003 makes the
    table so, with its own column, for a database older than uploads)."""
    return [
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("plies", sa.Integer, nullable=False),
        sa.Column("analysis", sa.Text),
        sa.Column("error", sa.Text),
    ]


def _config(conn: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", "backgammon.web.store:migrations")
    config.attributes["connection"] = conn
    return config


def migrate(conn: Connection) -> None:
    """Bring the database on ``conn`` (in a transaction) to the newest schema."""
    config = _config(conn)
    tables = set(sa.inspect(conn).get_table_names())
    if "alembic_version" not in tables and "matches" in tables:  # made before Alembic
        columns = {c["name"] for c in sa.inspect(conn).get_columns("matches")}
        json_type = "JSON" if conn.dialect.name == "postgresql" else "TEXT"
        for name, kind in _LATER_COLUMNS.items():
            if name not in columns:
                conn.exec_driver_sql(
                    f"ALTER TABLE matches ADD COLUMN {name} {kind.format(json_type)}"
                )
        command.stamp(config, BASELINE)
    command.upgrade(config, "head")
