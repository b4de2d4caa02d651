"""Rules-engine benchmark: ``make bench`` (or ``python -m bench.rules``).

Prints, per rules preset:
- decisions/s of uniformly random legal play: :func:`big2.players.play` with a
  :class:`~big2.players.RandomAgent` in every seat (a view per decision, passes count,
  dealing included);
- median microseconds of ``combinations_in(hand)`` (every combination in the hand: what
  a seat may lead) for fresh random 13-card hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from big2.game import Game
from big2.hand_ranking import catalog, combinations_in
from big2.players import RandomAgent, play
from big2.rules import CHARLESWORTH, STANDARD, Rules


def random_play(rules: Rules, seconds: float, seed: int) -> tuple[float, float]:
    """(decisions per second, decisions per game) of random legal play for ``seconds``."""
    rng = random.Random(seed)
    agent = RandomAgent(rng)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += len(play(Game(rules, seed=rng), agent).log.moves)
        games += 1
    return decisions / (time.perf_counter() - start), decisions / games


def fresh_hand_us(rules: Rules, hands: int, seed: int) -> float:
    """Median microseconds of ``combinations_in`` on a fresh 13-card hand."""
    rng = random.Random(seed)
    catalog(rules)  # built once, outside the timing
    times = []
    for _ in range(hands):
        hand = sum(1 << i for i in rng.sample(range(52), 13))
        t0 = time.perf_counter_ns()
        combinations_in(hand, rules=rules)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="random play time per preset")
    parser.add_argument("--hands", type=int, default=20000, help="fresh hands to enumerate")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'rules':<14}{'decisions/s':>14}{'per game':>10}{'combinations_in µs':>21}")
    for rules in (STANDARD, CHARLESWORTH):
        rate, per_game = random_play(rules, args.seconds, args.seed)
        us = fresh_hand_us(rules, args.hands, args.seed)
        print(f"{rules.name:<14}{rate:>14,.0f}{per_game:>10.1f}{us:>21.1f}")


if __name__ == "__main__":
    main()
