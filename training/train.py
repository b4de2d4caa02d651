"""Train a Big Two agent with Tianshou: ``python -m training.train [options]``.

Masked PPO or masked DQN on :class:`training.env.Big2SingleAgentEnv` (one learner
seat, opponents moving inside the env), with Tianshou's ``Collector``,
``DummyVectorEnv`` and trainers. Every run writes to its run directory: ``config.json``,
TensorBoard logs, ``latest.pt`` and ``best.pt`` (the best evaluation: mean score, or win
share for the ``win`` reward), ``evaluations.json`` (arena results
against fixed opponents on fixed duplicate deals after every epoch) and ``curve.png``.

Randomness: Tianshou draws from torch's and numpy's global generators, so training runs
inside :func:`scoped_seed`, which seeds them from the config and restores them after.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN
from tianshou.algorithm.modelfree.ppo import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams, OnPolicyTrainerParams
from tianshou.utils import TensorboardLogger
from tianshou.utils.torch_utils import policy_within_training_step
from torch.utils.tensorboard import SummaryWriter

import observers
from big2.evaluation import evaluate as arena
from training import checkpoint
from training.env import Big2SingleAgentEnv, OpponentPool
from training.features import plan_features
from training.nets import (
    Critic,
    LegalCategorical,
    MaskedActor,
    MaskedQPolicy,
    NumpyLogits,
    QNet,
    action_features,
    hand_offset,
)
from training.plot import plot_curve


@dataclass
class Config:
    """Everything a run depends on (saved as ``config.json``)."""

    algo: str = "ppo"
    observer: str = "card_counting"
    actions: str = "catalog"
    rules: str = "standard"
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    steps: int = 50_000  # the make train default
    seed: int = 0
    envs: int = 8
    run_dir: str = "runs/default"
    reward: str = "score_normalized"
    # the critic's observation: "oracle" (every hand: a centralised critic, used in training
    # only; the actor still sees its seat's view) or "" for the actor's own observation
    critic_observer: str = "oracle"
    hidden: list[int] = field(default_factory=lambda: [512, 256])
    action_head: str = "dot"
    action_rest: bool = True  # score actions with features of what they leave in the hand
    # score actions with the heuristic planner's view of them too (training.features)
    plan_features: bool = False
    lr: float = 3e-4
    gamma: float = 0.99
    epoch_steps: int = 25_000
    collect_steps: int = 2048
    batch_size: int = 256
    ppo_repeat: int = 4
    ent_coef: float = 0.01
    buffer_size: int = 50_000
    eps_train: float = 0.1
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    eval_deals: int = 100
    eval_seed: int = 12345
    snapshot_every: int = 1
    max_minutes: float = 0.0  # wall-clock budget; 0 = none (stops after the epoch that ends it)
    # start from this checkpoint's networks (fine-tuning; "trained" is the shipped agent);
    # "" starts from scratch. Its config must match in everything that shapes the networks.
    init: str = ""
    obs_size: int = 0  # filled in from the observer
    n_actions: int = 0  # filled in from the codec

    def check(self) -> None:
        """Raise ValueError for settings that cannot work."""
        if self.algo not in ("ppo", "dqn"):
            raise ValueError(f"algo must be 'ppo' or 'dqn', got {self.algo!r}")
        if self.steps < 1 or self.envs < 1 or self.epoch_steps < 1:
            raise ValueError("steps, envs and epoch_steps must be positive")
        OpponentPool(self.opponents, rules=self.rules)
        OpponentPool(self.eval_opponents, rules=self.rules)
        if self.plan_features and self.actions != "catalog":
            raise ValueError(f"--plan-features needs --actions catalog, not {self.actions!r}")
        if self.plan_features and self.algo == "dqn":
            raise ValueError(
                "--plan-features stores 4 x 17,859 bytes per transition: a DQN replay buffer "
                "of 50,000 transitions would hold 3.6 GB of them; use it with --algo ppo"
            )
        if observers.make(self.observer, self.rules).perfect_information:
            raise ValueError(
                f"observer {self.observer!r} sees every hand; the actor must play from its "
                f"seat's view (use it as --critic-observer instead)"
            )


# ------------------------------------------------------------------ building blocks


def make_env(cfg: Config, pool: OpponentPool, seed: int) -> Big2SingleAgentEnv:
    critic = cfg.critic_observer if cfg.algo == "ppo" else ""
    return Big2SingleAgentEnv(
        pool, cfg.rules, cfg.observer, cfg.actions, cfg.reward, seed, critic or None,
        plan=cfg.plan_features,
    )  # fmt: skip


def make_algorithm(cfg: Config, env: Big2SingleAgentEnv) -> PPO | DQN:
    """Masked PPO (actor + critic) or masked DQN, sized from the env."""
    hidden = tuple(cfg.hidden)
    features = action_features(env.codec)
    hand_at = hand_offset(cfg.action_rest, cfg.observer, cfg.rules)
    optim = AdamOptimizerFactory(lr=cfg.lr)
    if cfg.algo == "ppo":
        actor = MaskedActor(
            cfg.obs_size, cfg.n_actions, hidden, features, cfg.action_head, hand_at,
            cfg.plan_features,
        )  # fmt: skip
        policy = DiscreteActorPolicy(
            actor=actor,  # type: ignore[arg-type]  # any module returning (logits, state)
            dist_fn=LegalCategorical,
            action_space=env.action_space,
        )
        critic = (
            Critic(env.critic_observer.size, hidden, key="critic")
            if env.critic_observer is not None
            else Critic(cfg.obs_size, hidden)
        )
        return PPO(
            policy=policy,
            critic=critic,
            optim=optim,
            gamma=cfg.gamma,
            ent_coef=cfg.ent_coef,
            max_grad_norm=0.5,
        )
    q_policy = MaskedQPolicy(
        model=QNet(cfg.obs_size, cfg.n_actions, hidden, features, cfg.action_head, hand_at),
        action_space=env.action_space,
        eps_training=cfg.eps_train,
        eps_inference=0.0,
    )
    return DQN(policy=q_policy, optim=optim, gamma=cfg.gamma, target_update_freq=500)


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
    saved = data["config"]
    differ = [
        f"{k}: {checkpoint.setting(saved, k)!r} there, {getattr(cfg, k)!r} here"
        for k in ARCHITECTURE
        if checkpoint.setting(saved, k) != getattr(cfg, k)
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


def acting_net(algorithm: PPO | DQN) -> MaskedActor:
    """The network that picks actions: PPO's actor or DQN's Q-network."""
    net = algorithm.policy.actor if isinstance(algorithm, PPO) else algorithm.policy.model
    assert isinstance(net, MaskedActor)
    return net


class FastBuffer(VectorReplayBuffer):
    """A replay buffer without the trainer's full NaN scan after every collection.

    Observations are 0/1 features and masks, and rewards finite scores, so the scan
    (a copy of the whole buffer per step) finds nothing and only costs time.
    """

    def hasnull(self) -> bool:
        return False


class ResumeLogger(TensorboardLogger):
    """Tianshou's TensorBoard logger that restores step counters from a checkpoint."""

    def __init__(self, writer: SummaryWriter, counters: tuple[int, int, int]) -> None:
        super().__init__(writer)
        self.counters = counters

    def restore_data(self) -> tuple[int, int, int]:
        return self.counters


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
    from big2.rules import get as get_rules
    from envs.policy_agent import PolicyAgent

    agent = PolicyAgent(
        NumpyLogits(net),
        cfg.observer,
        cfg.actions,
        get_rules(cfg.rules),
        name="learner",
        features=plan_features if cfg.plan_features else None,
    )
    rows = []
    for name in cfg.eval_opponents:
        result = arena(
            [agent, name, name, name], cfg.eval_deals, cfg.eval_seed, get_rules(cfg.rules)
        )
        a = result.agents[0]
        rows.append({"env_step": step, "opponent": name, "win_share": a.win_share,
                     "win_share_ci": a.win_share_ci, "mean_score": a.mean_score,
                     "mean_score_ci": a.mean_score_ci, "deals": result.deals})  # fmt: skip
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


