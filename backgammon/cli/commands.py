"""The ``backgammon`` command line: parse it (:mod:`backgammon.cli.parser`), then import and
run the chosen subcommand's module only, so that ``--help`` and usage errors start at once."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType

from backgammon.cli.errors import bound
from backgammon.cli.parser import PASSED_ON, build_parser
from backgammon.core.values import clip

__all__ = ["build_parser", "main"]


def _handler(command: str) -> Callable[[argparse.Namespace], int]:
    """The function that runs ``command``, its module imported only now (the engine, numpy
    and numba load with the commands that need them)."""
    if command == "rollout":
        from backgammon.cli.rollout import rollout_command

        return rollout_command
    if command == "analyse":
        from backgammon.cli.analyse import analyse_command

        return analyse_command
    if command == "eval":
        from backgammon.cli.evaluate import eval_command

        return eval_command
    if command in ("external", "ubgi"):
        from backgammon.cli import protocols

        return protocols.external_command if command == "external" else protocols.ubgi_command
    if command in ("moves", "convert", "verify"):
        from backgammon.cli import plain

        return {
            "moves": plain.moves_command,
            "convert": plain.convert_command,
            "verify": plain.verify_command,
        }[command]
    from backgammon.cli import handlers

    return {
        "play": handlers.play_command,
        "show": handlers.show_command,
        "hint": handlers.hint_command,
        "selfplay": handlers.selfplay_command,
        "serve": handlers.serve_command,
    }[command]


def _is_reported(exc: BaseException) -> bool:
    """Whether an error is the user's to fix, reported in a line (bad input, a file, another
    engine), not a bug shown with its traceback."""
    if isinstance(exc, ValueError | OSError):
        return True
    from backgammon.engine import EngineError  # loaded already by any command that raises it

    return isinstance(exc, EngineError)


_INTERRUPTED = threading.Event()
"""Set by Ctrl-C while a command runs (:func:`_on_interrupt`)."""


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C: raise KeyboardInterrupt as Python does, and remember it, because numba's
    compiler (llvmlite's callbacks) can swallow the exception and fail later otherwise."""
    _INTERRUPTED.set()
    raise KeyboardInterrupt


def _was_interrupted(exc: BaseException) -> bool:
    """Whether an error came of Ctrl-C: Ctrl-C itself, raised while one was handled, or
    after one."""
    chain = (exc, exc.__cause__, exc.__context__)
    return _INTERRUPTED.is_set() or any(isinstance(e, KeyboardInterrupt) for e in chain)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``backgammon`` command (``backgammon`` alone plays a match);
    problems are reported in a line, not a traceback."""
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in PASSED_ON:
        parser.error(f"unrecognized arguments: {clip(' '.join(rest))}")
    if args.command is None:
        args = parser.parse_args(["play"])
    _INTERRUPTED.clear()
    previous = signal.getsignal(signal.SIGINT)
    # Not where Ctrl-C is ignored or handled already, nor off the main thread.
    ours = previous is signal.default_int_handler
    ours = ours and threading.current_thread() is threading.main_thread()
    if ours:
        signal.signal(signal.SIGINT, _on_interrupt)
    try:
        if args.command in PASSED_ON:
            from backgammon.cli.handlers import train_command

            return train_command(args, rest)
        return _handler(args.command)(args)
    except (KeyboardInterrupt, Exception) as exc:
        # Ctrl-C inside compiled code (numba) surfaces as another error, or later.
        if _was_interrupted(exc):
            print(f"backgammon {args.command}: interrupted", file=sys.stderr)
            return 130
        if not _is_reported(exc):
            raise
        print(f"backgammon {args.command}: {bound(str(exc))}", file=sys.stderr)
        return 2
    finally:
        if ours:
            signal.signal(signal.SIGINT, previous)
