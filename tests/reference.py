"""Where the reference material the tests compare against is: ``tests/data`` in this repository.

``tests/data`` holds test vectors checked against GNU Backgammon 1.07 (``vectors.json``,
``move_vectors.json``, ``xgid_roundtrip.json``, ``movegen_counts_start.json``) and, in
``tests/data/samples``, match files written by gnubg 1.07 itself.  docs/formats.md describes
the formats.
"""

from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "data"
SAMPLES = REFERENCE / "samples"

assert REFERENCE.is_dir(), f"the test data is missing: {REFERENCE}"
