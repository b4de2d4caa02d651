"""Dealing, compiled: CPython's ``random.Random`` as far as :class:`big2.board.Board` uses it.

:class:`big2.board.Board` deals by ``rng.shuffle(list(range(52)))`` and hands seat ``s`` of
``players`` the cards ``rest[h * s : h * s + h]``, ``h = 52 // players`` (the leftover, of
three players, to the opening card's holder: :func:`big2.board.leftover_seat`). The kernels
here run the same Mersenne Twister (MT19937: the twist and tempering of CPython's
``Modules/_randommodule.c``), the same ``getrandbits``, ``_randbelow_with_getrandbits`` and
``shuffle`` (of ``Lib/random.py``, CPython 3.11), over N generators kept in two arrays
allocated once:

- ``mt``: uint32 (N, 624), each generator's state words;
- ``index``: int64 (N,), the position of its next word (CPython's ``index``, 624 when the
  next draw twists).

So slot ``i``'s k-th deal is the k-th ``Board(seed=rng)`` of the ``random.Random`` it was
loaded from, bit for bit. Seeding stays in Python: :func:`states_from` reads the state of
``random.Random`` objects (``getstate()``), :func:`to_random` hands a
slot's generator back as one (``setstate()``).

>>> import random
>>> from big2.board import Board
>>> mt, index = states_from([random.Random(5), random.Random(-2)])
>>> hands = np.zeros((2, 4), np.uint64)
>>> deal(np.array([0, 1]), mt, index, hands)
>>> python = random.Random(5)
>>> [int(h) for h in hands[0]] == list(Board(seed=python).hands)
True
>>> to_random(mt, index, 0).random() == python.random()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from envs.kernels.turns import deal as start_game

N_WORDS = 624  # MT19937's state: 624 words of 32 bits
SHIFT = 397  # the twist's middle offset (M in the reference code)
MATRIX_A = 0x9908B0DF
UPPER_MASK = 0x80000000
LOWER_MASK = 0x7FFFFFFF
STATE_VERSION = 3  # random.Random.getstate()'s first item (CPython 3.2 and later)
DECK = 52


# ------------------------------------------------------------------ Python: the states


class Generators(NamedTuple):
    """N generators: their state words ``mt`` (N, 624) and the position of each one's next
    word, ``positions`` (N,: the ``index`` of the module docstring).

    >>> generators = Generators.seeded([7, 8])
    >>> hands = np.zeros((2, 4), np.uint64)
    >>> deal(np.array([0, 1]), generators.mt, generators.positions, hands)
    >>> from big2.board import Board
    >>> [int(h) for h in hands[1]] == list(Board(seed=8).hands)
    True
    """

    mt: np.ndarray
    positions: np.ndarray

    @classmethod
    def seeded(cls, seeds: Sequence[int]) -> Generators:
        """Generator i as ``random.Random(seeds[i])`` (so any int seeds as Python seeds it)."""
        return cls(*states_from([random.Random(seed) for seed in seeds]))


def states_from(rngs: Sequence[random.Random]) -> tuple[np.ndarray, np.ndarray]:
    """``(mt, index)`` holding the state of each of ``rngs`` (which are left untouched).

    >>> mt, index = states_from([random.Random(0)])
    >>> mt.shape, mt.dtype, int(index[0])
    ((1, 624), dtype('uint32'), 624)
    """
    mt = np.zeros((len(rngs), N_WORDS), np.uint32)
    index = np.zeros(len(rngs), np.int64)
    for slot, rng in enumerate(rngs):
        load(mt, index, slot, rng)
    return mt, index


def load(mt: np.ndarray, index: np.ndarray, slot: int, rng: random.Random) -> None:
    """Put ``rng``'s state in slot ``slot`` (to reseed one slot in place)."""
    version, internal, _gauss_next = rng.getstate()
    if version != STATE_VERSION or len(internal) != N_WORDS + 1:
        raise ValueError(
            f"expected a random.Random state of version {STATE_VERSION} with {N_WORDS} words "
            f"and an index, got version {version!r} with {len(internal)} items"
        )
    mt[slot] = internal[:N_WORDS]
    index[slot] = internal[N_WORDS]


def state_of(mt: np.ndarray, index: np.ndarray, slot: int) -> tuple[int, ...]:
    """Slot ``slot``'s generator as ``random.Random.getstate()``'s middle item: 624 words and
    the index."""
    return (*mt[slot].tolist(), int(index[slot]))


def to_random(mt: np.ndarray, index: np.ndarray, slot: int) -> random.Random:
    """A new ``random.Random`` that continues slot ``slot``'s generator (no ``gauss`` pending).

    >>> mt, index = states_from([random.Random(3)])
    >>> to_random(mt, index, 0).random() == random.Random(3).random()
    True
    """
    rng = random.Random()
    rng.setstate((STATE_VERSION, state_of(mt, index, slot), None))
    return rng


# ------------------------------------------------------------------ compiled: the generator


@numba.njit(cache=True)
def _twist(row):
    """Make a generator's next 624 words in ``row`` (MT19937's generation step, as CPython's)."""
    for kk in range(N_WORDS):
        y = (np.int64(row[kk]) & UPPER_MASK) | (np.int64(row[(kk + 1) % N_WORDS]) & LOWER_MASK)
        z = np.int64(row[(kk + SHIFT) % N_WORDS]) ^ (y >> 1)
        if y & 1:
            z ^= MATRIX_A
        row[kk] = z


