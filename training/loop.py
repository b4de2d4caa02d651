"""The training loop: collect, update, and after every epoch evaluate, snapshot and save.

:class:`Run` drives one run; :class:`RunState` is what a checkpoint resumes besides the
networks. Evaluations play the greedy policy against copies of each evaluation
opponent on the same fixed duplicate deals every time (``--eval-seed``), in the arena or
in the compiled engine (``--eval-engine``).
"""

from __future__ import annotations

import io
import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN
from tianshou.algorithm.modelfree.ppo import PPO
from tianshou.data import VectorReplayBuffer
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from big2.evaluation import deal_results, summarise
from big2.evaluation.arena import AgentResult
from big2.evaluation.backends import Backend
from big2.players import Agent
from envs import duplicate
from envs.policy_agent import PolicyAgent
from training import checkpoint, pfsp
from training.build import acting_net, opponent_entry
from training.config import SELF, Config
from training.ensemble import Actor
from training.plot import plot_curve
from training.rollout import Chunk, Episodes, GreedyPolicy, Rollout, add, to_buffer
from training.rundir import write_whole
from training.seeds import seed_of
from training.shards import Shards
from training.spec import RunSpec, resolve

KEPT = 5  # self-play snapshots kept in the pool (the last ones)
PFSP_KEPT = 12  # under table draws, where they are drawn by their results (training.pfsp)


@dataclass
class RunState:
    """What a checkpoint resumes besides the networks: counters, history, snapshots."""

    epoch: int = 0
    env_step: int = 0
    update_step: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    # the self-play pool: {"epoch": the epoch it was taken after, "weights": actor state}
    snapshots: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_checkpoint(cls, data: dict[str, Any]) -> RunState:
        snapshots = [
            s if "weights" in s else {"epoch": i, "weights": s}  # older checkpoints
            for i, s in enumerate(data["snapshots"])
        ]
        return cls(data["epoch"], data["env_step"], data["update_step"], data["history"], snapshots)


def learner_agent(settings: Config | RunSpec, net: Actor) -> PolicyAgent:
    """The greedy policy of ``net`` as an arena player (a cheating upper bound, shown the
    whole game, when the config's observer sees every hand: ``upper_bound``)."""
    spec = resolve(settings)
    return checkpoint.NetworkAgent(net, spec, "learner", cheat=spec.config.upper_bound)


def evaluate_policy(settings: Config | RunSpec, net: Actor, step: int) -> list[dict[str, Any]]:
    """The greedy policy's results against copies of each eval opponent (at every other
    seat), on the evaluation deals, played where ``--eval-engine`` says."""
    spec = resolve(settings)
    cfg, rows = spec.config, []
    for name in cfg.eval_opponents:
        deals = [[r] for r in learner_results(spec, net, name, cfg.eval_deals, cfg.eval_seed)]
        a = summarise(["learner"], deals, cfg.eval_seed, spec.env.rules).agents[0]
        rows.append({"env_step": step, "opponent": name, **figures(a), "deals": cfg.eval_deals})
    return rows


def figures(result: AgentResult) -> dict[str, Any]:
    """An agent's win share and mean score, each with its 95% interval, by name.

    >>> figures(AgentResult("a", 4, 2, 0.5, (0.1, 0.9), 1.0, (-2.0, 4.0)))["win_share_ci"]
    (0.1, 0.9)
    """
    return {
        "win_share": result.win_share,
        "win_share_ci": result.win_share_ci,
        "mean_score": result.mean_score,
        "mean_score_ci": result.mean_score_ci,
    }


def learner_results(
    settings: Config | RunSpec, net: Actor, opponent: str, n_deals: int, seed: int
) -> list[tuple[int, int]]:
    """Per duplicate deal of ``seed``, the greedy policy's (wins, total score) over its
    games (one a seat) against copies of ``opponent``, played where ``--eval-engine`` says."""
    spec = resolve(settings)
    env = spec.env
    if spec.config.eval_engine == "compiled":
        inputs = (env.rules, env.observer, env.codec, env.features)
        seated = opponent_entry(opponent, spec)  # a checkpoint: batched, the same moves
        return duplicate.deal_results(GreedyPolicy(net), seated, n_deals, seed, *inputs)
    others = [opponent] * (env.rules.players - 1)
    agents: list[Agent | str] = [learner_agent(spec, net), *others]
    return [deal[0] for deal in deal_results(agents, n_deals, seed, env.rules)]


