"""Sphinx configuration of the reference site: the Markdown pages and the API of every module.

Built with warnings as errors, as tests/test_docs_site.py builds it::

    sphinx-build -W --keep-going -b html docs docs/_build/html

Sphinx rather than MkDocs: the docstrings are written for it (``:class:`` and ``:meth:``
roles, ``>>>`` examples), autodoc reads them as they are, and MyST brings the Markdown pages
in unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backgammon import __version__  # noqa: E402 (after the path is set)

project = "backgammon"
author = "the backgammon authors"
copyright = "the backgammon authors"
release = version = __version__

extensions = ["sphinx.ext.autodoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

# Each module documents what it defines; the names a package re-exports are documented
# where they are defined (no object is described twice).
autodoc_default_options = {"members": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_mock_imports = ["ray"]  # the rollout's optional cluster backend
# Signatures show a default as written (``met=KAZAROSS_XG2``), not its repr (the whole match
# equity table), and name numpy's ArrayLike rather than spell out its union.
autodoc_preserve_defaults = True
autodoc_type_aliases = {
    "ArrayLike": "numpy.typing.ArrayLike",
    "npt.ArrayLike": "numpy.typing.ArrayLike",
}

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "alabaster"
html_title = f"backgammon {release}"
html_theme_options = {"description": "Backgammon done right, checked against GNU Backgammon"}
