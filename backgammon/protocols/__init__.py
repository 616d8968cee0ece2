"""Our bots at other programs' tables: gnubg's external player (:mod:`.external`) and a
Universal Backgammon Interface engine (:mod:`.ubgi`).  Both read a position as a FIBS board
line (or, for UBGI, an XGID) and answer with what :func:`backgammon.players.decide` does."""

from backgammon.protocols.answer import answer_text, rules_for_line
from backgammon.protocols.external import ExternalPlayer, serve_external
from backgammon.protocols.ubgi import UbgiEngine

__all__ = ["ExternalPlayer", "UbgiEngine", "answer_text", "rules_for_line", "serve_external"]
