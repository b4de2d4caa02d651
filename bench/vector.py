"""Vector-env benchmark: ``python -m bench.vector`` (also run by ``make bench``).

Steps :class:`envs.vector.Big2VectorEnv` with uniformly random legal actions from
``sample_legal`` (the caller's share of the work: a few numpy calls per step) and prints
decisions per second on one core, for the configuration the targets name (N = 1,024
games, all seats to the caller, ``simple`` observer, catalog actions) and a few others,
and the memory the env's arrays hold per 1,000 games. The env runs with ``copy=False``
(its own buffers, as a trainer that consumes each step reads them); the first row is
also timed with ``copy=True``, gymnasium's default, which copies what ``step`` returns.

Beside the rows where every seat is played it prints the *kernel share*
(:func:`kernel_share`): the time the compiled kernels alone take to play the same games
(moves, deals, legal lists, observations), over the time of the env's ``step``. It does
not depend on the machine the way decisions per second do, so a test holds it above a
floor (``tests/test_vector_speed.py``): Python bookkeeping that creeps back into the step
shows up as a falling share.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from big2.rules import PRESETS
from big2.rules import get as get_rules
from envs.batch_observers import batch_encoder
from envs.engine import Games
from envs.kernels.deals import Generators
from envs.kernels.turns import fill_legal, find_actions, legal_ranges
from envs.vector import SELF_ALL, Big2VectorEnv

ROWS: list[tuple[str, dict[str, Any]]] = [
    ("all seats, simple, catalog", {}),
    ("all seats, simple, hand", {"actions": "hand"}),
    (
        "all seats, card_counting + oracle critic",
        {"observer": "card_counting", "critic_observer": "oracle"},
    ),
    (
        "all seats, charlesworth, charlesworth rules",
        {"observer": "charlesworth", "rules": "charlesworth"},
    ),
    ("learner vs random + greedy", {"opponents": ["random", "greedy"]}),
    (
        "tables: self-all, heuristic, random",
        {"opponents": [SELF_ALL, "heuristic", "random"], "opponent_draw": "game"},
    ),
]


def decisions_per_second(n: int, seconds: float, seed: int, **options: Any) -> float:
    """Random legal play in ``n`` games for about ``seconds``; caller decisions per second
    (one per game and step: with every seat played or tables drawn, the games' acting
    seats)."""
    options = {"copy": False, **options}
    opponents = options.get("opponents")
    one_seat = opponents is not None and SELF_ALL not in opponents  # else games x seats agents
    players = get_rules(options.get("rules", "standard")).players
    env = Big2VectorEnv(n * (1 if one_seat else players), seed=seed, **options)
    env.reset()
    rng = np.random.default_rng(seed)

    def step() -> None:
        env.step(env.sample_legal(rng))

    for _ in range(3):  # compile and warm up
        step()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        steps += 1
    return steps * env.num_games / (time.perf_counter() - start)


def kernel_share(
    n: int = 1024, steps: int = 100, seed: int = 0, repeats: int = 5, **options: Any
) -> float:
    """The compiled kernels' time over the env's ``step`` time, on the same games: every
    seat of ``n`` games played for ``steps`` steps from ``seed`` with random legal actions.

    The kernels are those a step calls: the moves, the deals of the games that ended,
    the legal lists and the observations (the finished agents' included), replayed
    on a :class:`~envs.engine.Games` of their own with buffers made once. Each is timed
    ``repeats`` times, alternately, and the fastest of each kept, so that a busy machine
    slows both alike; in this thread's CPU time, so that the time other processes take
    the core from it (the test suite's other worker, the processes its tests start)
    counts in neither (in wall time a busy neighbour once took the share from 0.54 to 0.29).

    >>> 0.0 < kernel_share(n=8, steps=5, repeats=1) <= 1.5
    True
    """
    players = get_rules(options.get("rules", "standard")).players
    env = Big2VectorEnv(players * n, seed=seed, copy=False, **options)
    record = _record(env, steps, seed)
    env_times, kernel_times = [], []
    for _ in range(repeats):
        env_times.append(_time_env(env, record, seed))
        kernel_times.append(_time_kernels(env, record, seed))
    return min(kernel_times) / min(env_times)


def _record(env: Big2VectorEnv, steps: int, seed: int) -> list[np.ndarray]:
    """The actions of ``steps`` steps of random legal play from ``seed`` (and a warm-up)."""
    env.reset(seed=seed)
    rng, actions = np.random.default_rng(seed), []
    for _ in range(steps):
        actions.append(env.sample_legal(rng))
        env.step(actions[-1])
    return actions


def _time_env(env: Big2VectorEnv, record: list[np.ndarray], seed: int) -> float:
    """CPU seconds the env's ``step`` takes over ``record``'s actions from ``seed``."""
    env.reset(seed=seed)
    start = time.thread_time()
    for actions in record:
        env.step(actions)
    return time.thread_time() - start


def _time_kernels(env: Big2VectorEnv, record: list[np.ndarray], seed: int) -> float:
    """CPU seconds the compiled kernels alone take to play ``record`` as ``env`` did: the same
    deals, moves, legal lists and observations, with nothing else around them."""
    games, tables = Games(env.num_games, env.games.tables), env.games.tables.arrays
    slots = np.arange(env.num_games)
    dealers = Generators.seeded([seed + i for i in range(env.num_games)])
    games.deal_next(slots, dealers)
    encode = batch_encoder(env.observer)[0]
    critic = env.maker.encode_critic
    scratch, players = _Scratch(env), env.players
    start = time.thread_time()
    scratch.legal(games, tables, slots)
    for actions in record:
        seats = games.turn.copy()
        rows = players * slots + seats
        find_actions(actions[rows], scratch.actions, scratch.counts, scratch.positions)
        games.apply(slots, scratch.moves[slots, scratch.positions].astype(np.int64))
        ended = np.flatnonzero(games.winner >= 0)
        if len(ended):  # the final observations of every seat, then the next deal
            everyone = np.repeat(ended, players)
            seated = np.tile(np.arange(players), len(ended))
            agents = players * everyone + seated
            encode(games, everyone, seated, scratch.final, agents)
            if critic is not None:
                critic(games, everyone, seated, scratch.final_critic, agents)
            games.deal_next(ended, dealers)
        scratch.legal(games, tables, slots)
        acting = players * slots + games.turn
        encode(games, slots, games.turn, scratch.observation, acting)
        if critic is not None:
            critic(games, slots, games.turn, scratch.critic, acting)
    return time.thread_time() - start


class _Scratch:
    """Buffers made once for :func:`_time_kernels` (as wide as any legal list can be)."""

    def __init__(self, env: Big2VectorEnv) -> None:
        n, width = env.num_games, 2400  # a hand holds at most 2,379 plays, and the pass
        self.lo, self.hi = np.zeros(n, np.int64), np.zeros(n, np.int64)
        self.may_pass, self.counts = np.zeros(n, np.bool_), np.zeros(n, np.int64)
        self.moves, self.actions = np.empty((n, width), np.int32), np.empty((n, width), np.int32)
        self.positions = np.empty(n, np.int64)
        self.observation = np.zeros((env.num_envs, env.observer.size), np.float32)
        self.final = np.zeros_like(self.observation)
        width = env.maker.critic_observer.size if env.maker.critic_observer else 0
        self.critic = np.zeros((env.num_envs, width), np.float32)
        self.final_critic = np.zeros_like(self.critic)
        self.hand_actions, self.pass_action = env.maker.hand_actions, env.codec.n - 1

    def legal(self, games: Games, tables: Any, slots: np.ndarray) -> None:
        """The legal lists of every game's acting seat."""
        state = games.arrays
        legal_ranges(slots, state, tables, self.lo, self.hi, self.may_pass, self.counts)
        width = max(1, int(self.counts.max()))
        ranges = (self.lo, self.hi, self.may_pass)
        out = (self.moves[:, :width], self.actions[:, :width])
        fill_legal(slots, state, tables, *ranges, self.hand_actions, self.pass_action, *out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for label, options in ROWS:
        rate = decisions_per_second(args.envs, args.seconds, args.seed, **options)
        share = (
            ""
            if "opponents" in options
            else f"  kernel share {kernel_share(args.envs, **options):.2f}"
        )
        print(f"{label:<44}{rate:>14,.0f} decisions/s  (N = {args.envs:,}){share}")
    label, options = ROWS[0]
    rate = decisions_per_second(args.envs, args.seconds, args.seed, copy=True, **options)
    print(f"{label + ', copy=True':<44}{rate:>14,.0f} decisions/s  (N = {args.envs:,})")
    for name in PRESETS:  # the first row's configuration under every preset
        label = f"all seats, simple, catalog, {name} rules"
        rate = decisions_per_second(args.envs, args.seconds, args.seed, rules=name)
        print(f"{label:<44}{rate:>14,.0f} decisions/s  (N = {args.envs:,})")
    env = Big2VectorEnv(1000, opponents=["random"])
    print(f"memory per 1,000 games: {env.games.nbytes() / 2**20:.1f} MiB of game arrays")


if __name__ == "__main__":
    main()
