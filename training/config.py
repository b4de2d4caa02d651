"""What a training run depends on: a frozen :class:`Config`, filled from the command line.

The defaults are the shipped agent's first stage (recipe ``trained``, stage ``self-play``
in :mod:`training.recipes.book`: its network, inputs, self-play in all four seats, PPO
settings and compiled evaluations on the 200 validation deals, over 8M decisions), so
``python -m training.train`` with no flags trains the way the best known agent began;
``--steps`` or ``--max-minutes`` shorten it. Until 2026-12-02 the defaults were smaller
settings (:data:`FORMER_DEFAULTS`); a saved config that lacks a key was written before
then, and :meth:`Config.from_dict` reads it with the value it ran with.

Every field but ``upper_bound`` (which only an ablation study sets) is a
``python -m training.train`` flag (``--hidden 512 256``, ``--no-action-rest``), listed by
group with its help text and allowed range in ``--help``. Each field is declared once,
with that help and range, and :meth:`Config.check` tests every one before anything is
written, for a new run, ``--resume`` and every cell of a study alike. The names it holds
(observers, codec, rules) are resolved once per run by :mod:`training.spec`, with the
sizes that follow from them (observation size, number of actions), never stored here.

>>> cfg = Config.from_args(["--steps", "1000", "--opponents", "random", "self"])
>>> cfg.steps, cfg.opponents, cfg.algo
(1000, ('random', 'self'), 'ppo')
>>> Config().opponents, Config.from_dict({}).opponents  # a new run's, an old saved one's
(('self-all',), ('random', 'greedy', 'heuristic'))
>>> Config(opponents=("self-all", "random"), opponent_draw="game").tables
True
>>> Config(opponents=("self-all", "random")).check()
Traceback (most recent call last):
...
ValueError: --opponents self-all with other entries draws each game's whole table: give ...
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import torch

import observers
from big2.evaluation.backends import BACKENDS
from big2.players.specs import BASELINES, load_agent
from big2.rules import get as get_rules
from envs import codecs
from envs.opponents import DRAWS
from envs.rewards import REWARDS
from observers import moves
from observers.base import Observer
from observers.moves import MoveFeatures
from training.bodies import ACTION_HEADS, BODIES, sequence_piece

LR_SCHEDULES = ("constant", "linear")
EVAL_ENGINES = ("arena", "compiled")

SELF, SELF_ALL = "self", "self-all"
DEVICES = ("auto", "cpu", "cuda")
# what a resumed run may change: how long and where it runs, never what it learns
RESUME_CHANGES = ("steps", "max_minutes", "device", "threads", "backend", "ray_address")
STUDY_ONLY = ("upper_bound",)  # fields only training.ablation sets: not command-line flags
# fields removed with their experiment (lab/notes.md): the value every run kept had, and
# why a run that set another cannot be read now
REMOVED = {
    "critic_outlook": (
        False,
        "the critic's outlook was an experiment that was not kept; its training hooks were removed "
        "on 2026-12-01 (lab/outlook.py says how to run it at commit 943bc02)",
    ),
}


# The defaults until 2026-12-02, when they became the shipped agent's first stage. Every
# config saved since holds every key, so one that lacks a key here (config.json, a
# checkpoint's, a study cell's) was saved before and ran with this value
FORMER_DEFAULTS: dict[str, Any] = {
    "observer": "card_counting",
    "opponents": ("random", "greedy", "heuristic"),
    "steps": 50_000,
    "reward": "score_normalized",
    "hidden": (256, 128),
    "action_head": "dot",
    "action_context": False,
    "plan_features": False,
    "reply_features": False,
    "epoch_steps": 25_000,
    "collect_steps": 2048,
    "batch_size": 256,
    "ent_coef": 0.01,
    "eval_deals": 100,
    "eval_engine": "arena",
    "threads": 2,
}


@dataclass(frozen=True)
class Bounds:
    """The allowed range of a numeric option (of each element, for a tuple option).

    >>> Bounds(0, 1, low_open=True).text(), Bounds(1).text()
    ('in (0, 1]', 'at least 1')
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False  # the low end itself is excluded

    def holds(self, value: float) -> bool:
        if isinstance(value, float) and not math.isfinite(value):
            return False
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        return above and (self.high is None or value <= self.high)

    def text(self) -> str:
        """The range in words: ``at least 1``, ``above 0``, ``in [0, 1]``."""
        if self.high is None:
            return f"{'above' if self.low_open else 'at least'} {self.low}"
        return f"in {'(' if self.low_open else '['}{self.low}, {self.high}]"


