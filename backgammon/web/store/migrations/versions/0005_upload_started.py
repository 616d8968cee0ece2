"""Uploads: when a server process last said it is analysing the file (``started``), so that
a poll served by another process waits for it instead of reading the file again and starting
a second analysis."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"


def upgrade() -> None:
    """Add ``uploads.started`` (none for the files sent before: any process may take them)."""
    op.add_column("uploads", sa.Column("started", sa.Float))
