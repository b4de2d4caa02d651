"""Train a Big Two agent with Tianshou: ``python -m training.train [options]``.

Masked PPO (Tianshou's ``PPO``) or masked DQN (Tianshou's ``DQN``) on
:class:`envs.vector.Big2VectorEnv`: ``--envs`` games stepped together, experience
collected by :mod:`training.rollout` into Tianshou buffers, legal actions only end to
end. The learner plays one seat against ``--opponents`` (agent specs and ``self``:
frozen snapshots of itself), or every seat (``--opponents self-all``). Every run writes
to its own directory: ``config.json``, TensorBoard logs (``tb/``), ``latest.pt`` and
``best.pt`` (the best evaluation: mean score, or win share for the ``win`` reward),
``evaluations.json`` (arena results against fixed opponents on fixed duplicate deals
after every epoch) and ``curve.png``. A directory that already holds a run is refused
unless ``--resume`` continues it or ``--overwrite`` replaces it.

Randomness: Tianshou draws from torch's and numpy's global generators, so training runs
inside :func:`scoped_seed`, which seeds them from the config and restores them after;
the env and the snapshots have their own generators, seeded from the config.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN
from tianshou.algorithm.modelfree.ppo import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import VectorReplayBuffer
from tianshou.utils.torch_utils import policy_within_training_step
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from big2.evaluation import evaluate as arena
from big2.rules import get as get_rules
from envs.policy_agent import PolicyAgent
from envs.vector import Big2VectorEnv
from training import checkpoint
from training.config import SELF, Config, parse_args
from training.features import plan_features
from training.nets import (
    Critic,
    MaskedActor,
    MaskedQPolicy,
    NumpyLogits,
    QNet,
    legal_distribution,
    make_actor,
    sizes,
    store_width,
)
from training.plot import plot_curve
from training.rollout import Chunk, Episodes, Rollout, SnapshotPolicy, add, to_buffer


@dataclass
class RunState:
    """What a checkpoint resumes besides the networks: counters, history, snapshots."""

    epoch: int = 0
    env_step: int = 0
    update_step: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)  # actor state dicts

    @classmethod
    def from_checkpoint(cls, data: dict[str, Any]) -> RunState:
        return cls(*(data[k] for k in ("epoch", "env_step", "update_step", "history",
                                       "snapshots")))  # fmt: skip


# ------------------------------------------------------------------ building blocks


def device_of(cfg: Config) -> torch.device:
    """The torch device of the run (``auto``: cuda when available)."""
    if cfg.device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(cfg.device)


def make_env(cfg: Config, seed: int, pool: list[SnapshotPolicy] | None = None) -> Big2VectorEnv:
    """The vector env of a run; ``pool`` holds the ``self`` snapshots (shared and growing;
    while it is empty, or without one, ``self`` plays as ``random``)."""
    mix: list[Any] | None = None
    if not cfg.all_seats:
        self_play = pool if pool is not None else "random"
        mix = [self_play if spec == SELF else spec for spec in cfg.opponents]
    critic = cfg.critic_observer if cfg.algo == "ppo" and cfg.critic_observer else None
    return Big2VectorEnv(
        cfg.envs, cfg.observer, cfg.actions, cfg.rules, opponents=mix, reward=cfg.reward,
        seed=seed, critic_observer=critic, legal_features=plan_features if cfg.plan_features
        else None,
    )  # fmt: skip


def make_algorithm(cfg: Config) -> PPO | DQN:
    """Masked PPO (actor + critic) or masked DQN, on the run's device."""
    import gymnasium as gym

    positions = gym.spaces.Discrete(store_width(cfg))  # a policy acts by legal position
    optim = AdamOptimizerFactory(lr=cfg.lr)
    if cfg.algo == "ppo":
        policy = DiscreteActorPolicy(
            actor=make_actor(cfg),  # type: ignore[arg-type]  # returns (logits, state)
            dist_fn=legal_distribution,
            action_space=positions,
        )
        critic_key = "critic" if cfg.critic_observer else "obs"
        critic = Critic(sizes(cfg)[2], cfg.hidden, key=critic_key)
        algorithm: PPO | DQN = PPO(policy=policy, critic=critic, optim=optim, gamma=cfg.gamma,
                                   ent_coef=cfg.ent_coef, max_grad_norm=0.5)  # fmt: skip
    else:
        q_policy = MaskedQPolicy(model=make_actor(cfg, QNet), action_space=positions,
                                 eps_training=cfg.eps_train, eps_inference=0.0)  # fmt: skip
        algorithm = DQN(policy=q_policy, optim=optim, gamma=cfg.gamma, target_update_freq=500)
    return algorithm.to(device_of(cfg))


