"""Dice sources: seeded, supplied, auditable (commit, reveal, verify); fairness (R3, R4)."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from backgammon.play.dice import (
    AuditableDice,
    DiceError,
    DiceSource,
    FixedDice,
    SeededDice,
    dice_stream,
    verify,
)
from backgammon.play.match import Match, MatchRecord, OpeningRoll, Phase, Roll

# Upper 0.1% points of the chi-square distribution (fixed seeds: the tests are deterministic,
# and a fair source fails them one time in a thousand seeds).
CHI2_999 = {14: 36.12, 35: 66.62, 5: 20.52}


def chi_square(counts: Counter[object], cells: int, n: int) -> float:
    expected = n / cells
    assert len(counts) <= cells
    return sum((counts.get(k, 0) - expected) ** 2 / expected for k in counts) + expected * (
        cells - len(counts)
    )


def test_R4_seeded_dice_are_uniform_over_36_outcomes() -> None:
    dice = SeededDice(2024)
    n = 36 * 500
    counts: Counter[object] = Counter(dice.roll() for _ in range(n))
    assert len(counts) == 36
    assert chi_square(counts, 36, n) < CHI2_999[35]


def test_R4_single_die_stream_is_uniform_and_follows_the_spec() -> None:
    seed = b"spec"
    stream = dice_stream(seed)
    first = [next(stream) for _ in range(20)]
    # Recompute by the module's published rule: SHA-256(seed || counter) bytes < 252.
    block = hashlib.sha256(seed + (0).to_bytes(8, "big")).digest()
    assert first == [b % 6 + 1 for b in block if b < 252][:20]
    n = 6000
    counts: Counter[object] = Counter(next(stream) for _ in range(n))
    assert chi_square(counts, 6, n) < CHI2_999[5]


def _opening(match: Match) -> tuple[int, int]:
    """Throw the opening roll of a new game; the pair that decided it, larger die first."""
    while match.phase is Phase.OPENING:
        match.roll()
    assert match.dice is not None
    return max(match.dice), min(match.dice)


def test_R3_opening_roll_never_a_double_and_15_rolls_equally_likely() -> None:
    n = 6000
    counts: Counter[object] = Counter()
    ties = 0
    for seed in range(n):
        m = Match(length=1, dice=SeededDice(seed))
        counts[_opening(m)] += 1
        ties += sum(1 for a in m.record.games[0] if isinstance(a, OpeningRoll)) - 1
    assert all(a != b for a, b in counts)  # never a double
    assert len(counts) == 15
    assert chi_square(counts, 15, n) < CHI2_999[14]
    # Ties happen 1 time in 6 and are thrown again: about n/5 extra throws.
    assert 0.15 * n < ties < 0.25 * n


def test_R3_both_players_open_equally_often() -> None:
    n = 3000
    first = Counter(_opening_player(seed) for seed in range(n))
    assert abs(first[0] - first[1]) < 4 * n**0.5  # within 4 standard deviations


def _opening_player(seed: int) -> int:
    m = Match(dice=SeededDice(seed))
    _opening(m)
    assert m.turn is not None
    return m.turn


def test_same_seed_same_throws_different_seed_different_throws() -> None:
    a, b, c = SeededDice("x"), SeededDice("x"), SeededDice("y")
    ra = [a.roll() for _ in range(50)]
    assert ra == [b.roll() for _ in range(50)]
    assert ra != [c.roll() for _ in range(50)]
    assert isinstance(a, DiceSource)
    with pytest.raises(DiceError):
        SeededDice(-1)


def test_fixed_dice_hand_out_the_given_throws_then_refuse() -> None:
    dice = FixedDice([(3, 1), [6, 6]])
    assert dice.roll() == (3, 1)
    assert dice.roll() == (6, 6)
    with pytest.raises(DiceError):
        dice.roll()
    with pytest.raises(DiceError):
        FixedDice([(0, 1)])


def test_auditable_dice_commit_reveal_and_verify_a_whole_match() -> None:
    dice = AuditableDice()
    commitment = dice.commitment  # published before play
    m = Match(length=3, dice=dice)
    import random

    rng = random.Random(3)
    while not m.is_over:
        acts = [a for a in m.legal_actions() if a not in ("resign", "double")]
        a = rng.choice(acts)
        if a == "move":
            m.move(rng.choice(m.legal_moves()))
        else:
            getattr(m, a)()
    seed = dice.reveal()
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    assert len(m.record.rolls()) > 20
    assert verify(m.record, seed, commitment)
    # Any change is detected: a different seed, a wrong commitment, one altered throw.
    assert not verify(m.record, AuditableDice().reveal(), None)
    assert not verify(m.record, seed, hashlib.sha256(b"other").hexdigest())
    games = [list(g) for g in m.record.games]
    for g in games:
        for i, a in enumerate(g):
            if isinstance(a, Roll):
                g[i] = Roll(a.player, (a.dice[0] % 6 + 1, a.dice[1]))
                break
        else:
            continue
        break
    tampered = MatchRecord(m.record.rules, tuple(tuple(g) for g in games))
    assert tampered.rolls() != m.record.rolls()
    assert not verify(tampered, seed, commitment)


def test_caller_supplied_dice_fail_verification() -> None:
    seed = bytes(range(32))
    first = AuditableDice(seed).roll()
    dice = AuditableDice(seed)
    m = Match(length=3, dice=dice)
    other = (first[0] % 6 + 1, first[1])  # numbers from a real board, not from the seed
    m.roll(other)
    assert not verify(m.record, dice.reveal(), dice.commitment)


def test_auditable_seed_must_be_long_enough() -> None:
    with pytest.raises(DiceError):
        AuditableDice(seed=b"short")
    assert AuditableDice(seed=bytes(16)).commitment == hashlib.sha256(bytes(16)).hexdigest()


def test_malformed_audit_input_is_a_dice_error() -> None:
    rolls = [(3, 1), (6, 6)]
    for seed, commitment, record in [
        ("not hex", None, rolls),  # bytes.fromhex raised a plain ValueError
        (12, None, rolls),
        ("00", 5, rolls),
        ("00", None, 5),
        ("00", None, [7, (3, 1)]),
        ("00", None, [(3, 1, 2)]),
    ]:
        with pytest.raises(DiceError):
            verify(record, seed, commitment)  # type: ignore[arg-type]
    for bad in [5, None, [(3, 1), 7], "31"]:
        with pytest.raises(DiceError):
            FixedDice(bad)  # type: ignore[arg-type]
