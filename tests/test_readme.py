"""The README's examples run as written."""

import doctest
from pathlib import Path


def test_readme_examples() -> None:
    result = doctest.testfile(
        str(Path(__file__).parent.parent / "README.md"), module_relative=False
    )
    assert result.attempted > 0
    assert result.failed == 0


def test_package_docstring_examples() -> None:
    import backgammon

    result = doctest.testmod(backgammon)
    assert result.attempted >= 3
    assert result.failed == 0


def test_every_install_command_in_the_docs_installs_the_checkout() -> None:
    """Issue 68, item 16: the docs said ``pip install 'backgammon[rl]'``, which fails (the
    package is not on an index: it is installed from its checkout).  Every ``pip install``
    of the package in the README and docs/ installs the checkout (``.``), with extras that
    pyproject.toml defines."""
    import re
    import tomllib

    root = Path(__file__).parent.parent
    extras = set(
        tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    others = {"open_spiel"}  # a peer some benches compare with, not ours
    found = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for command in re.findall(r"pip install ([^`\n]+)", page.read_text("utf-8")):
            target = command.split("&&")[0].split()[-1].strip("'\"")
            found.append(target)
            if target in others:
                continue
            assert re.fullmatch(r"\.(\[[a-z,]+\])?", target), f"{page.name}: pip install {command}"
            for extra in re.findall(r"[a-z]+", target):
                assert extra in extras, f"{page.name}: no extra {extra!r} in pyproject.toml"
    assert ".[rl]" in found and ".[cluster]" in found