# The generator's steps below take one generator's words (``row``, a view of ``mt[slot]``)
# and position (``at``, its ``index``) and return the position after them. A deal keeps
# the position in a local and stores it once: storing it in ``index[slot]`` at every draw
# made a deal four times slower (3.1 us, not 0.75 us).


@numba.njit(cache=True)
def _word(row, at):
    """``(the next 32-bit word, the position after it)`` (``genrand_uint32`` of CPython)."""
    if at >= N_WORDS:
        _twist(row)
        at = 0
    y = np.int64(row[at])
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18), at + 1


@numba.njit(cache=True)
def _bit_length(n):
    """``int.bit_length`` of a positive ``n``."""
    k = 0
    while n:
        n >>= 1
        k += 1
    return k


@numba.njit(cache=True)
def _below(row, at, n, k):
    """``(random.Random._randbelow(n), the position after it)``, as :func:`randbelow`, for
    ``n`` of bit length ``k``."""
    shift = 32 - k
    word, at = _word(row, at)
    while word >> shift >= n:
        word, at = _word(row, at)
    return word >> shift, at


@numba.njit(cache=True)
def _shuffle(row, at, x):
    """Shuffle ``x`` as :func:`shuffle`; the position after it."""
    n = x.shape[0]
    k = _bit_length(n)  # of i + 1 below, kept as i falls
    for i in range(n - 1, 0, -1):
        if i + 1 < 1 << (k - 1):
            k -= 1
        j, at = _below(row, at, i + 1, k)
        x[i], x[j] = x[j], x[i]
    return at


@numba.njit(cache=True)
def genrand_uint32(mt, index, slot):
    """The next 32-bit word of slot ``slot``'s generator (``genrand_uint32`` of CPython)."""
    word, index[slot] = _word(mt[slot], index[slot])
    return word


@numba.njit(cache=True)
def getrandbits(mt, index, slot, k):
    """``random.Random.getrandbits(k)`` for ``1 <= k <= 32`` (one word's top ``k`` bits)."""
    return genrand_uint32(mt, index, slot) >> (32 - k)


@numba.njit(cache=True)
def randbelow(mt, index, slot, n):
    """``random.Random._randbelow(n)`` for ``1 <= n < 2**32``: ``getrandbits`` of ``n``'s bit
    length, drawn again while it is ``n`` or more."""
    r, index[slot] = _below(mt[slot], index[slot], n, _bit_length(n))
    return r


@numba.njit(cache=True)
def shuffle(mt, index, slot, x):
    """``random.Random.shuffle(x)`` with slot ``slot``'s generator: ``x`` (1-D) in place."""
    index[slot] = _shuffle(mt[slot], index[slot], x)


# ------------------------------------------------------------------ compiled: the deals


@numba.njit(cache=True)
def deal_slot(slot, mt, index, hands, opening_card=0):
    """Deal one game with slot ``slot``'s generator into ``hands[slot]`` (uint64 masks, one
    per seat: ``hands.shape[1]`` players of ``52 // players`` cards), as
    :class:`big2.board.Board` deals: the leftover card (three players) goes to the holder
    of ``opening_card``, or, being that card, to the holder of the lowest card dealt."""
    deck = np.arange(DECK)
    index[slot] = _shuffle(mt[slot], index[slot], deck)
    players = hands.shape[1]
    size = DECK // players
    for seat in range(players):
        hand = 0
        for i in range(size * seat, size * seat + size):
            hand |= 1 << deck[i]
        hands[slot, seat] = hand
    for i in range(size * players, DECK):
        seat = _leftover_seat(hands[slot], deck[i], opening_card)
        hands[slot, seat] |= np.uint64(1) << np.uint64(deck[i])


@numba.njit(cache=True)
def _leftover_seat(hands, card, opening_card):
    """:func:`big2.board.leftover_seat` of card index ``card`` (``hands``: one game's)."""
    if card != opening_card:
        target = np.uint64(1) << np.uint64(opening_card)
    else:
        dealt = np.uint64(0)
        for hand in hands:
            dealt |= hand
        target = dealt & (~dealt + np.uint64(1))  # the lowest card dealt
    for seat in range(hands.shape[0]):
        if hands[seat] & target:
            return seat
    return -1


@numba.njit(cache=True)
def deal(slots, mt, index, hands, opening_card=0):
    """Deal the next game of each slot of ``slots`` into ``hands[slot]`` (an (N, players)
    uint64 array, as :attr:`envs.engine.Games.hands`), each with its own generator
    (``opening_card``: the rules' opening card index, which the leftover card follows)."""
    for i in range(slots.shape[0]):
        deal_slot(slots[i], mt, index, hands, opening_card)


@numba.njit(cache=True)
def deal_games(slots, mt, index, state, cat):
    """Deal and start the next game of each slot of ``slots`` in the engine's arrays
    (``state``, ``cat``: :class:`envs.kernels.turns.GameArrays`, ``CatalogArrays``), as
    :meth:`envs.engine.Games.deal` does with a :class:`big2.board.Board`'s hands (its
    Python log cache, ``Games._entries``, is the caller's to clear)."""
    for i in range(slots.shape[0]):
        deal_slot(slots[i], mt, index, state.hands, cat.opening_card)
        start_game(slots[i], state, cat)