POSITIVE, UNIT = Bounds(1), Bounds(0, 1)
SEED = Bounds(0, 2**63 - 1)
GROUPS = {
    "env": "the games the learner plays",
    "opponents": "who sits in the other seats while training",
    "network": "what the networks see and how they are built",
    "training": "the learning algorithm and its budget",
    "ppo": "PPO only",
    "dqn": "DQN only",
    "evaluation": "the fixed duplicate deals every epoch is measured on",
    "run": "where and how the run executes",
}


def option(
    default: Any, group: str, help: str, bounds: Bounds | None = None, choices: tuple[str, ...] = ()
) -> Any:
    """A :class:`Config` field: its default, flag group, help text, and allowed values."""
    meta = {"group": group, "help": help, "bounds": bounds, "choices": choices}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Config:
    """Everything a run depends on (saved as ``config.json`` and in every checkpoint).

    Each field is declared once, with its flag group, help text and allowed values;
    :meth:`check` tests them all, plus the rules that tie fields together.
    """

    algo: str = option("ppo", "training", "learning algorithm", choices=("ppo", "dqn"))
    observer: str = option("simple", "env", "what the actor sees (observers.REGISTRY)")
    actions: str = option("catalog", "env", "action codec: catalog or hand (envs.codecs)")
    rules: str = option("standard", "env", "a rules preset or FILE.toml (docs/rules.md)")
    opponents: tuple[str, ...] = option(
        (SELF_ALL,),
        "opponents",
        "agent specs (random, greedy, heuristic, a checkpoint...), 'self' (frozen snapshots of the "
        "learner, one drawn for each opponent seat of each game) or 'self-all' (the learner in all "
        "four seats, each credited with its own final score); self-all among other entries, with "
        "--opponent-draw game, draws each game's table from the list (an entry listed twice, "
        "twice as often), and 'self' there draws snapshots by how often they beat the learner",
    )
    opponent_draw: str = option(
        "seat",
        "opponents",
        "what one draw from --opponents seats in a game: one opponent (seat: tables mix kinds) or "
        "all three (game: three of a kind, as the evaluations' tables)",
        choices=DRAWS,
    )
    steps: int = option(
        8_000_000, "training", "learner decisions (transitions) to train on", POSITIVE
    )
    seed: int = option(0, "run", "seed of everything random in the run", SEED)
    envs: int = option(64, "env", "games stepped together", POSITIVE)
    run_dir: str = option("runs/default", "run", "the run's own directory")
    reward: str = option(
        "win",
        "env",
        "what the learner is rewarded with (docs/env.md)",
        choices=REWARDS,
    )
    critic_observer: str = option(
        "oracle",
        "network",
        "the critic's observer: oracle (every hand, a centralised critic used in training only) or "
        "'' for the actor's own observation",
    )
    hidden: tuple[int, ...] = option(
        (512, 256), "network", "hidden layer widths", Bounds(1, 65_536)
    )
    body: str = option(
        "auto",
        "network",
        "how the actor reads its observation: auto (a CNN over card planes, else an MLP) or gru (a "
        "GRU over the observer's move history, as in 'history', then the MLP)",
        choices=BODIES,
    )
    action_head: str = option(
        "mlp",
        "network",
        "how actions are scored from their descriptions: dot, mlp (over the state's and the "
        "move's embeddings) or fused (over the body's output and the move's description)",
        choices=ACTION_HEADS,
    )
    action_rest: bool = option(
        True, "network", "score actions with counts of what they leave in the hand"
    )
    action_context: bool = option(
        True,
        "network",
        "the state embedding also reads the pooled set of legal moves (needs --actions catalog)",
    )
    plan_features: bool = option(
        True,
        "network",
        "score actions with the heuristic planner's view of them too (needs --actions catalog)",
    )
    reply_features: bool = option(
        True,
        "network",
        "score actions with who could answer them too: which opponent could beat each play, how "
        "much of what it leaves could be beaten (an oracle actor reads them off the hands; needs "
        "--actions catalog)",
    )
    lr: float = option(3e-4, "training", "Adam learning rate", Bounds(0, 1, low_open=True))
    lr_schedule: str = option(
        "constant",
        "training",
        "constant, or linear: the learning rate falls linearly to 0 at --steps (CleanRL's "
        "anneal_lr)",
        choices=LR_SCHEDULES,
    )
    gamma: float = option(0.99, "training", "discount factor", Bounds(0, 1, low_open=True))
    epoch_steps: int = option(
        1_000_000, "training", "learner decisions between evaluations", POSITIVE
    )
    collect_steps: int = option(8192, "ppo", "decisions collected before each update", POSITIVE)
    batch_size: int = option(1024, "training", "minibatch size of a gradient step", POSITIVE)
    ppo_repeat: int = option(4, "ppo", "passes over each collection", POSITIVE)
    ent_coef: float = option(0.003, "ppo", "entropy bonus coefficient", UNIT)
    gae_lambda: float = option(0.95, "ppo", "GAE's lambda", UNIT)
    eps_clip: float = option(0.2, "ppo", "PPO's ratio clip", Bounds(0, 1, low_open=True))
    vf_coef: float = option(0.5, "ppo", "value loss weight", Bounds(0, 100))
    max_grad_norm: float = option(0.5, "ppo", "gradient norm clip", Bounds(0, low_open=True))
    buffer_size: int = option(50_000, "dqn", "replay buffer size (at least --batch-size)", POSITIVE)
    eps_train: float = option(0.1, "dqn", "exploration rate while training", UNIT)
    dqn_updates: float = option(
        0.0625, "dqn", "gradient steps per collected transition", Bounds(0, 64, low_open=True)
    )
    target_update_freq: int = option(
        500, "dqn", "gradient steps between target-network copies", POSITIVE
    )
    n_step: int = option(
        1,
        "dqn",
        "learner decisions whose rewards a target sums before it bootstraps; with --gamma 1 and "
        "more than a game holds (64), the target is the game's return: Deep Monte-Carlo (DouZero)",
        Bounds(1, 1024),
    )
    eval_opponents: tuple[str, ...] = option(
        ("random", "greedy", "heuristic"), "evaluation", "the learner plays three copies of each"
    )
    eval_deals: int = option(200, "evaluation", "duplicate deals per evaluation", POSITIVE)
    eval_seed: int = option(12345, "evaluation", "seed of the evaluation deals", SEED)
    eval_engine: str = option(
        "compiled",
        "evaluation",
        "where evaluations play: 'arena' (Python games, one decision at a time) or 'compiled' (a "
        "batch of games at once: the same games against greedy and heuristic players, other draws "
        "of random ones; envs.duplicate)",
        choices=EVAL_ENGINES,
    )
    snapshot_every: int = option(1, "opponents", "epochs between self-play snapshots", POSITIVE)
    max_minutes: float = option(
        0.0, "run", "wall-clock budget; 0 = none (stops after the epoch that ends it)", Bounds(0)
    )
    init: str = option(
        "",
        "run",
        "start from this checkpoint's networks (one network: export a member of a shipped "
        "ensemble); it must match in what shapes the networks",
    )
    init_critic: bool = option(
        True,
        "run",
        "with --init, also take its critic when it has one that fits (PPO); --no-init-critic "
        "starts the critic fresh, as from an exported agent, for a run whose returns are another "
        "game's (other opponents)",
    )
    device: str = option("auto", "run", "torch device (auto: cuda when available)", choices=DEVICES)
    threads: int = option(1, "run", "torch threads for the networks", Bounds(1, 1024))
    shards: int = option(
        1, "run", "split the games into this many shards (at most --envs)", POSITIVE
    )
    backend: str = option("local", "run", "where shards run", choices=BACKENDS)
    ray_address: str = option("", "run", "the Ray cluster to join (with --backend ray)")
    upper_bound: bool = option(
        False,
        "run",
        "the actor may see every hand: a cheating upper bound that only an ablation study sets "
        "(not a flag)",
    )

    def check(self) -> None:
        """Raise ValueError for settings that cannot work (before anything is written)."""
        for f in fields(self):
            _check_field(f, getattr(self, f.name))
        if self.shards > self.envs:
            raise ValueError(f"shards must be between 1 and envs ({self.envs}), got {self.shards}")
        if self.algo == "dqn" and self.buffer_size < self.batch_size:
            raise ValueError(
                f"buffer_size ({self.buffer_size}) must hold at least one batch "
                f"(batch_size {self.batch_size})"
            )
        if self.ray_address and self.backend != "ray":
            raise ValueError("--ray-address needs --backend ray")
        check_device(self.device)
        rules = get_rules(self.rules)
        codecs.make(self.actions, rules)
        self._check_opponents()
        for flag in ("plan_features", "reply_features", "action_context"):
            if getattr(self, flag) and self.actions != "catalog":
                raise ValueError(
                    f"--{flag.replace('_', '-')} needs --actions catalog, not {self.actions!r}"
                )
        cheats = observers.make(self.observer, self.rules).perfect_information
        if cheats and not self.upper_bound:
            raise ValueError(
                f"observer {self.observer!r} sees every hand; the actor must play from its "
                f"seat's view (use it as --critic-observer instead; an ablation study may "
                f"run it as a labelled upper bound)"
            )
        if self.critic_observer:
            observers.make(self.critic_observer, self.rules)
        if self.body == "gru" and sequence_piece(observers.make(self.observer, self.rules)) is None:
            raise ValueError(
                f"--body gru reads the observer's move history; observer "
                f"{self.observer!r} has none (try --observer history)"
            )

    def _check_opponents(self) -> None:
        if self.tables and self.opponent_draw != "game":
            raise ValueError(
                "--opponents self-all with other entries draws each game's whole table: give "
                "--opponent-draw game (seat draws each opponent seat on its own, and self-all "
                "is no opponent)"
            )
        if self.all_seats and self.opponent_draw != "seat":
            raise ValueError(
                "--opponent-draw seats opponents; --opponents self-all alone has none (leave it "
                "at 'seat', or list other entries beside it for a table drawn per game)"
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
        """Whether the learner plays all four seats of every game (``--opponents self-all``
        alone)."""
        return self.opponents == (SELF_ALL,)

    @property
    def tables(self) -> bool:
        """Whether each game draws its table (``self-all`` among other ``--opponents``):
        self-play in every seat, or the learner in one seat against three of an entry."""
        return SELF_ALL in self.opponents and not self.all_seats

    def features(self, observer: Observer | None = None) -> MoveFeatures | None:
        """The move features the actor reads (:func:`observers.moves.make`: plan and reply
        features), or None. An actor that sees every hand reads the cheating replies;
        ``observer``, the actor's observer if it is already made, says whether it does.

        >>> Config(plan_features=True, reply_features=False).features()
        PlanFeatures()
        """
        seen = observer or observers.make(self.observer, self.rules)
        return moves.make(self.plan_features, self.reply_features, cheat=seen.perfect_information)

    def to_dict(self) -> dict[str, Any]:
        """The config as JSON-ready data (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Config:
        """A saved config (:meth:`to_dict` data of any version: a ``config.json``, a
        checkpoint's, a study cell's). A key it lacks takes the value such runs had
        (:data:`FORMER_DEFAULTS`, else the default); keys of older versions are ignored,
        and a :data:`REMOVED` field holding another value than it always had is refused.
        A new run's settings go to :meth:`from_settings`.

        >>> Config.from_dict({"steps": 10, "critic_outlook": False}).steps
        10
        >>> Config.from_dict({"steps": 10}).hidden
        (256, 128)
        >>> Config.from_dict({"critic_outlook": True})
        Traceback (most recent call last):
        ...
        ValueError: critic_outlook is true: this version cannot train or load it: the ...
        """
        for key, (kept, why) in REMOVED.items():
            if key in data and data[key] != kept:
                shown = json.dumps(data[key])
                raise ValueError(f"{key} is {shown}: this version cannot train or load it: {why}")
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in {**FORMER_DEFAULTS, **data}.items()
            if k in known
        }
        return cls(**values)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Config:
        """A new run's config: ``settings`` (flags given, a recipe's stage) over the
        defaults, lists as tuples.

        >>> Config.from_settings({"hidden": [64]}) == Config(hidden=(64,))
        True
        """
        return cls.from_dict({**cls().to_dict(), **settings})

    @classmethod
    def from_args(cls, argv: list[str] | None = None) -> Config:
        """A config from command-line flags only (no --resume handling)."""
        given, _, _ = parse_args(argv)
        return cls.from_settings(given)


def check_device(device: str) -> None:
    """Raise ValueError if torch cannot use ``device`` here (cuda on a CPU-only torch, or
    with no GPU visible), so a run is refused before it starts, not when it first moves a
    network.

    >>> check_device("cpu")
    >>> check_device("tpu")
    Traceback (most recent call last):
    ...
    ValueError: --device tpu: unknown device; expected one of auto, cpu, cuda
    """
    if device not in DEVICES:
        raise ValueError(f"--device {device}: unknown device; expected one of {', '.join(DEVICES)}")
    if device != "cuda" or torch.cuda.is_available():
        return
    if not torch.backends.cuda.is_built():
        why = f"this torch ({torch.__version__}) has no CUDA (a CPU-only build)"
    else:
        why = "torch finds no CUDA device on this machine"
    raise ValueError(f"--device cuda: {why}; use --device cpu or auto")


def _check_field(f: Any, value: Any) -> None:
    """Raise ValueError unless ``value`` has field ``f``'s type and lies in its bounds."""
    name, default, meta = f.name, f.default, f.metadata
    items = value if isinstance(default, tuple) else (value,)
    if isinstance(default, tuple) and not isinstance(value, tuple):
        raise ValueError(f"{name} must be a list, got {value!r}")
    kind = type(default[0]) if isinstance(default, tuple) and default else type(default)
    for item in items:
        if not _is_a(item, kind):
            raise ValueError(f"{name} must be {_KIND_NAMES[kind]}, got {item!r}")
        if meta["bounds"] is not None and not meta["bounds"].holds(item):
            raise ValueError(f"{name} must be {meta['bounds'].text()}, got {item!r}")
        if meta["choices"] and item not in meta["choices"]:
            raise ValueError(f"{name} must be one of {list(meta['choices'])}, got {item!r}")
    if isinstance(default, tuple) and default and not value and name == "hidden":
        raise ValueError("hidden needs at least one layer width")


