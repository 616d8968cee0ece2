"""What ``backgammon`` imports before it has chosen a command: ``--help`` and a usage error
must load none of the engine's heavy libraries, so that they answer at once (issue 68)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "numba", "fastapi", "sqlalchemy")
"""The libraries only a chosen command may load."""

_PROBE = """
import json, sys
from backgammon.cli.commands import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def _loaded(*args: str) -> tuple[object, set[str]]:
    """The exit status of ``backgammon ARGS`` run in a fresh interpreter, and the top-level
    packages it had imported by the end."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120
    )
    report = json.loads(done.stdout.splitlines()[-1])
    return report["status"], {name.partition(".")[0] for name in report["modules"]}


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("rollout", "--help"),
        ("analyse", "--help"),
        ("hint", "--no-such-option"),
        ("no-such-command",),
    ],
)
def test_help_and_usage_errors_load_no_engine(args: tuple[str, ...]) -> None:
    status, modules = _loaded(*args)
    assert status == (0 if "--help" in args else 2)
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_listing_the_plays_of_a_roll_loads_no_engine() -> None:
    """``moves`` needs the rules only, not the bot."""
    status, modules = _loaded("moves", "4HPwATDgc/ABMA", "--dice", "31")
    assert status == 0
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_a_chosen_command_still_loads_what_it_needs() -> None:
    """The probe sees imports: a hint, which needs the net, loads numpy and numba."""
    status, modules = _loaded("hint", "4HPwATDgc/ABMA", "--dice", "31", "--ply", "0")
    assert status == 0
    assert {"numpy", "numba"} <= modules


def test_the_package_names_are_imported_on_first_use() -> None:
    """``from backgammon.cli import Session`` still works, from the module that defines it."""
    from backgammon.cli import Session, build_parser
    from backgammon.cli.parser import build_parser as defined
    from backgammon.cli.session import Session as session_class

    assert build_parser is defined
    assert Session is session_class
    with pytest.raises(AttributeError, match="no_such_name"):
        from backgammon import cli

        _ = cli.no_such_name
