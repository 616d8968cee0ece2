"""Uploads: the mark from which the analysis rolls decisions out again (``verify``; none for
the files sent before)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backgammon.web.store.migrations import baseline_upload_columns

revision = "0003"
down_revision: str | None = "0002"


def upgrade() -> None:
    """Add ``uploads.verify``; a database older than uploads gets the whole table."""
    if "uploads" in sa.inspect(op.get_bind()).get_table_names():
        op.add_column("uploads", sa.Column("verify", sa.Text))
        return
    op.create_table("uploads", *baseline_upload_columns(), sa.Column("verify", sa.Text))