_KIND_NAMES = {int: "an integer", float: "a number", str: "text", bool: "true or false"}


def _is_a(value: Any, kind: type) -> bool:
    if kind is bool or isinstance(value, bool):
        return kind is bool and isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float)
    return isinstance(value, kind)


DESCRIPTION = (
    "Train a Big Two agent with Tianshou (docs/training.md). The defaults are the shipped "
    "agent's first stage (recipe 'trained', stage 'self-play': its network and inputs, the "
    "learner in all four seats, PPO collections of 8192 decisions in minibatches of 1024, "
    "evaluations in the compiled engine on the 200 validation deals every 1M decisions), "
    "8M decisions: an hour or more on one core. --steps or --max-minutes shorten it: "
    "'--steps 200000 --epoch-steps 50000' is make train."
)


def parse_args(
    argv: list[str] | None = None,
    recipes: Mapping[str, Mapping[str, Any]] | None = None,
    exploit: Callable[[str], Mapping[str, Any]] | None = None,
) -> tuple[dict[str, Any], str | None, bool]:
    """The config fields given on the command line, the run to resume, and --overwrite.

    ``recipes`` names settings that ``--recipe NAME`` starts from (``training.train``
    passes each recipe's first stage), and ``exploit`` gives those ``--exploit AGENT``
    starts from (``training.train.exploit_settings``): the flags given change them.

    >>> parse_args(["--recipe", "tiny", "--steps", "9"], {"tiny": {"steps": 5, "lr": 0.1}})
    ({'steps': 9, 'lr': 0.1}, None, False)
    >>> parse_args(["--exploit", "greedy"], exploit=lambda agent: {"opponents": (agent,)})
    ({'opponents': ('greedy',)}, None, False)
    """
    parser = argparse.ArgumentParser(
        prog="python -m training.train",
        description=DESCRIPTION,
    )
    groups = {name: parser.add_argument_group(name, text) for name, text in GROUPS.items()}
    for f in fields(Config):
        if f.name not in STUDY_ONLY:
            _add_flag(groups[f.metadata["group"]], f)
    _add_run_flags(groups["run"], sorted(recipes or ()), exploit)
    args = vars(parser.parse_args(argv))
    resume, overwrite, recipe = args.pop("resume"), args.pop("overwrite"), args.pop("recipe")
    agent = args.pop("exploit")
    given = {k: v for k, v in args.items() if v is not None}
    starts = {"recipe"} if recipe else set()
    changed = set(given) - set(RESUME_CHANGES) | starts | ({"exploit"} if agent else set())
    if resume and changed:
        flags = ", ".join("--" + k.replace("_", "-") for k in sorted(changed))
        allowed = ", ".join("--" + k.replace("_", "-") for k in RESUME_CHANGES)
        parser.error(f"a resumed run keeps its config; only {allowed} apply ({flags})")
    if recipe and agent:
        parser.error("--exploit trains the defaults' network from scratch; it takes no --recipe")
    if recipe:
        assert recipes is not None  # argparse allowed only its names
        given = {**recipes[recipe], **given}
    if agent:
        if exploit is None:
            parser.error("--exploit: this command has no exploitability runs")
        given = {**exploit(agent), **given}
    return given, resume, overwrite


