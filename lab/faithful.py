"""How often does the 2018 code's quirk change the ``charlesworth`` vector?
``python -m lab.faithful [--games 4000] [--seed 0]``.

Plays random games under CHARLESWORTH rules and, at every decision, compares the vector
of ``observers.make("charlesworth")`` (the written rules) with that of
``faithful=True`` (the 2018 code's ``isFullHouse`` quirk: a plain straight also counts as
a full house). Prints the share of decisions whose vectors differ, and why.

Found (docs/rules.md, docs/observers.md): over 4,000 random games of seed 0 (304,457
decisions) the two vectors differ at 12.8% of decisions, at 1.0% with a straight on the
table and the rest after an opponent played one. A measurement of the observer, not of
its speed: it moved here from ``bench/`` (and out of ``make bench``), whose scripts time
the code.
"""

from __future__ import annotations

import random

import numpy as np

import observers
from big2.game import Game
from big2.hand_ranking import Ranking
from big2.rules import CHARLESWORTH
from training.cli import command


def measure(games: int, seed: int) -> dict[str, int]:
    """Decisions in all, those whose vectors differ, and those with a straight on the table."""
    plain = observers.make("charlesworth", CHARLESWORTH)
    faithful = observers.make("charlesworth", CHARLESWORTH, faithful=True)
    rng = random.Random(seed)
    counts = {"decisions": 0, "differ": 0, "straight_on_table": 0}
    for _ in range(games):
        game = Game(CHARLESWORTH, seed=rng)
        while not game.is_over:
            view = game.view(game.turn)
            differ = not np.array_equal(plain.observe(view), faithful.observe(view))
            counts["decisions"] += 1
            counts["differ"] += differ
            table = game.table
            counts["straight_on_table"] += bool(table and table.ranking == Ranking.STRAIGHT)
            game.play(rng.choice(game.legal_moves()))
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m lab.faithful", __doc__)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    c = measure(args.games, args.seed)
    print(
        f"{args.games:,} random games (seed {args.seed}), {c['decisions']:,} decisions: "
        f"the vectors differ at {c['differ'] / c['decisions']:.1%} of them; a straight is "
        f"on the table at {c['straight_on_table'] / c['decisions']:.1%}, and the rest "
        f"follow an opponent who played one"
    )


if __name__ == "__main__":
    main()
