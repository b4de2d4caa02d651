"""What a training run depends on: a frozen :class:`Config`, filled from the command line.

Every field is a ``python -m training.train`` flag (``--hidden 512 256``, ``--no-action-rest``);
sizes that follow from the settings (observation size, number of actions) are derived
where they are needed, never stored here.

>>> cfg = Config.from_args(["--steps", "1000", "--opponents", "random", "self"])
>>> cfg.steps, cfg.opponents, cfg.algo
(1000, ('random', 'self'), 'ppo')
>>> Config(opponents=("self-all", "random")).check()
Traceback (most recent call last):
...
ValueError: --opponents self-all puts the learner in every seat; it takes no other opponents
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, fields
from typing import Any

import observers
from big2.evaluation.backends import BACKENDS
from big2.players.specs import BASELINES, load_agent
from big2.rules import get as get_rules
from envs import codecs

SELF, SELF_ALL = "self", "self-all"
DEVICES = ("auto", "cpu", "cuda")
# what a resumed run may change: how long and where it runs, never what it learns
RESUME_CHANGES = ("steps", "max_minutes", "device", "threads", "backend", "ray_address")
STUDY_ONLY = ("upper_bound",)  # fields only training.ablation sets: not command-line flags


@dataclass(frozen=True)
class Config:
    """Everything a run depends on (saved as ``config.json`` and in every checkpoint)."""

    algo: str = "ppo"
    observer: str = "card_counting"
    actions: str = "catalog"
    rules: str = "standard"
    # agent specs (random, greedy, heuristic, a checkpoint...), "self" (frozen snapshots of
    # the learner, one drawn for each opponent seat of each game) or "self-all" (the
    # learner in all four seats, every seat's decisions trained, each seat credited with
    # its own final score)
    opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    steps: int = 50_000  # learner decisions (transitions) to train on
    seed: int = 0
    envs: int = 64  # games stepped together
    run_dir: str = "runs/default"
    reward: str = "score_normalized"
    # the critic's observation: "oracle" (every hand: a centralised critic, used in training
    # only; the actor still sees its seat's view) or "" for the actor's own observation
    critic_observer: str = "oracle"
    hidden: tuple[int, ...] = (256, 128)
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
    dqn_updates: float = 0.0625  # DQN gradient steps per collected transition
    eval_opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    eval_deals: int = 100
    eval_seed: int = 12345
    snapshot_every: int = 1
    max_minutes: float = 0.0  # wall-clock budget; 0 = none (stops after the epoch that ends it)
    # start from this checkpoint's networks (fine-tuning; "trained" is the shipped agent);
    # "" starts from scratch. Its config must match in everything that shapes the networks.
    init: str = ""
    device: str = "auto"  # auto: cuda when available, else cpu
    threads: int = 2  # torch threads for the networks (the env steps on one core)
    # the games in this many shards (training.shards); the backend runs them: "local"
    # (in this process) or "ray" (an actor per shard, on the cluster at ray_address or
    # a local Ray instance). Shards change what is collected; the backend does not.
    shards: int = 1
    backend: str = "local"
    ray_address: str = ""
    # the actor may see every hand (a perfect-information observer): a cheating upper
    # bound that only an ablation study sets (not a flag of training.train)
    upper_bound: bool = False

    def check(self) -> None:
        """Raise ValueError for settings that cannot work (before anything is written)."""
        if self.algo not in ("ppo", "dqn"):
            raise ValueError(f"algo must be 'ppo' or 'dqn', got {self.algo!r}")
        for name in ("steps", "envs", "epoch_steps", "collect_steps", "batch_size", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if not 1 <= self.shards <= self.envs:
            raise ValueError(f"shards must be between 1 and envs ({self.envs}), got {self.shards}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.ray_address and self.backend != "ray":
            raise ValueError("--ray-address needs --backend ray")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {DEVICES}, got {self.device!r}")
        get_rules(self.rules)
        codecs.make(self.actions, get_rules(self.rules))
        self._check_opponents()
        if self.plan_features and self.actions != "catalog":
            raise ValueError(f"--plan-features needs --actions catalog, not {self.actions!r}")
        cheats = observers.make(self.observer, self.rules).perfect_information
        if cheats and not self.upper_bound:
            raise ValueError(
                f"observer {self.observer!r} sees every hand; the actor must play from its "
                f"seat's view (use it as --critic-observer instead; an ablation study may "
                f"run it as a labelled upper bound)"
            )
        if self.critic_observer:
            observers.make(self.critic_observer, self.rules)

    def _check_opponents(self) -> None:
        if SELF_ALL in self.opponents and len(self.opponents) > 1:
            raise ValueError(
                "--opponents self-all puts the learner in every seat; it takes no other opponents"
            )
        for listed, flag in ((self.opponents, "opponents"), (self.eval_opponents, "eval")):
            if not listed:
                raise ValueError(f"--{flag} needs at least one agent")
            for spec in listed:
                if spec in (SELF, SELF_ALL) and flag == "opponents":
                    continue
                try:
                    load_agent(spec, get_rules(self.rules))
                except ValueError as e:
                    raise ValueError(
                        f"unknown opponents [{spec!r}] ({e}); expected some of "
                        f"{[*BASELINES, SELF, SELF_ALL]} or agent specs"
                    ) from None

    @property
    def all_seats(self) -> bool:
        """Whether the learner plays all four seats (``--opponents self-all``)."""
        return self.opponents == (SELF_ALL,)

    def to_dict(self) -> dict[str, Any]:
        """The config as JSON-ready data (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """A config from :meth:`to_dict` data; keys of older versions are ignored."""
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known
        }
        return cls(**values)

    @classmethod
    def from_args(cls, argv: list[str] | None = None) -> Config:
        """A config from command-line flags only (no --resume handling)."""
        given, _, _ = parse_args(argv)
        return cls.from_dict(given)


def parse_args(argv: list[str] | None = None) -> tuple[dict[str, Any], str | None, bool]:
    """The config fields given on the command line, the run to resume, and --overwrite."""
    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__)
    for f in fields(Config):
        if f.name in STUDY_ONLY:
            continue
        value, flag = f.default, "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None)
        elif isinstance(value, tuple):
            kind = type(value[0]) if value else str
            parser.add_argument(flag, nargs="+", type=kind, default=None)
        else:
            parser.add_argument(flag, type=type(value), default=None)
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue from RUN_DIR/latest.pt")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace whatever the run directory holds"
    )
    args = vars(parser.parse_args(argv))
    resume, overwrite = args.pop("resume"), args.pop("overwrite")
    given = {k: v for k, v in args.items() if v is not None}
    changed = set(given) - set(RESUME_CHANGES)
    if resume and changed:
        flags = ", ".join("--" + k.replace("_", "-") for k in sorted(changed))
        allowed = ", ".join("--" + k.replace("_", "-") for k in RESUME_CHANGES)
        parser.error(f"a resumed run keeps its config; only {allowed} apply ({flags})")
    return given, resume, overwrite
