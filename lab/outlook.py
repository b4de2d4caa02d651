"""Does a critic that knows where the game is heading make PPO learn better?
``python -m lab.outlook`` (prints how to run it again: its training hooks were removed).

The ``oracle`` critic, which sees every hand, explains little of the learner's return
(``python -m lab.critic_report``), while one number explains much of it: whether the seat
would go out first if the heuristic played every seat from here. The outlook handed the
critic that number, and which opponent kind holds each other seat, at the end of its
``"critic"`` vector (``--critic-outlook``; a hidden layer over the critic body's output
and these numbers made the value). An outlook row (:class:`Outlook`) is float32,
seat-relative (the seat itself, then the next seats in turn order), in two named pieces
(:data:`PIECES`):

- ``playout``: one-hot, the seat that goes out first when the compiled heuristic
  plays all four seats from the current position (the position itself is left alone;
  a finished game's winner is its own);
- ``opponents``: for each of the three other seats, one-hot over the env's opponent
  kinds (their names in the order the mix first names them; a pool of snapshots is
  ``self``); all zero when there are no opponents (every seat is a learner).

It is for training only: it sees every hand (through the playout).

Found (2026-11-25, lab/notes.md, "A critic that knows where the game is heading did not
help either"): trained with the outlook, stage 1's critic explained 0.351 of the return
against the recipes' mix after 2M decisions, three times the ``oracle`` critic's 0.115,
and the policy learned no better, in both presets, with GAE's lambda at 0.95 or 0.5
(STANDARD at 2.0M: 0.795 / 0.404 / 0.265 against random / greedy / heuristic players,
stage 1 without it 0.844 / 0.396 / 0.255). It cost about one heuristic playout per
learner decision. So it was not kept: the env's ``critic_outlook``, the decision
maker's outlook hook, the ``--critic-outlook`` flag and the critic's outlook head were
removed from the product on 2026-12-01. This module keeps the rows it computed (on the
product's :class:`~envs.engine.Games` and
:meth:`~envs.compiled_heuristic.CompiledHeuristic.playout_winners`); the experiment
runs as it ran at commit 943bc02, the last with the hooks (``main`` prints how).

>>> from big2.board import Board
>>> from big2.rules import STANDARD
>>> from envs.engine import Games, Tables
>>> games = Games(1, Tables.of(STANDARD))
>>> games.deal(0, Board(seed=5).hands)
>>> outlook = Outlook(games, mix=("heuristic", "random"))
>>> outlook.size, outlook.offsets
(10, {'playout': 0, 'opponents': 4})
>>> row = outlook.rows(np.array([0]), np.array([0]), np.array([[-1, 0, 1, 0]]))[0]
>>> float(row[:4].sum()), row[4:].tolist()   # one winner; next seat heuristic, then random
(1.0, [1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.compiled_heuristic import CompiledHeuristic
from envs.engine import Games
from training.cli import command

PIECES = ("playout", "opponents")


def kind_name(entry: Any) -> str:
    """The kind of one opponent-mix entry: an agent spec is its own name, a pool of
    snapshots is ``self``, any other batch policy its type's name."""
    if isinstance(entry, str):
        return entry
    return "self" if isinstance(entry, list) else type(entry).__name__


def kind_names(mix: Sequence[Any]) -> tuple[str, ...]:
    """The opponent kinds of a mix: each entry's :func:`kind_name`, once, in the order
    first named.

    >>> kind_names(["heuristic", "random", "heuristic", []])
    ('heuristic', 'random', 'self')
    """
    return tuple(dict.fromkeys(kind_name(entry) for entry in mix))


class Outlook:
    """Outlook rows (see the module docstring) of the games of ``games``, whose opponents
    are drawn from ``mix`` (None: every seat is a learner)."""

    def __init__(self, games: Games, mix: Sequence[Any] | None = None) -> None:
        self.games, self.kinds = games, kind_names(mix or ())
        # each mix entry's index in kinds
        self.kind_of_entry = np.array([self.kinds.index(kind_name(e)) for e in mix or ()],
                                      np.int64)  # fmt: skip
        self.heuristic = CompiledHeuristic()
        sizes = {"playout": 4, "opponents": 3 * len(self.kinds)}
        self.offsets = {name: sum(sizes[p] for p in PIECES[:i]) for i, name in enumerate(PIECES)}
        self.size = sum(sizes.values())

    def rows(self, slots: np.ndarray, seats: np.ndarray, drawn: np.ndarray | None) -> np.ndarray:
        """(len(slots), size) float32 for seat ``seats[i]`` of game ``slots[i]``; ``drawn``
        gives each game's seats as indices into the mix (-1: a learner), one row of four
        per slot, or None without opponents."""
        n = len(slots)
        out = np.zeros((n, self.size), np.float32)
        if not n:
            return out
        winners = self.heuristic.playout_winners(self.games, slots)
        out[np.arange(n), (winners - seats) % 4] = 1.0
        if drawn is not None and self.kinds:
            start = self.offsets["opponents"]
            for k in range(1, 4):  # the other seats, in turn order
                entry = drawn[np.arange(n), (seats + k) % 4]
                rows = np.flatnonzero(entry >= 0)
                kind = self.kind_of_entry[entry[rows]]
                out[rows, start + (k - 1) * len(self.kinds) + kind] = 1.0
        return out


RERUN = """\
git worktree add ../big2-outlook 943bc02 && cd ../big2-outlook && make   # the hooks' last commit
FLAGS="--observer card_counting --critic-observer oracle --hidden 512 256 --action-head mlp \\
    --action-rest --action-context --plan-features --ent-coef 0.003 --threads 1 \\
    --eval-seed 12345 --eval-deals 200 --epoch-steps 500000"   # the 2026-11-24 recipes' stage 1
.venv/bin/python -m training.train $FLAGS --reward win --critic-outlook --seed 0 \\
    --opponents heuristic heuristic greedy random --steps 2000000 --run-dir runs/outlook-std
    # add --rules charlesworth; for lambda 0.5 add --gae-lambda 0.5 (1.5M decisions)
.venv/bin/python -m lab.critic_report runs/outlook-std/latest.pt   # the critic: 0.351"""


def main(argv: list[str] | None = None) -> None:
    """Print how to run the experiment again (at the last commit with its hooks)."""
    command("python -m lab.outlook", __doc__).parse_args(argv)
    print(RERUN)


if __name__ == "__main__":
    main()
