"""The rules of play as a value: match length or money, Crawford, the cube limit and the
money-play conventions (rules R26-R33 of docs/rules.md).

>>> Rules(match_length=7).crawford, Rules(match_length=7).max_cube
(True, 64)
>>> Rules.money(jacoby=True).is_money
True
>>> Rules(match_length=5, jacoby=True)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
backgammon.play.rules.RulesError: the Jacoby rule is a money-play convention ... (R30)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_CUBE_LIMIT", "MAX_MATCH_LENGTH", "Rules", "RulesError"]

MAX_MATCH_LENGTH = 64
"""Longest match (gnubg's MAXSCORE)."""

MAX_CUBE_LIMIT = 2**15
"""Largest cube a Match ID can hold (4 bits of log2)."""


class RulesError(ValueError):
    """A set of rules that is inconsistent or out of range (e.g. a money convention in a
    match, R30)."""


@dataclass(frozen=True)
class Rules:
    """How a match or money session is played.

    ``match_length`` None is a money session.  ``crawford`` applies to matches only (it is
    stored as False for money).  ``max_cube`` is the largest value the cube may reach (R26,
    a power of two; 1 means cubeless).  ``jacoby`` (R31), ``beavers``/``raccoons`` (R32)
    and ``automatic_doubles`` (R33, the number of opening ties that may double the cube)
    are money-play conventions and are refused in a match (R30).
    """

    match_length: int | None = None
    crawford: bool = True
    max_cube: int = 64
    jacoby: bool = False
    beavers: bool = False
    raccoons: bool = False
    automatic_doubles: int = 0

    def __post_init__(self) -> None:
        for name in ("crawford", "jacoby", "beavers", "raccoons"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} is True or False, not {getattr(self, name)!r:.40}")
        n = self.match_length
        if n is not None:
            if isinstance(n, bool) or not isinstance(n, int):
                raise RulesError(f"match length must be an integer 1-64, got {n!r}")
            if not 1 <= n <= MAX_MATCH_LENGTH:
                raise RulesError(f"match length must be 1-{MAX_MATCH_LENGTH}, got {n}")
            for name, on in (
                ("the Jacoby rule is", self.jacoby),
                ("beavers are", self.beavers),
                ("raccoons are", self.raccoons),
                ("automatic doubles are", self.automatic_doubles),
            ):
                if on:
                    raise RulesError(
                        f"{name} a money-play convention and cannot be used in a match (R30)"
                    )
        elif self.crawford:
            object.__setattr__(self, "crawford", False)
        c = self.max_cube
        if isinstance(c, bool) or not isinstance(c, int) or c < 1 or c & (c - 1):
            raise RulesError(f"the maximum cube must be a power of two, got {c!r}")
        if c > MAX_CUBE_LIMIT:
            raise RulesError(f"the maximum cube is at most {MAX_CUBE_LIMIT}, got {c}")
        if self.raccoons and not self.beavers:
            raise RulesError("raccoons answer beavers: allow beavers to allow raccoons (R32)")
        a = self.automatic_doubles
        if isinstance(a, bool) or not isinstance(a, int) or a < 0:
            raise RulesError(f"automatic doubles is a count >= 0, got {a!r}")

    @classmethod
    def match(cls, length: int, *, crawford: bool = True, max_cube: int = 64) -> Rules:
        """Rules of a match to ``length`` points (R27-R29)."""
        return cls(match_length=length, crawford=crawford, max_cube=max_cube)

    @classmethod
    def money(
        cls,
        *,
        jacoby: bool = False,
        beavers: bool = False,
        raccoons: bool = False,
        automatic_doubles: int = 0,
        max_cube: int = 64,
    ) -> Rules:
        """Rules of a money session with the chosen conventions (R31-R33)."""
        return cls(
            match_length=None,
            crawford=False,
            max_cube=max_cube,
            jacoby=jacoby,
            beavers=beavers,
            raccoons=raccoons,
            automatic_doubles=automatic_doubles,
        )

    @property
    def is_money(self) -> bool:
        """True for a money session (no match length)."""
        return self.match_length is None

    @property
    def cube_enabled(self) -> bool:
        """False when the maximum cube is 1 (cubeless play)."""
        return self.max_cube > 1
