"""Uploads: the mark from which the analysis rolls decisions out again (``verify``; none for
the files sent before)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"


def upgrade() -> None:
    """Add ``uploads.verify``."""
    op.add_column("uploads", sa.Column("verify", sa.Text))
