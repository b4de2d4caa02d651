"""Search benchmark: ``python -m bench.search`` (part of ``make bench``).

Prints the milliseconds per decision of an agent with search (default the shipped
``trained+search``) against three heuristic players, on one thread, with the search's
settings of ``training.evaluate`` (``--determinizations`` and so on): once with the
policy playing the searching seat in the rollouts (the default) and once with the
compiled heuristic there, or only the ``--rollouts`` given, each after a deal of warm-up
that is not timed; heuristic rollouts per second are in ``python -m bench.heuristic``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import torch

from big2.evaluation import evaluate
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.players import Agent, load_agent
from big2.players.specs import ROLLOUTS
from big2.rules import STANDARD
from training.evaluate import add_search_arguments, search_options


class Timed:
    """An agent that times the decisions of another (the arena calls ``act`` and ``reset``)."""

    def __init__(self, agent: Agent) -> None:
        self.agent, self.name = agent, getattr(agent, "name", type(agent).__name__)
        self.seconds, self.decisions = 0.0, 0

    def reset(self, seed: int) -> None:
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset(seed)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        start = time.perf_counter()
        move = self.agent.act(view, legal_moves)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10, help="arena deals (4 games each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent", default="trained+search", help="an agent spec with search")
    add_search_arguments(parser)
    args = parser.parse_args()
    torch.set_num_threads(1)
    options = search_options(args)
    for rollouts in [options.pop("rollouts")] if "rollouts" in options else ROLLOUTS:
        searcher = load_agent(args.agent, STANDARD, rollouts=rollouts, **options)
        # one deal of another seed, untimed: numba compiles (or loads) the kernels on
        # their first call, which would otherwise count against the first decisions
        evaluate([searcher, "heuristic", "heuristic", "heuristic"], 1, args.seed + 1)
        agent = Timed(searcher)  # the arena reseeds it every game: the warm-up changes nothing
        evaluate([agent, "heuristic", "heuristic", "heuristic"], args.deals, args.seed)
        print(f"{args.agent} vs 3x heuristic, {rollouts} rollouts, 1 thread: "
              f"{1000 * agent.seconds / agent.decisions:.1f} ms/decision over "
              f"{agent.decisions} decisions ({agent.agent})", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
