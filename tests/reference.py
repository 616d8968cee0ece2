"""Where the shared reference material is: ../shared/reference beside the repository."""

from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
SAMPLES = REFERENCE / "samples"

assert REFERENCE.is_dir(), f"the shared reference material is missing: {REFERENCE}"