def train(cfg: Config, resume: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run training as configured (continuing ``resume``, a loaded checkpoint); the last state."""
    cfg.check()
    run_dir = Path(cfg.run_dir)
    probe = make_env(cfg, OpponentPool(cfg.opponents, rules=cfg.rules), 0)
    cfg.obs_size, cfg.n_actions = probe.observer.size, probe.codec.n
    with scoped_seed(cfg.seed + (resume["epoch"] if resume else 0)):
        algorithm = make_algorithm(cfg, probe)
        if resume is not None:
            algorithm.load_state_dict(resume["state"])
        elif cfg.init:
            load_init(cfg, algorithm)  # a bad checkpoint fails here, before any file is written
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=2), encoding="utf-8")
        return _run(cfg, run_dir, algorithm, resume)


def _run(
    cfg: Config, run_dir: Path, algorithm: PPO | DQN, resume: dict[str, Any] | None
) -> dict[str, Any]:
    pool = OpponentPool(cfg.opponents, rules=cfg.rules)
    state: dict[str, Any] = {
        "epoch": 0,
        "env_step": 0,
        "update_step": 0,
        "history": [],
        "snapshots": [],
    }
    if resume is not None:
        state = {k: resume[k] for k in state}
        for weights in state["snapshots"]:
            pool.add_snapshot(_frozen(acting_net(algorithm), weights))
    offset = state["epoch"] * 7919  # fresh env seeds after a resume
    envs = DummyVectorEnv(
        [_env_factory(cfg, pool, cfg.seed * 1000 + offset + i) for i in range(cfg.envs)]
    )
    params = _trainer_params(cfg, algorithm, envs, run_dir, state, resume is not None)
    trainer = algorithm.create_trainer(params)
    trainer.reset()
    if cfg.algo == "dqn" and resume is None:
        # warm the replay buffer up exploring (eps_training), as in training steps
        with policy_within_training_step(algorithm.policy):
            trainer.params.training_collector.collect(n_step=cfg.batch_size * cfg.envs)
    best = max(epoch_scores(state["history"], selection_key(cfg)).values(), default=-np.inf)
    start_step, started = state["env_step"], time.monotonic()
    out_of_time = False
    while state["env_step"] < cfg.steps and not out_of_time:
        epoch_stats = trainer.execute_epoch()
        state["epoch"] = epoch_stats.epoch
        state["update_step"] = epoch_stats.info_stat.update_step
        state["env_step"] = start_step + epoch_stats.info_stat.train_step
        best = _after_epoch(cfg, run_dir, algorithm, pool, state, best, trainer)
        out_of_time = 0 < cfg.max_minutes * 60 <= time.monotonic() - started
    return {**state, "config": asdict(cfg)}


def _env_factory(cfg: Config, pool: OpponentPool, seed: int) -> Any:
    return lambda: make_env(cfg, pool, seed)


def _trainer_params(
    cfg: Config,
    algorithm: PPO | DQN,
    envs: DummyVectorEnv,
    run_dir: Path,
    state: dict[str, Any],
    resuming: bool,
) -> OnPolicyTrainerParams | OffPolicyTrainerParams:
    logger = ResumeLogger(
        SummaryWriter(str(run_dir / "tb")),
        (state["epoch"], state["env_step"], state["update_step"]),
    )
    logger.update_interval = 1  # PPO updates once per collection: log every update's losses
    common: dict[str, Any] = {
        "max_epochs": 10**6,  # the loop in _run stops at cfg.steps
        "epoch_num_steps": cfg.epoch_steps,
        "batch_size": cfg.batch_size,
        "logger": logger,
        "resume_from_log": resuming,
        "show_progress": True,
        "verbose": False,
        "test_collector": None,
    }
    if cfg.algo == "ppo":
        buffer = FastBuffer(cfg.collect_steps, cfg.envs)
        collector: Collector = Collector(algorithm, envs, buffer)
        return OnPolicyTrainerParams(
            training_collector=collector,
            collection_step_num_env_steps=cfg.collect_steps,
            update_step_num_repetitions=cfg.ppo_repeat,
            **common,
        )
    buffer = FastBuffer(cfg.buffer_size, cfg.envs, ignore_obs_next=True, random_seed=cfg.seed)
    collector = Collector[Any](algorithm, envs, buffer, exploration_noise=True)
    return OffPolicyTrainerParams(
        training_collector=collector,
        collection_step_num_env_steps=cfg.envs * 4,
        update_step_num_gradient_steps_per_sample=0.25,
        **common,
    )


def _frozen(net: MaskedActor, weights: dict[str, Any]) -> Any:
    clone = copy.deepcopy(net)
    clone.load_state_dict(weights)
    return NumpyLogits(clone.eval())


def _after_epoch(
    cfg: Config,
    run_dir: Path,
    algorithm: PPO | DQN,
    pool: OpponentPool,
    state: dict[str, Any],
    best: float,
    trainer: Any,
) -> float:
    """Evaluate, log, snapshot, checkpoint and plot after one epoch; the new best criterion
    (:func:`selection_key`)."""
    net = acting_net(algorithm)
    rows = evaluate_policy(cfg, net, state["env_step"])
    state["history"] = [*state["history"], *rows]
    score = epoch_scores(rows, selection_key(cfg))[state["env_step"]]
    writer = trainer.params.logger.writer
    for r in rows:
        writer.add_scalar(f"eval/{r['opponent']}/win_share", r["win_share"], state["env_step"])
        writer.add_scalar(f"eval/{r['opponent']}/mean_score", r["mean_score"], state["env_step"])
    if "self" in cfg.opponents and state["epoch"] % cfg.snapshot_every == 0:
        weights = copy.deepcopy(net.state_dict())
        state["snapshots"] = [*state["snapshots"], weights][-pool.max_snapshots :]
        pool.add_snapshot(_frozen(net, weights))
    data = {"config": asdict(cfg), "state": algorithm.state_dict(), **state}
    checkpoint.save(run_dir / "latest.pt", data)
    if score > best:
        best = score
        checkpoint.save(run_dir / "best.pt", data)
    (run_dir / "evaluations.json").write_text(json.dumps(state["history"], indent=1))
    plot_curve(state["history"], run_dir / "curve.png")
    summary = ", ".join(f"{r['opponent']} {r['win_share']:.3f}" for r in rows)
    mean_score = epoch_scores(rows)[state["env_step"]]
    print(
        f"[step {state['env_step']:,}] win share vs {summary}; mean score {mean_score:+.2f}",
        flush=True,
    )
    return best


# ------------------------------------------------------------------ command line


def parse_args(argv: list[str] | None = None) -> tuple[dict[str, Any], str | None]:
    """The config fields given on the command line, and the run directory to resume."""
    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__)
    defaults = Config()
    for f in fields(Config):
        if f.name in ("obs_size", "n_actions"):
            continue
        value = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None)
        elif isinstance(value, list):
            parser.add_argument(flag, nargs="+", type=type(value[0]), default=None)
        else:
            parser.add_argument(flag, type=type(value), default=None)
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue from RUN_DIR/latest.pt")
    args = vars(parser.parse_args(argv))
    resume = args.pop("resume")
    given = {k: v for k, v in args.items() if v is not None}
    changed = set(given) - {"steps", "max_minutes"}
    if resume and changed:
        flags = ", ".join("--" + k.replace("_", "-") for k in sorted(changed))
        parser.error(f"a resumed run keeps its config; only --steps, --max-minutes apply ({flags})")
    return given, resume


def main(argv: list[str] | None = None) -> None:
    given, resume_dir = parse_args(argv)
    resume = None
    if resume_dir:
        try:
            resume = checkpoint.load(Path(resume_dir) / "latest.pt")
        except checkpoint.CheckpointError as e:
            raise SystemExit(f"cannot resume: {e}") from None
        if resume.get("exported"):
            raise SystemExit(f"cannot resume: {resume_dir}/latest.pt is an exported agent")
        saved = {k: v for k, v in resume["config"].items() if k not in ("obs_size", "n_actions")}
        given = {**saved, **given, "run_dir": resume_dir}  # only --steps/--max-minutes differ
    try:
        cfg = Config(**given)
    except TypeError as e:
        raise SystemExit(f"training: bad configuration: {e}") from None
    torch.set_num_threads(1)
    start = time.time()
    try:
        final = train(cfg, resume)
    except ValueError as e:
        raise SystemExit(f"training: {e}") from None
    print(f"done in {time.time() - start:.0f} s: {final['env_step']:,} env steps")
    run = cfg.run_dir
    print(f"checkpoints: {run}/latest.pt, {run}/best.pt; learning curve: {run}/curve.png")


if __name__ == "__main__":
    main()