def selection_key(cfg: Config) -> str:
    """What ``best.pt`` maximises: win share for the ``win`` reward, else mean score."""
    return "win_share" if cfg.reward == "win" else "mean_score"


def epoch_scores(history: list[dict[str, Any]], key: str = "mean_score") -> dict[int, float]:
    """Per evaluation step, ``key`` averaged over the evaluation opponents.

    >>> rows = [{"env_step": 5, "mean_score": 1.0}, {"env_step": 5, "mean_score": 3.0}]
    >>> epoch_scores(rows)
    {5: 2.0}
    """
    by_step: dict[int, list[float]] = {}
    for row in history:
        by_step.setdefault(row["env_step"], []).append(row[key])
    return {step: float(np.mean(scores)) for step, scores in by_step.items()}


class Run:
    """One training run's loop: collect, update, and after every epoch evaluate and save.
    ``spec.config`` holds its plain settings (budgets, PPO's and DQN's numbers)."""

    def __init__(
        self,
        spec: RunSpec,
        run_dir: Path,
        algorithm: PPO | DQN,
        state: RunState,
        backend: Backend | None = None,
    ) -> None:
        self.spec, self.cfg = spec, spec.config
        self.run_dir, self.algorithm, self.state = run_dir, algorithm, state
        self.env = Shards(spec, backend or Backend(), self._seed("deals"), self.cfg.shards)
        self.rollout = Rollout(self.env, algorithm.policy)  # dealt as each epoch starts
        self.pooled: set[int] = set()  # the snapshots (by epoch) the shards hold
        # a resumed run drops what a crashed continuation logged after its checkpoint
        self.writer = SummaryWriter(str(run_dir / "tb"), purge_step=state.env_step + 1)
        best = epoch_scores(state.history, selection_key(self.cfg)).values()
        self.best = max(best, default=-np.inf)
        self.buffer: VectorReplayBuffer | None = None  # DQN's replay buffer; PPO's last rollout
        self.timing = {"collect": 0.0, "update": 0.0}  # seconds (benchmarks read them)
        # prioritized fictitious self-play: snapshots drawn by their results (training.pfsp)
        self.pfsp = spec.env.tables and SELF in self.cfg.opponents
        self.results = np.zeros((2, 0))  # this epoch's wins and games at each snapshot

    def run(self) -> None:
        cfg, state, started = self.cfg, self.state, time.monotonic()
        try:
            while state.env_step < cfg.steps:
                self._epoch()
                if 0 < cfg.max_minutes * 60 <= time.monotonic() - started:
                    break
        finally:
            self.writer.close()
            self.env.close()

    def _seed(self, purpose: str, *keys: int) -> int:
        """The seed of ``purpose`` in the current epoch (:mod:`training.seeds`)."""
        return seed_of(self.cfg.seed, purpose, self.state.epoch, *keys)

    def _start_epoch(self) -> None:
        """Seed what the epoch draws from its number alone, so that a run resumed here
        goes on exactly as the uninterrupted run does: the self-play pool's sampling
        (under table draws, by :mod:`training.pfsp`'s weights, from the results saved with
        the snapshots), torch's and numpy's global generators (Tianshou's), DQN's
        exploration (the deals: :meth:`Rollout.restart`)."""
        state = self.state
        if self.pfsp and not state.snapshots:  # the learner as it starts plays from epoch 1
            state.snapshots = [self._snapshot()]
        pool = []
        for s in state.snapshots:
            weights = None if s["epoch"] in self.pooled else s["weights"]  # weights once only
            pool.append((s["epoch"], self._seed("snapshot", s["epoch"]), weights))
        players = self.spec.env.rules.players
        chances = pfsp.draw_weights(state.snapshots, players) if self.pfsp else None
        self.env.set_pool(pool, chances)
        self.pooled = {s["epoch"] for s in state.snapshots}
        self.results = np.zeros((2, len(state.snapshots)))  # the learner's wins, games
        seed = self._seed("globals")
        torch.manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)
        self.rng = np.random.default_rng(self._seed("explore"))

    def _epoch(self) -> None:
        cfg, state = self.cfg, self.state
        self._start_epoch()
        self.rollout.restart(self._seed("deals"))  # every epoch on fresh deals of its own seed
        target = min(cfg.steps, state.env_step + cfg.epoch_steps)
        desc = f"epoch {state.epoch + 1}"
        bar = tqdm(total=target - state.env_step, desc=desc, unit="step", leave=False)
        while state.env_step < target:
            before = state.env_step
            algorithm = self.algorithm
            if isinstance(algorithm, PPO):
                self._ppo_round(algorithm)
            else:
                self._dqn_round(algorithm)
            bar.update(state.env_step - before)
        bar.close()
        state.epoch += 1
        self._after_epoch()

    def _collect(self, n: int, explore: Any = None) -> list[Chunk]:
        """At least ``n`` transitions (whole steps of every game)."""
        chunks, episodes, count, start = [], Episodes(), 0, time.perf_counter()
        while count < n:
            new, finished = self.rollout.step(explore)
            chunks += new
            count += sum(len(c.act) for c in new)
            episodes.extend(finished)
        self.state.env_step += count
        if self.pfsp:
            pooled = [i for i, name in enumerate(self.cfg.opponents) if name == SELF]
            n_pool = self.results.shape[1]
            won = pfsp.tally(episodes.tables, episodes.members, episodes.wins, pooled, n_pool)
            self.results += np.stack(won)
        seconds = time.perf_counter() - start
        self.timing["collect"] += seconds
        rate = count / max(seconds, 1e-9)
        self._log_collection(episodes, rate)
        return chunks

    def _ppo_round(self, algorithm: PPO) -> None:
        chunks = self._collect(self.cfg.collect_steps)
        start = time.perf_counter()
        self.buffer = buffer = to_buffer(chunks, self.rollout.lanes, store_next=True)
        stats = algorithm.update(buffer, batch_size=self.cfg.batch_size, repeat=self.cfg.ppo_repeat)
        seconds = time.perf_counter() - start
        self.timing["update"] += seconds
        self.state.update_step += getattr(stats, "gradient_steps", 0)
        self.writer.add_scalar(
            "speed/update_transitions_per_s", len(buffer) / seconds, self.state.env_step
        )
        self._log_update(stats)

    def _dqn_round(self, algorithm: DQN) -> None:
        cfg = self.cfg
        if self.buffer is None:
            self.buffer = VectorReplayBuffer(
                cfg.buffer_size, self.rollout.lanes, ignore_obs_next=True
            )
        chunks = self._collect(cfg.envs * 4, explore=self._explore)
        start = time.perf_counter()
        for chunk in chunks:
            add(self.buffer, chunk, self.spec.network.store_width, store_next=False)
        if len(self.buffer) >= cfg.batch_size:
            steps = sum(len(c.act) for c in chunks) * cfg.dqn_updates
            for _ in range(max(1, round(steps))):
                stats = algorithm.update(self.buffer, sample_size=cfg.batch_size)
                self.state.update_step += 1
            self._log_update(stats)
        self.timing["update"] += time.perf_counter() - start

    def _explore(self, act: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Epsilon-greedy over each row's legal positions."""
        counts = (legal >= 0).sum(axis=1)
        random_rows = self.rng.random(len(act)) < self.cfg.eps_train
        return np.where(random_rows, self.rng.integers(counts), act)

    # ------------------------------------------------------------ logging and saving

    def _log_collection(self, episodes: Episodes, rate: float) -> None:
        step = self.state.env_step
        self.writer.add_scalar("speed/collect_steps_per_s", rate, step)
        if episodes.returns:
            self.writer.add_scalar("train/return", float(np.mean(episodes.returns)), step)
            self.writer.add_scalar("train/win_rate", float(np.mean(episodes.wins)), step)
        if self.spec.env.tables:  # by the table's entry (self-play's counts every seat)
            tables, wins = np.array(episodes.tables, int), np.array(episodes.wins)
            for name in dict.fromkeys(self.cfg.opponents):
                at = np.isin(tables, [i for i, o in enumerate(self.cfg.opponents) if o == name])
                if at.any():
                    self.writer.add_scalar(f"train/win_rate/{name}", float(wins[at].mean()), step)

    def _log_update(self, stats: Any) -> None:
        for name, value in vars(stats).items():
            mean = getattr(value, "mean", value)
            if "loss" in name and isinstance(mean, int | float):
                self.writer.add_scalar(f"update/{name}", mean, self.state.env_step)
        self.writer.add_scalar("info/update_step", self.state.update_step, self.state.env_step)
        for schedule in self.algorithm.lr_schedulers:  # the next update's rate
            self.writer.add_scalar("update/lr", schedule.get_last_lr()[0], self.state.env_step)

    def _snapshot(self) -> dict[str, Any]:
        """A frozen copy of the learner's actor now, for the self-play pool."""
        net = acting_net(self.algorithm)
        weights = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
        results = {"wins": 0.0, "games": 0.0} if self.pfsp else {}  # training.pfsp
        return {"epoch": self.state.epoch, "weights": weights, **results}

    def _log_pool(self) -> None:
        """Each snapshot's results so far and its draw chance next epoch (TensorBoard)."""
        snapshots, step = self.state.snapshots, self.state.env_step
        players = self.spec.env.rules.players
        chances = np.array(pfsp.draw_weights(snapshots, players))
        for s, chance in zip(snapshots, chances / chances.sum(), strict=True):
            share = pfsp.learner_share(s["wins"], s["games"], players)
            self.writer.add_scalar(f"pool/learner_share/epoch{s['epoch']}", share, step)
            self.writer.add_scalar(f"pool/chance/epoch{s['epoch']}", chance, step)

    def _after_epoch(self) -> None:
        """Evaluate, log, snapshot, checkpoint and plot after one epoch."""
        cfg, state, net = self.cfg, self.state, acting_net(self.algorithm)
        rows = evaluate_policy(self.spec, net, state.env_step)
        state.history = [*state.history, *rows]
        score = epoch_scores(rows, selection_key(cfg))[state.env_step]
        for r in rows:
            for figure in ("win_share", "mean_score"):
                self.writer.add_scalar(f"eval/{r['opponent']}/{figure}", r[figure], state.env_step)
        self.writer.add_scalar("info/epoch", state.epoch, state.env_step)
        if self.pfsp:
            state.snapshots = pfsp.credit(state.snapshots, *self.results)
            self._log_pool()
        if SELF in cfg.opponents and state.epoch % cfg.snapshot_every == 0:
            kept = PFSP_KEPT if self.pfsp else KEPT
            state.snapshots = [*state.snapshots, self._snapshot()][-kept:]
        data = {"config": cfg.to_dict(), "state": self.algorithm.state_dict(), **asdict(state)}
        checkpoint.save(self.run_dir / "latest.pt", data)
        if score > self.best:
            self.best = score
            checkpoint.save(self.run_dir / "best.pt", data)
        history = json.dumps(state.history, indent=1).encode()
        write_whole(self.run_dir / "evaluations.json", history)
        curve = io.BytesIO()
        plot_curve(state.history, curve)
        write_whole(self.run_dir / "curve.png", curve.getvalue())
        summary = ", ".join(f"{r['opponent']} {r['win_share']:.3f}" for r in rows)
        mean_score = epoch_scores(rows)[state.env_step]
        line = f"[step {state.env_step:,}] win share vs {summary}; mean score {mean_score:+.2f}"
        print(line, flush=True)