def acting_net(algorithm: PPO | DQN) -> MaskedActor:
    """The network that picks actions: PPO's actor or DQN's Q-network."""
    net = algorithm.policy.actor if isinstance(algorithm, PPO) else algorithm.policy.model
    assert isinstance(net, MaskedActor)
    return net


# what a checkpoint given to --init must share with the run
ARCHITECTURE = ("algo", "observer", "actions", "rules", "hidden", "action_head", "action_rest",
                "plan_features")  # fmt: skip


def load_init(cfg: Config, algorithm: PPO | DQN) -> None:
    """Load the networks of checkpoint ``cfg.init`` into ``algorithm`` (not its optimizer).

    The acting network always; PPO's critic too when the checkpoint has one of the same
    shape (an exported agent has none: the critic starts fresh); DQN's target network
    becomes a copy of the loaded Q-network. A checkpoint built differently raises
    ``ValueError`` naming the settings that differ, and ``algorithm`` is left unchanged.
    """
    try:
        data = checkpoint.load(cfg.init)
    except checkpoint.CheckpointError as e:
        raise ValueError(f"--init: {e}") from None
    saved, mine = data["config"], cfg.to_dict()
    differ = [
        f"{k}: {checkpoint.setting(saved, k)!r} there, {mine[k]!r} here"
        for k in ARCHITECTURE
        if checkpoint.setting(saved, k) != mine[k]
    ]
    if differ:
        raise ValueError(f"--init {cfg.init} was trained with other networks ({'; '.join(differ)})")
    state = algorithm.state_dict()
    acting = "policy.actor." if cfg.algo == "ppo" else "policy.model."
    loaded = {k: v for k, v in data["state"].items() if k.startswith(acting)}
    critic = {k: v for k, v in data["state"].items() if k.startswith("critic.")}
    if critic and all(k in state and state[k].shape == v.shape for k, v in critic.items()):
        loaded.update(critic)
    if cfg.algo == "dqn":
        target = "model_old.module."
        loaded.update({target + k[len(acting) :]: v for k, v in loaded.items()})
    mismatched = [k for k, v in loaded.items() if k not in state or state[k].shape != v.shape]
    if mismatched or not any(k.startswith(acting) for k in loaded):
        raise ValueError(f"--init {cfg.init}: its weights do not fit this run's networks")
    algorithm.load_state_dict({**state, **loaded})


@contextmanager
def scoped_seed(seed: int) -> Iterator[None]:
    """Seed torch, numpy and random for the block; restore their states afterwards."""
    np_state, py_state = np.random.get_state(), random.getstate()
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        np.random.seed(seed % 2**32)
        random.seed(seed)
        try:
            yield
        finally:
            np.random.set_state(np_state)
            random.setstate(py_state)


# ------------------------------------------------------------------ evaluation


def evaluate_policy(cfg: Config, net: MaskedActor, step: int) -> list[dict[str, Any]]:
    """Arena results of the greedy policy against three copies of each eval opponent."""
    rules = get_rules(cfg.rules)
    agent = PolicyAgent(NumpyLogits(net), cfg.observer, cfg.actions, rules, name="learner",
                        features=plan_features if cfg.plan_features else None)  # fmt: skip
    rows = []
    for name in cfg.eval_opponents:
        a = arena([agent, name, name, name], cfg.eval_deals, cfg.eval_seed, rules).agents[0]
        rows.append({"env_step": step, "opponent": name, "win_share": a.win_share,
                     "win_share_ci": a.win_share_ci, "mean_score": a.mean_score,
                     "mean_score_ci": a.mean_score_ci, "deals": cfg.eval_deals})  # fmt: skip
    return rows


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


# ------------------------------------------------------------------ the run


