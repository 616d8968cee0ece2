"""Bad input at the terminal's prompts: every line gets a message and the game goes on."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from clihelp import Program, _data_home  # noqa: F401 (a fixture)

from backgammon.cli.session import _ALIASES, _CONFIRM, _TAKE_BACK

_TRICKY = [
    "13/",
    "/",
    "bar/",
    "25/off",
    "8/5(9)",
    "8/5(0)",
    "24/18/13/8/3/1",
    "0",
    "999999999999999999999999",
    "-1",
    "1e9",
    "²",
    "½",
    "13/8*/",
    "*13/8",
    "off/13",
    "13/8 13/8 13/8 13/8 13/8",
    "resign whatever",
    "resign " + "g" * 300,
    "save /nonexistent/folder/x.mat",
    "save a\x00b.mat",
    "save " + "n" * 5000,
    "\x1b[2J\x1b[H",
    "\x00",
    "\t\tfoo",
    "\u202e13/8",
    "ok?",
    "x" * 10_000,
    "13/8" + "9" * 5000,
    "💥 13/8",
    "'\"\\",
    "[bold]markup[/bold]",
    "%s %d {} {0}",
]


_ALPHABET = "abcdefghijklmnopqrstuvwxyz/*()-,.;:!?'\"#@$%^&=+_~`|\\{}[] 0123456789éßж中\t\x01\x7f"


def _garbage(rng: random.Random, sent: int) -> str:
    """A line that is no command or answer at any prompt (no '>', which ends a prompt): the
    tricky ones first, then random ones."""
    if sent < len(_TRICKY) or rng.random() < 0.2:
        return _TRICKY[sent] if sent < len(_TRICKY) else rng.choice(_TRICKY)
    while True:
        line = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 60)))
        text = line.strip().lower()
        if not text:
            continue
        if text.split()[0] in _ALIASES or text in _CONFIRM | _TAKE_BACK or text.isdigit():
            continue
        return line


def _garbage_then(program: Program, rng: random.Random, budget: int, answer: Any) -> set[str]:
    """At each prompt, send 1-3 garbage lines (while ``budget`` lasts), checking that each
    gets a message and the same prompt again, then ``answer(prompt)``; until the program
    ends.  The prompts that got garbage."""
    sent = 0
    kinds: set[str] = set()
    text = program.next_prompt()
    while text is not None:
        prompt = text.rsplit("\n", 1)[-1]
        for _ in range(rng.randint(1, 3) if sent < budget else 0):
            line = _garbage(rng, sent)
            if rng.random() < 0.05 and sent > len(_TRICKY):  # not even UTF-8
                assert program.proc.stdin is not None
                program.proc.stdin.write(b"\xff\xfe\xc3(" + line.encode() + b"\n")
                program.proc.stdin.flush()
            else:
                program.send(line)
            sent += 1
            kinds.add(prompt)
            after = program.next_prompt()
            assert after is not None, program.proc.stderr.read().decode()  # type: ignore[union-attr]
            lines = after.split("\n")
            said = [ln for ln in lines[1:-1] if ln.strip()]
            assert said, f"no message for {line[:80]!r} at {prompt!r}"
            assert lines[-1] == prompt, f"{line[:80]!r} changed the prompt: {lines[-1]!r}"
        program.send(answer(prompt))
        text = program.next_prompt()
    assert program.finish() == 0
    assert program.proc.stderr is not None
    assert program.proc.stderr.read() == b""
    assert sent >= budget
    return kinds


def _simple(prompt: str) -> str:
    return "1" if "your play" in prompt else ""


def test_hundreds_of_garbage_lines_get_messages_and_the_match_ends(tmp_path: Path) -> None:
    program = Program(
        "play",
        "--length",
        "3",
        "--seed",
        "6",
        "--bot",
        "random",
        "--confirm",
        "--out",
        "g.mat",
        cwd=tmp_path,
    )
    kinds = _garbage_then(program, random.Random(20), 300, _simple)
    assert "The match is over" in program.output
    for kind in ("roll or double", "your play", "Enter to confirm"):
        assert any(kind in prompt for prompt in kinds), kind


def test_garbage_at_the_cube_and_resignation_questions(tmp_path: Path) -> None:
    """Two players at one keyboard: a double to answer, a resignation to answer."""
    program = Program(
        "play",
        "--vs",
        "human",
        "--money",
        "--beavers",
        "--seed",
        "2",
        "--out",
        "h.mat",
        cwd=tmp_path,
    )
    steps = [
        ("roll or double", "double"),
        ("take, pass", "take"),
        ("roll or double", "resign gammon"),
        ("accept or reject", "reject"),
        ("roll or double", "resign backgammon"),
        ("accept or reject", "accept"),
        ("roll or double", "quit"),
    ]

    def answer(prompt: str) -> str:
        if steps and steps[0][0] in prompt:
            return steps.pop(0)[1]
        return _simple(prompt)

    kinds = _garbage_then(program, random.Random(21), 15, answer)
    assert steps == []
    for kind in ("take, pass or beaver", "accept or reject"):
        assert any(kind in prompt for prompt in kinds), kind
