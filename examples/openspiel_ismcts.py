"""OpenSpiel's ISMCTS against big2's heuristic: ``python examples/openspiel_ismcts.py``.

Importing ``envs.openspiel`` registers Big Two with OpenSpiel as ``python_big2``; this
first runs OpenSpiel's own random-simulation test on it, then seats OpenSpiel's
information-set MCTS bot (``envs.openspiel_agent.ISMCTSAgent``: it resamples the hidden
hands from its seat's information state at every simulation) against three heuristic
players on ``--deals`` duplicate deals in the arena, and prints the arena's table
(needs ``pip install 'big2[openspiel]'``).
"""

from __future__ import annotations

import argparse
import time

import pyspiel

from big2.evaluation import evaluate
from big2.evaluation.stats import interval_text
from big2.rules import PRESETS
from envs.openspiel import NAME
from envs.openspiel_agent import ROLLOUTS, ISMCTSAgent


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5, help="duplicate deals (4 games each)")
    parser.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations a move")
    parser.add_argument(
        "--rollouts",
        default="heuristic",
        choices=ROLLOUTS,
        help="who plays the simulations out: the heuristic or random moves",
    )
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=2026, help="the arena's deals")
    args = parser.parse_args(argv)

    game = pyspiel.load_game(NAME, {"rules": args.rules})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    print(f"{game}: OpenSpiel's random-simulation test passed")

    bot = ISMCTSAgent(args.rules, simulations=args.simulations, rollouts=args.rollouts)
    started = time.perf_counter()
    result = evaluate(
        [bot, "heuristic", "heuristic", "heuristic"],
        args.deals,
        args.seed,
        rules=PRESETS[args.rules],
    )
    print(result.table())
    print(f"{time.perf_counter() - started:.0f} s for {result.games} games")
    me = result.agents[0]
    interval = interval_text(me.win_share_ci, args.deals)  # none on one deal
    print(
        f"ISMCTS win share vs three heuristic players: {me.win_share:.3f} {interval} "
        f"({args.deals} duplicate deals of seed {args.seed}; parity 0.25)"
    )
    return me.win_share


if __name__ == "__main__":
    main()
