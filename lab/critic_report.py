"""How much of the learner's return does a PPO checkpoint's critic explain, and how much a
heuristic playout's outcome? ``python -m lab.critic_report CHECKPOINT``.

The checkpoint's policy plays ``--steps`` steps of ``--envs`` games against its run's
opponents (or ``--opponents``), sampling its moves as in training. Each learner decision
gets its discounted return (``gamma`` of the run, the reward of the run), the critic's
value, and whether the seat would go out first if the heuristic played every seat from
there (:meth:`envs.compiled_heuristic.CompiledHeuristic.playout_winners`). The report
gives the explained variance ``1 - Var(return - prediction) / Var(return)`` of the
critic, of the playout's outcome fitted linearly, and of both, overall and by how many
of the learner's decisions were still to come; decisions of games unfinished at the end
are left out. Same arguments, same report.

Found (2026-11-25, lab/notes.md, "A critic that knows where the game is heading"; a run
trained the 2026-11-24 recipes' way for 1.5M decisions, against three heuristic
players): the ``oracle`` critic, which sees every hand, explained 0.070 of the return
(0.296 with 0-1 decisions to come, -0.131 with 10 or more), the heuristic playout's
winner fitted linearly 0.518 (0.958 and 0.111). Handed that playout (:mod:`lab.outlook`)
the critic explained 0.351 against the run's mix, and the policy learned no faster.

>>> rows = explained({"critic": np.array([0.0, 1.0])}, np.array([0.0, 1.0]))
>>> rows["critic"]
1.0
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch
from tianshou.algorithm.modelfree.ppo import PPO
from tianshou.data import Batch

from envs.compiled_heuristic import CompiledHeuristic
from training import checkpoint
from training.build import make_algorithm, make_env
from training.cli import command
from training.config import Config
from training.rollout import Rollout

BUCKETS = ((0, 2), (2, 5), (5, 10), (10, 100))  # decisions still to come, [low, high)


def collect(cfg: Config, state: dict[str, Any], steps: int, seed: int) -> dict[str, np.ndarray]:
    """Per finished learner decision: ``return``, ``critic``, ``playout`` (1.0 if the
    heuristic playout's winner is the seat) and ``to_go`` (later decisions in its game)."""
    algorithm = make_algorithm(cfg)
    assert isinstance(algorithm, PPO)
    algorithm.load_state_dict(state)
    env: Any = make_env(cfg, seed=seed)
    if env.opponents is None:
        raise ValueError("the report needs a learner against opponents, not --opponents self-all")
    rollout, heuristic = Rollout(env, algorithm.policy, seed=seed), CompiledHeuristic()
    slots = np.arange(env.num_games)
    lanes: list[list[tuple[float, float, float, bool]]] = [[] for _ in slots]
    for _ in range(steps):
        seats = env.opponents.learner[slots].copy()
        playout = (heuristic.playout_winners(env.games, slots) == seats).astype(float)
        chunks, _ = rollout.step()
        for chunk in chunks:
            with torch.no_grad():
                value = algorithm.critic(Batch(chunk.obs.as_dict())).flatten().cpu().numpy()
            for i, lane in enumerate(chunk.lanes.tolist()):
                lanes[lane].append(
                    (playout[lane], float(value[i]), float(chunk.rew[i]), bool(chunk.terminated[i]))
                )
    out: dict[str, list[float]] = {"return": [], "critic": [], "playout": [], "to_go": []}
    for lane in lanes:
        ends = [i for i, row in enumerate(lane) if row[3]]
        g, to_go = 0.0, 0
        for i in range(ends[-1] if ends else -1, -1, -1):
            playout_i, value, reward, ended = lane[i]
            g, to_go = (reward, 0) if ended else (reward + cfg.gamma * g, to_go + 1)
            for key, x in zip(out, (g, value, playout_i, to_go), strict=True):
                out[key].append(x)
    return {k: np.array(v) for k, v in out.items()}


def explained(predictions: dict[str, np.ndarray], target: np.ndarray) -> dict[str, float]:
    """Explained variance of ``target`` by each prediction (used as it is)."""
    var = float(np.var(target))
    return {
        k: round(1 - float(np.var(target - p)) / var, 3) if var else float("nan")
        for k, p in predictions.items()
    }


def fitted(columns: list[np.ndarray], target: np.ndarray) -> np.ndarray:
    """The least-squares linear fit of ``target`` on ``columns`` and a constant."""
    a = np.column_stack([*columns, np.ones(len(target))])
    weights = np.linalg.lstsq(a, target, rcond=None)[0]
    fit: np.ndarray = a @ weights
    return fit


def report(data: dict[str, np.ndarray]) -> list[str]:
    """The report's lines: explained variance overall and by decisions to come."""
    lines = [
        f"{len(data['return']):,} learner decisions; explained variance of the return:",
        "| decisions to come | decisions | critic | playout (linear) | both (linear) |",
        "|---|---|---|---|---|",
    ]
    for low, high in ((0, 100), *BUCKETS):
        rows = (data["to_go"] >= low) & (data["to_go"] < high)
        target = data["return"][rows]
        critic, playout = data["critic"][rows], data["playout"][rows]
        ev = explained(
            {
                "critic": critic,
                "playout": fitted([playout], target),
                "both": fitted([playout, critic], target),
            },
            target,
        )
        label = "all" if high == 100 and low == 0 else f"{low}-{high - 1}"
        lines.append(
            f"| {label} | {rows.sum():,} | {ev['critic']} | {ev['playout']} | {ev['both']} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m lab.critic_report", __doc__)
    parser.add_argument("checkpoint", help="a PPO training checkpoint (latest.pt or best.pt)")
    parser.add_argument("--steps", type=int, default=600, help="steps of every game (600)")
    parser.add_argument("--envs", type=int, default=64, help="games played together (64)")
    parser.add_argument("--opponents", nargs="+", help="instead of the run's opponents")
    parser.add_argument("--seed", type=int, default=777, help="seed of the deals (777)")
    args = parser.parse_args(argv)
    data = checkpoint.load(args.checkpoint)
    try:
        cfg = Config.from_dict(data["config"])
    except ValueError as e:  # a removed option (training.config.REMOVED)
        parser.error(f"{args.checkpoint}: {e}")
    if cfg.algo != "ppo" or not any(k.startswith("critic.") for k in data["state"]):
        parser.error(
            f"{args.checkpoint} holds no PPO critic (an exported agent keeps the actor only)"
        )
    changes: dict[str, Any] = {"envs": args.envs, "shards": 1}
    if args.opponents:
        changes["opponents"] = tuple(args.opponents)
    cfg = dataclasses.replace(cfg, **changes)
    cfg.check()
    torch.set_num_threads(1)
    print("\n".join(report(collect(cfg, data["state"], args.steps, args.seed))))


if __name__ == "__main__":
    main()