def _add_run_flags(
    run: Any, recipes: list[str], exploit: Callable[[str], Mapping[str, Any]] | None
) -> None:
    """The flags that are no config field: --resume, --overwrite, --recipe, --exploit."""
    run.add_argument("--resume", metavar="RUN_DIR", help="continue from RUN_DIR/latest.pt")
    overwrite_help = "replace the run the run directory holds (only a run's files)"
    run.add_argument("--overwrite", action="store_true", help=overwrite_help)
    recipe_help = (
        "start from the settings of recipe NAME's first stage (training.recipes: the shipped "
        "agent's network, inputs, opponents and PPO settings; those of 'trained' are the "
        "defaults); the other flags change them "
        f"(one of: {', '.join(recipes) or 'none given'})"
    )
    run.add_argument("--recipe", metavar="NAME", choices=recipes, help=recipe_help)
    settings = exploit("AGENT") if exploit else {}
    shown = " ".join(f"--{k.replace('_', '-')} {_shown(v)}" for k, v in settings.items())
    exploit_help = (
        "measure AGENT's exploitability (docs/training.md): a fresh learner (the defaults' "
        "network, PPO) trains against three frozen copies of AGENT (an agent spec) and is "
        "evaluated against three of it on held-out deals; the best win share it reaches is "
        "printed and written to RUN_DIR/exploit.json. It starts from "
        f"{shown or 'no settings here'}; the other flags change them"
    ).replace("%", "%%")
    run.add_argument("--exploit", metavar="AGENT", help=exploit_help)


def _add_flag(group: Any, f: Any) -> None:
    """``--name`` for Config field ``f``, with its help, default and choices."""
    value, flag, meta = f.default, "--" + f.name.replace("_", "-"), f.metadata
    helptext = meta["help"].replace("%", "%%")
    if meta["bounds"] is not None:
        helptext += f"; {meta['bounds'].text()}"
    extra: dict[str, Any] = {"default": None, "help": helptext + f" (default: {_shown(value)})"}
    if meta["choices"]:
        extra["choices"] = meta["choices"]
    if isinstance(value, bool):
        group.add_argument(flag, action=argparse.BooleanOptionalAction, **extra)
    elif isinstance(value, tuple):
        kind = type(value[0]) if value else str
        group.add_argument(flag, nargs="+", type=kind, metavar=f.name.upper(), **extra)
    else:
        group.add_argument(flag, type=type(value), **extra)


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return " ".join(map(str, value))
    return repr(value) if value == "" else str(value)
