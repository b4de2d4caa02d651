"""The ``big2`` command line.

``big2 demo [--seed N] [--rules NAME]`` plays and prints one seeded game between
baseline players (two greedy, two random).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from big2 import rules as R
from big2.agents import Agent, GreedyAgent, RandomAgent
from big2.cards import format_cards
from big2.game import Game


def demo(seed: int, rules: R.Rules) -> str:
    """The text of one seeded game between Greedy, Random, Greedy and Random seats.

    >>> print(demo(0, R.STANDARD).splitlines()[0])
    Big Two (standard rules), seed 0. Seats: 0 greedy, 1 random, 2 greedy, 3 random
    """
    rng = random.Random(seed)
    agents: list[Agent] = [GreedyAgent(), RandomAgent(rng), GreedyAgent(), RandomAgent(rng)]
    game = Game(rules, seed=rng)
    names = ["greedy", "random", "greedy", "random"]
    seats = ", ".join(f"{s} {n}" for s, n in enumerate(names))
    lines = [f"Big Two ({rules.name} rules), seed {seed}. Seats: {seats}"]
    lines += [f"  seat {s} holds {format_cards(h)}" for s, h in enumerate(game.hands)]
    while not game.is_over:
        seat = game.turn
        game.play(agents[seat].act(game.view(seat), game.legal_moves()))
    for number, entry in enumerate(game.log.moves, 1):
        label = entry.move.ranking.label if entry.move else ""
        lines.append(f"{number:>4}. seat {entry.seat}: {entry.move!s:<16} {label}".rstrip())
    lines.append(f"seat {game.winner} wins; scores {list(game.scores())}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="big2", description="Big Two for humans and agents")
    commands = parser.add_subparsers(dest="command", required=True)
    p_demo = commands.add_parser("demo", help="print one seeded game between baseline players")
    p_demo.add_argument("--seed", type=int, default=0)
    p_demo.add_argument("--rules", default="standard", choices=sorted(R.PRESETS))
    args = parser.parse_args(argv)
    if args.command == "demo":
        print(demo(args.seed, R.get(args.rules)))


if __name__ == "__main__":
    main()
