"""envs.kernels.deals: the compiled deal is ``random.Random`` driving ``Board``, bit for bit.

Each slot's consecutive deals equal ``Board(seed=rng).hands`` called again and again on
one ``random.Random(seed)``, and a slot's generator converts back to a ``random.Random``
that continues where the kernel left off.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from big2.board import Board, seed_int
from big2.rules import CHARLESWORTH, STANDARD, Rules
from envs.engine import Games, Tables
from envs.kernels import deals

INT_SEEDS = [0, 1, -1, 7, -123456789, 2**32 - 1, 2**32, 2**63, 2**64 + 5, -(2**70) - 3, 10**40]
SEEDS = [*INT_SEEDS, np.int64(42), np.int32(-9), np.uint64(2**64 - 1)]  # numpy's ints too
GAMES = 50


def python_deals(seed: object, games: int) -> list[tuple[int, ...]]:
    """The hands of ``games`` consecutive boards dealt by one ``random.Random(seed)``."""
    rng = random.Random(seed_int(seed))
    return [Board(seed=rng).hands for _ in range(games)]


def kernel_deals(seeds: Sequence[object], games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(hands, mt, index)``: ``hands[g, slot]``, game ``g`` of every slot, all slots dealt
    together in one call per game, slot ``i`` seeded ``seeds[i]``."""
    mt, index = deals.states_from([random.Random(seed_int(s)) for s in seeds])
    hands = np.zeros((len(seeds), 4), np.uint64)
    out = np.zeros((games, len(seeds), 4), np.uint64)
    slots = np.arange(len(seeds))
    for g in range(games):
        deals.deal(slots, mt, index, hands)
        out[g] = hands
    return out, mt, index


def as_ints(hands: np.ndarray) -> tuple[int, ...]:
    return tuple(int(h) for h in hands)


def test_consecutive_deals_of_many_slots_equal_boards_of_one_generator_each() -> None:
    out, _, _ = kernel_deals(SEEDS, GAMES)
    for slot, seed in enumerate(SEEDS):
        expected = python_deals(seed, GAMES)
        got = [as_ints(out[g, slot]) for g in range(GAMES)]
        assert got == expected, f"seed {seed!r}"


def test_slots_dealt_in_any_order_and_subset_keep_their_own_sequence() -> None:
    """Only the slots named are dealt; each continues its own generator, whatever the others do."""
    seeds = [3, 4, 5]
    mt, index = deals.states_from([random.Random(s) for s in seeds])
    hands = np.zeros((3, 4), np.uint64)
    rngs = [random.Random(s) for s in seeds]
    for slots in ([2, 0], [1], [0, 1, 2], [2], [2, 1], [0]):
        before = hands.copy()
        deals.deal(np.array(slots), mt, index, hands)
        for slot in range(3):
            if slot in slots:
                assert as_ints(hands[slot]) == Board(seed=rngs[slot]).hands
            else:
                assert (hands[slot] == before[slot]).all()


def test_every_deal_is_four_disjoint_thirteen_card_hands() -> None:
    out, _, _ = kernel_deals([11, 12], 20)
    for hands in out.reshape(-1, 4):
        values = [int(h) for h in hands]
        assert [h.bit_count() for h in values] == [13] * 4
        assert values[0] | values[1] | values[2] | values[3] == 2**52 - 1


def test_to_random_continues_the_generator_that_dealt_the_same_games() -> None:
    seeds = [0, -5, 2**65 + 1]
    _, mt, index = kernel_deals(seeds, 37)
    for slot, seed in enumerate(seeds):
        python = random.Random(seed)
        for _ in range(37):
            Board(seed=python)
        handed_back = deals.to_random(mt, index, slot)
        assert handed_back.getstate() == python.getstate()
        assert [handed_back.random() for _ in range(700)] == [python.random() for _ in range(700)]


def test_states_from_leaves_the_generators_untouched_and_loads_mid_stream() -> None:
    rng = random.Random(21)
    for _ in range(13):  # part-way through its words: index neither 0 nor 624
        Board(seed=rng)
    before = rng.getstate()
    mt, index = deals.states_from([rng])
    assert rng.getstate() == before
    assert 0 < index[0] < 624
    hands = np.zeros((1, 4), np.uint64)
    deals.deal(np.array([0]), mt, index, hands)
    assert as_ints(hands[0]) == Board(seed=rng).hands


def test_a_state_that_is_not_version_3_is_refused() -> None:
    class Old(random.Random):
        def getstate(self) -> tuple[Any, ...]:
            return (2, (0,) * 625, None)

    with pytest.raises(ValueError, match="version 3 with 624 words"):
        deals.states_from([Old(1)])


@pytest.mark.parametrize("k", [1, 2, 5, 6, 13, 31, 32])
def test_getrandbits_equals_python(k: int) -> None:
    mt, index = deals.states_from([random.Random(k), random.Random(-k)])
    python = [random.Random(k), random.Random(-k)]
    for _ in range(800):  # past a twist (624 words)
        for slot in (0, 1):
            assert deals.getrandbits(mt, index, slot, k) == python[slot].getrandbits(k)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 52, 53, 1000, 2**31 + 1, 2**32 - 1])
def test_randbelow_equals_python(n: int) -> None:
    mt, index = deals.states_from([random.Random(n)])
    python = random.Random(n)
    for _ in range(700):
        assert deals.randbelow(mt, index, 0, n) == python._randbelow(n)  # type: ignore[attr-defined]


def test_shuffle_equals_python_for_any_length() -> None:
    mt, index = deals.states_from([random.Random(99)])
    python = random.Random(99)
    for length in [0, 1, 2, 3, 10, 52, 100, 700]:
        x = np.arange(length)
        deals.shuffle(mt, index, 0, x)
        expected = list(range(length))
        python.shuffle(expected)
        assert x.tolist() == expected


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH], ids=lambda r: r.name)
def test_deal_games_starts_the_games_as_games_deal_does(rules: Rules) -> None:
    tables = Tables.of(rules)
    seeds = [4, -4, 2**64]
    compiled, reference = Games(3, tables), Games(3, tables)
    mt, index = deals.states_from([random.Random(s) for s in seeds])
    rngs = [random.Random(s) for s in seeds]
    for slots in ([0, 1, 2], [1], [2, 0]):
        deals.deal_games(np.array(slots), mt, index, compiled.arrays, tables.arrays)
        for slot in slots:
            reference.deal(slot, Board(rules, seed=rngs[slot]).hands)
        for name, a in zip(compiled.arrays._fields, compiled.arrays, strict=True):
            assert np.array_equal(a, getattr(reference, name)), name


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**80), 2**80), min_size=1, max_size=6), st.integers(1, 12))
def test_any_seeds_deal_as_python(seeds: list[int], games: int) -> None:
    out, mt, index = kernel_deals(seeds, games)
    for slot, seed in enumerate(seeds):
        rng = random.Random(seed)
        assert [as_ints(out[g, slot]) for g in range(games)] == [
            Board(seed=rng).hands for _ in range(games)
        ]
        assert deals.to_random(mt, index, slot).getstate() == rng.getstate()