def train(cfg: Config, resume: dict[str, Any] | None = None, overwrite: bool = False) -> RunState:
    """Run training as configured (continuing ``resume``, a loaded checkpoint); the last state.

    Everything is checked before anything is written: a bad config, an ``--init``
    checkpoint that does not fit, or a run directory that already holds a run (unless
    resuming it, or ``overwrite``) raises ``ValueError`` and leaves the disk as it was.
    """
    cfg.check()
    run_dir = Path(cfg.run_dir)
    if resume is None:
        _check_run_dir(run_dir, overwrite)
    state = RunState() if resume is None else RunState.from_checkpoint(resume)
    with scoped_seed(cfg.seed + state.epoch):
        algorithm = make_algorithm(cfg)
        if resume is not None:
            algorithm.load_state_dict(resume["state"])
        elif cfg.init:
            load_init(cfg, algorithm)  # a bad checkpoint fails here, before any file is written
        if resume is None and overwrite and run_dir.exists():
            shutil.rmtree(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.json").write_text(json.dumps(cfg.to_dict(), indent=2), encoding="utf-8")
        with policy_within_training_step(algorithm.policy):
            Run(cfg, run_dir, algorithm, state).run()
    return state


def _check_run_dir(run_dir: Path, overwrite: bool) -> None:
    if run_dir.exists() and any(run_dir.iterdir()) and not overwrite:
        held = ", ".join(sorted(p.name for p in run_dir.iterdir())[:6])
        raise ValueError(
            f"run directory {run_dir} already holds files ({held}); pass --resume {run_dir} "
            f"to continue that run or --overwrite to replace it"
        )


class Run:
    """One training run's loop: collect, update, and after every epoch evaluate and save."""

    def __init__(self, cfg: Config, run_dir: Path, algorithm: PPO | DQN, state: RunState) -> None:
        self.cfg, self.run_dir, self.algorithm, self.state = cfg, run_dir, algorithm, state
        self.pool: list[SnapshotPolicy] = []
        for weights in state.snapshots:
            self.pool.append(self._snapshot(weights, len(self.pool)))
        seed = cfg.seed * 1000 + state.epoch * 7919  # fresh deals after a resume
        env = make_env(cfg, seed, self.pool)
        self.rollout = Rollout(env, algorithm.policy, seed, cfg.all_seats)
        # a resumed run drops what a crashed continuation logged after its checkpoint
        self.writer = SummaryWriter(str(run_dir / "tb"), purge_step=state.env_step + 1)
        self.best = max(epoch_scores(state.history, selection_key(cfg)).values(), default=-np.inf)
        self.rng = np.random.default_rng([cfg.seed, state.epoch])
        self.buffer: VectorReplayBuffer | None = None  # DQN's replay buffer; PPO's last rollout
        self.timing = {"collect": 0.0, "update": 0.0}  # seconds (benchmarks read them)

    def run(self) -> None:
        cfg, state, started = self.cfg, self.state, time.monotonic()
        while state.env_step < cfg.steps:
            self._epoch()
            if 0 < cfg.max_minutes * 60 <= time.monotonic() - started:
                break
        self.writer.close()

    def _epoch(self) -> None:
        cfg, state = self.cfg, self.state
        target = min(cfg.steps, state.env_step + cfg.epoch_steps)
        bar = tqdm(total=target - state.env_step, desc=f"epoch {state.epoch + 1}", unit="step",
                   leave=False)  # fmt: skip
        while state.env_step < target:
            before = state.env_step
            self._ppo_round() if cfg.algo == "ppo" else self._dqn_round()
            bar.update(state.env_step - before)
        bar.close()
        state.epoch += 1
        self._after_epoch()

    def _collect(self, n: int, explore: Any = None) -> tuple[list[Chunk], Episodes]:
        """At least ``n`` transitions (whole steps of every game)."""
        chunks, episodes, count, start = [], Episodes(), 0, time.perf_counter()
        while count < n:
            new, finished = self.rollout.step(explore)
            chunks += new
            count += sum(len(c.act) for c in new)
            episodes.returns += finished.returns
            episodes.wins += finished.wins
        self.state.env_step += count
        seconds = time.perf_counter() - start
        self.timing["collect"] += seconds
        rate = count / max(seconds, 1e-9)
        self._log_collection(episodes, rate)
        return chunks, episodes

    def _ppo_round(self) -> None:
        chunks, _ = self._collect(self.cfg.collect_steps)
        start = time.perf_counter()
        self.buffer = buffer = to_buffer(chunks, self.rollout.lanes, store_next=True)
        stats = self.algorithm.update(buffer, batch_size=self.cfg.batch_size,  # type: ignore[call-arg]
                                      repeat=self.cfg.ppo_repeat)  # fmt: skip
        seconds = time.perf_counter() - start
        self.timing["update"] += seconds
        self.state.update_step += getattr(stats, "gradient_steps", 0)
        self.writer.add_scalar("speed/update_transitions_per_s", len(buffer) / seconds,
                               self.state.env_step)  # fmt: skip
        self._log_update(stats)

    def _dqn_round(self) -> None:
        cfg = self.cfg
        if self.buffer is None:
            self.buffer = VectorReplayBuffer(cfg.buffer_size, self.rollout.lanes,
                                             ignore_obs_next=True)  # fmt: skip
        chunks, _ = self._collect(cfg.envs * 4, explore=self._explore)
        start = time.perf_counter()
        for chunk in chunks:
            add(self.buffer, chunk, store_width(cfg), store_next=False)
        if len(self.buffer) >= cfg.batch_size:
            steps = sum(len(c.act) for c in chunks) * cfg.dqn_updates
            for _ in range(max(1, round(steps))):
                stats = self.algorithm.update(self.buffer, sample_size=cfg.batch_size)  # type: ignore[call-arg]
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

    def _log_update(self, stats: Any) -> None:
        for name, value in vars(stats).items():
            mean = getattr(value, "mean", value)
            if "loss" in name and isinstance(mean, int | float):
                self.writer.add_scalar(f"update/{name}", mean, self.state.env_step)
        self.writer.add_scalar("info/update_step", self.state.update_step, self.state.env_step)

    def _snapshot(self, weights: dict[str, Any], index: int) -> SnapshotPolicy:
        clone = copy.deepcopy(acting_net(self.algorithm))
        clone.load_state_dict(weights)
        return SnapshotPolicy(clone.eval(), seed=self.cfg.seed * 7919 + index)

    def _after_epoch(self) -> None:
        """Evaluate, log, snapshot, checkpoint and plot after one epoch."""
        cfg, state, net = self.cfg, self.state, acting_net(self.algorithm)
        rows = evaluate_policy(cfg, net, state.env_step)
        state.history = [*state.history, *rows]
        score = epoch_scores(rows, selection_key(cfg))[state.env_step]
        for r in rows:
            self.writer.add_scalar(f"eval/{r['opponent']}/win_share", r["win_share"],
                                   state.env_step)  # fmt: skip
            self.writer.add_scalar(f"eval/{r['opponent']}/mean_score", r["mean_score"],
                                   state.env_step)  # fmt: skip
        self.writer.add_scalar("info/epoch", state.epoch, state.env_step)
        if SELF in cfg.opponents and state.epoch % cfg.snapshot_every == 0:
            weights = copy.deepcopy(net.state_dict())
            state.snapshots = [*state.snapshots, weights][-5:]
            self.pool[:] = [*self.pool, self._snapshot(weights, state.epoch)][-5:]
        data = {"config": cfg.to_dict(), "state": self.algorithm.state_dict(), **asdict(state)}
        checkpoint.save(self.run_dir / "latest.pt", data)
        if score > self.best:
            self.best = score
            checkpoint.save(self.run_dir / "best.pt", data)
        (self.run_dir / "evaluations.json").write_text(json.dumps(state.history, indent=1))
        plot_curve(state.history, self.run_dir / "curve.png")
        summary = ", ".join(f"{r['opponent']} {r['win_share']:.3f}" for r in rows)
        mean_score = epoch_scores(rows)[state.env_step]
        print(f"[step {state.env_step:,}] win share vs {summary}; mean score {mean_score:+.2f}",
              flush=True)  # fmt: skip


# ------------------------------------------------------------------ command line


def main(argv: list[str] | None = None) -> None:
    given, resume_dir, overwrite = parse_args(argv)
    resume = None
    if resume_dir:
        try:
            resume = checkpoint.load(Path(resume_dir) / "latest.pt")
        except checkpoint.CheckpointError as e:
            raise SystemExit(f"cannot resume: {e}") from None
        if resume.get("exported"):
            raise SystemExit(f"cannot resume: {resume_dir}/latest.pt is an exported agent")
        given = {**resume["config"], **given, "run_dir": resume_dir}  # only a few flags differ
    try:
        cfg = Config.from_dict(given)
    except TypeError as e:
        raise SystemExit(f"training: bad configuration: {e}") from None
    threads = torch.get_num_threads()
    torch.set_num_threads(cfg.threads)
    start = time.time()
    try:
        final = train(cfg, resume, overwrite)
    except ValueError as e:
        raise SystemExit(f"training: {e}") from None
    finally:
        torch.set_num_threads(threads)
    print(f"done in {time.time() - start:.0f} s: {final.env_step:,} env steps")
    run = cfg.run_dir
    print(f"checkpoints: {run}/latest.pt, {run}/best.pt; learning curve: {run}/curve.png")


if __name__ == "__main__":
    main()
