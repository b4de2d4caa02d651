"""Prioritized fictitious self-play: how often each snapshot of the learner is drawn.

When each game draws its table (``self-all`` among other ``--opponents``), ``self`` is a
pool of the run's snapshots, and a game that draws it seats one snapshot, copies of it at
every seat but the learner's one. Each snapshot is drawn by a weight that grows with how
often it beats the learner there (AlphaStar's prioritized fictitious self-play), so the
learner plays most against the past selves it still loses to, and rarely against those
it has left behind, which the pool keeps nonetheless so that a skill once lost is
noticed.

The learner's results at a snapshot's tables are ``wins`` and ``games`` (kept in the
run's state with the snapshot, in every checkpoint, so a resumed run draws as the
uninterrupted one). Its weight:

- ``x = (wins + PRIOR x 1/P) / (games + PRIOR)`` at a table of ``P`` players: the
  learner's win share at the snapshot's tables, with :data:`PRIOR` games of an even table
  (a quarter of four players) added, so a new snapshot, with no games yet, counts as even
  and is played;
- ``q = (P - 1) x / (1 + (P - 2) x)`` (``3x / (1 + 2x)`` of four players): the learner's
  chance of beating one copy of the snapshot, for a table of several what AlphaStar's
  pairwise win probability is. It is the Luce choice model's (OpenSkill's
  Plackett-Luce): a learner of strength ``a`` against ``P - 1`` copies of strength ``b``
  wins ``x = a / (a + (P - 1) b)`` of the games, and one copy alone with chance
  ``a / (a + b)``, which is ``q``. An even table (``x = 1/P``) is ``q = 1/2``; of two
  players ``q = x``;
- ``weight = (1 - q)^2`` (``((1 - x) / (1 + 2x))^2`` of four players): AlphaStar's
  ``f_hard`` with ``p = 2``: 1 for a snapshot the learner never beats, 1/4 for an even
  one, never 0 (the prior keeps ``x`` below 1), so every snapshot is still drawn
  sometimes.

The results age: after each epoch a snapshot's old counts are multiplied by
:data:`DECAY` before the epoch's are added, so its weight follows the learner as it is,
not as it was (about the last two epochs' games count).

>>> [round(w, 3) for w in draw_weights([{"wins": 0, "games": 0}, {"wins": 300, "games": 600}])]
[0.25, 0.066]
>>> credit([{"epoch": 3, "wins": 2.0, "games": 4.0}], wins=[1], games=[10])
[{'epoch': 3, 'wins': 2.0, 'games': 12.0}]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

PRIOR = 20.0  # games of an even table every snapshot's results start from
DECAY = 0.5  # the share of a snapshot's results that carries into the next epoch
POWER = 2.0  # f_hard's p: how much harder snapshots are preferred


def learner_share(wins: float, games: float, players: int = 4) -> float:
    """The learner's win share at a snapshot's tables of ``players``, shrunk toward an
    even table.

    >>> learner_share(0.0, 0.0), learner_share(80.0, 80.0), learner_share(0.0, 0.0, 3)
    (0.25, 0.85, 0.333...)
    """
    return (wins + PRIOR / players) / (games + PRIOR)


def weight(share: float, players: int = 4) -> float:
    """A snapshot's draw weight when the learner wins ``share`` of the games at its tables
    of ``players`` (module docstring: ``(1 - q)^2``).

    >>> weight(0.0), weight(0.25), weight(1.0), weight(1 / 3, players=3), weight(0.5, 2)
    (1.0, 0.25, 0.0, 0.25, 0.25)
    """
    beats_one = (players - 1) * share / (1 + (players - 2) * share)
    return float((1 - beats_one) ** POWER)


def draw_weights(snapshots: Sequence[Mapping[str, Any]], players: int = 4) -> list[float]:
    """Each snapshot's draw weight, from the learner's results at its tables of ``players``."""
    return [
        weight(learner_share(s.get("wins", 0.0), s.get("games", 0.0), players), players)
        for s in snapshots
    ]


def credit(
    snapshots: Sequence[dict[str, Any]], wins: Sequence[float], games: Sequence[float]
) -> list[dict[str, Any]]:
    """The snapshots with an epoch's results added: ``wins[m]`` of the learner in
    ``games[m]`` at member ``m``'s tables, after the old ones are aged by :data:`DECAY`."""
    return [
        {
            **s,
            "wins": DECAY * s.get("wins", 0.0) + float(w),
            "games": DECAY * s.get("games", 0.0) + float(g),
        }
        for s, w, g in zip(snapshots, wins, games, strict=True)
    ]


def tally(
    tables: Sequence[int],
    members: Sequence[int],
    wins: Sequence[bool],
    pooled: Sequence[int],
    n: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The learner's wins and games at each of ``n`` pool members' tables, from finished
    games at ``tables`` (an index in the opponents; ``pooled``: those that are ``self``)
    with pool ``members`` (-1: none sat there).

    >>> tally([0, 2, 2, 2], [-1, 0, 1, 1], [True, True, False, True], pooled=[2], n=2)
    (array([1., 1.]), array([1., 2.]))
    """
    member = np.asarray(members, np.int64)
    mine = np.isin(np.asarray(tables, np.int64), list(pooled)) & (member >= 0)
    won = np.bincount(member[mine], weights=np.asarray(wins, float)[mine], minlength=n)
    played = np.bincount(member[mine], minlength=n).astype(float)
    return won, played
