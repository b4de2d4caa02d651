"""Search benchmark: ``python -m bench.search`` (part of ``make bench``).

Prints heuristic rollouts per second (determinize a mid-game view, play it out with
:class:`~big2.players.heuristic.HeuristicAgent` in all seats) and the seconds per game of the
shipped agent with search (``trained+search``) against three heuristic players.
"""

from __future__ import annotations

import argparse
import random
import time

from big2.evaluation import evaluate
from big2.game import Game, View
from big2.players import HeuristicAgent, load_agent, play
from big2.players.search import determinize


def rollouts_per_second(seconds: float, seed: int) -> float:
    """Determinize-and-play-out rate from views 0-20 moves into heuristic games."""
    rng, agent = random.Random(seed), HeuristicAgent()
    views: list[View] = []
    while len(views) < 200:
        game = Game(seed=rng)
        moves = rng.randrange(21)
        play(game, agent, until=lambda g, n=moves: len(g.log.moves) == n)
        if not game.is_over:
            views.append(game.view(game.turn))
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        play(determinize(views[done % len(views)], rng), agent)
        done += 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="rollout timing")
    parser.add_argument("--deals", type=int, default=5, help="arena deals for the game timing")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"heuristic rollouts/s: {rollouts_per_second(args.seconds, args.seed):,.0f}")
    agent = load_agent("trained+search")
    start = time.perf_counter()
    result = evaluate([agent, "heuristic", "heuristic", "heuristic"], args.deals, args.seed)
    per_game = (time.perf_counter() - start) / result.games
    print(f"trained+search vs 3x heuristic: {per_game:.2f} s/game ({result.games} games, {agent})")


if __name__ == "__main__":
    main()
