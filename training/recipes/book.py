"""The recipe book: how each shipped agent is trained, as data.

A :class:`Recipe` trains ``members`` networks alike from different seeds, each in
:class:`Stage` s, every stage a training run of the Config settings it names, starting
from the networks of the one before (the first from scratch, or from a shipped agent's
members: ``start``); :data:`NETWORK` is what every stage shares. The book holds two
kinds of recipe, by name: :data:`RECIPES`, the recipes of the shipped agents (``make
agents`` trains them, and ``--ship`` replaces a shipped agent with its recipe's run),
and :data:`CANDIDATES`, the recipes of the agents that may succeed them, which train the
same way and are never shipped under their own names: a candidate ships once its agent
beats the shipped one head to head, by taking that agent's name in :data:`RECIPES`
(``docs/training.md``). :data:`BOOK` is both. The code that runs them reads the book and
the book imports none of it: :mod:`training.recipes.run` (``python -m training.recipes
NAME``), :mod:`training.recipes.members` (members side by side) and ``python -m
training.train --recipe NAME`` (a recipe's first stage). Why the stages are what they
are: ``docs/training.md``.

>>> trained = RECIPES["trained"]
>>> trained.rules, [s.name for s in trained.stages], trained.members
('standard', ['self-play', 'tables'], 2)
>>> RECIPES["trained"].scaled(0.0001).stages[0].settings["steps"]
1024
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from training.config import SELF_ALL, Config

VALIDATION_SEED = 12345  # the deals every stage's evaluations (and so every choice) used
REPORT_SEED = 20261124  # the deals a recipe reports on: nothing was chosen on them
REPORT_OPPONENTS = ("random", "greedy", "heuristic")
MIN_STEPS = 1024  # the least a scaled stage trains (one epoch of one collection)
AGENT_FILE = "agent.pt"  # a recipe's agent, in its run directory
START_FILE = "start.pt"  # a member's starting network (of Recipe.start), in its directory
REPORT_FILE = "report.json"  # its report: the agent against REPORT_OPPONENTS on REPORT_SEED
STARTS = ("best", "latest")  # the networks of the stage before a stage may start from

# what every stage of every recipe shares (see docs/training.md for why)
NETWORK: dict[str, Any] = {
    "observer": "simple",
    "critic_observer": "oracle",
    "hidden": (512, 256),
    "action_head": "mlp",
    "action_rest": True,
    "action_context": True,
    "plan_features": True,
    "reply_features": True,
    "reward": "win",
    "ent_coef": 0.003,
    "collect_steps": 8192,
    "batch_size": 1024,
    "threads": 1,
    "eval_seed": VALIDATION_SEED,
    "eval_deals": 200,
    "eval_engine": "compiled",
}


@dataclass(frozen=True)
class Stage:
    """One training run of a recipe: its name, the Config settings it changes, and which
    networks of the stage before it starts from (``best``: its best evaluation; ``latest``:
    where it stopped, so that the stages are one long run cut in parts)."""

    name: str
    settings: dict[str, Any]
    start: str = "best"

    def __post_init__(self) -> None:
        if self.start not in STARTS:
            raise ValueError(f"a stage starts from {' or '.join(STARTS)}, not {self.start!r}")


@dataclass(frozen=True)
class Recipe:
    """How one shipped agent is trained (see the module docstring)."""

    name: str
    rules: str
    stages: tuple[Stage, ...]
    seed: int = 0
    report_deals: int = 1000
    shared: dict[str, Any] = field(default_factory=lambda: dict(NETWORK))
    members: int = 1  # networks trained alike from different seeds; the agent is their ensemble
    # an agent of ``members`` networks (a shipped one, by its dated name) whose member m the
    # first stage of member m starts from; "" from scratch
    start: str = ""

    def settings(self, k: int = 0) -> dict[str, Any]:
        """The Config settings of stage ``k`` but its seed, init and run directory: what
        ``python -m training.train --recipe NAME`` starts from (stage 0).

        >>> RECIPES["trained"].settings()["opponents"]
        ('self-all',)
        """
        return {**self.shared, "rules": self.rules, **self.stages[k].settings}

    def config(self, k: int, run_dir: Path, member: int = 0) -> Config:
        """The Config of stage ``k`` of ``member``: its seed ``1000 (members x seed +
        member) + k``, its init the member's previous stage's networks that the stage's
        ``start`` names (the first stage's: its :func:`start_file`, or none)."""
        settings = self.settings(k)
        if k:
            init = str(stage_dir(run_dir, self, k - 1, member) / f"{self.stages[k].start}.pt")
        else:
            init = str(start_file(run_dir, self, member)) if self.start else ""
        seed = 1000 * (self.members * self.seed + member) + k
        where = {"seed": seed, "init": init, "run_dir": str(stage_dir(run_dir, self, k, member))}
        return Config.from_settings({**settings, **where})

    @property
    def steps(self) -> int:
        """The decisions one member trains, over all its stages."""
        return sum(int(s.settings["steps"]) for s in self.stages)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Recipe:
        data = json.loads(text)
        stages = tuple(Stage(**s) for s in data.pop("stages"))
        return cls(**data, stages=stages)

    def scaled(self, fraction: float) -> Recipe:
        """The same recipe with every stage's steps (and epochs) times ``fraction``, at
        least :data:`MIN_STEPS`, and small evaluations: for tests and trials. A stage
        scaled below one of its collections collects (and learns in minibatches of) its
        steps, so that it trains what it says rather than a whole collection.

        >>> tiny = RECIPES["trained"].scaled(1e-9).settings()
        >>> tiny["steps"], tiny["collect_steps"], tiny["batch_size"]
        (1024, 1024, 1024)
        """

        def scale(s: Stage) -> Stage:
            steps = max(MIN_STEPS, round(s.settings["steps"] * fraction))
            epoch = max(MIN_STEPS, round(s.settings.get("epoch_steps", steps) * fraction))
            sizes = {**self.shared, **s.settings}
            collect = min(sizes["collect_steps"], steps)
            batch = min(sizes["batch_size"], collect)
            settings = {"steps": steps, "epoch_steps": epoch, "collect_steps": collect,
                        "batch_size": batch}  # fmt: skip
            return replace(s, settings={**s.settings, **settings})

        small = {**self.shared, "eval_deals": 2}
        return replace(self, stages=tuple(map(scale, self.stages)), report_deals=2, shared=small)


def member_dir(run_dir: Path, recipe: Recipe, member: int) -> Path:
    """Where ``member`` trains: ``run_dir`` itself for a recipe of one network."""
    return run_dir if recipe.members == 1 else run_dir / f"member{member}"


def start_file(run_dir: Path, recipe: Recipe, member: int = 0) -> Path:
    """Where ``member``'s starting network, member ``member`` of ``recipe.start``, is
    exported before its first stage: ``start.pt`` in :func:`member_dir`."""
    return member_dir(run_dir, recipe, member) / START_FILE


def stage_dir(run_dir: Path, recipe: Recipe, k: int, member: int = 0) -> Path:
    """Where stage ``k`` (from 0) of ``member`` trains: ``stageK-NAME``, K from 1, in
    :func:`member_dir`."""
    return member_dir(run_dir, recipe, member) / f"stage{k + 1}-{recipe.stages[k].name}"


# Current-policy self-play: the learner in all four seats of every game, from scratch.
# On the validation deals it reached the level of the two stages it replaced (heuristic,
# greedy and random opponents, then self-play snapshots added) within 3M decisions, no
# further; it runs no Python opponent, and 8M decisions of two members side by side take
# about 1 1/2 hours on 2 cores, leaving stage 2 its 20 minutes of the 2 hours a recipe
# may take (docs/training.md, "The recipes' steps", says what each tried gave).
SELF_PLAY = Stage(
    "self-play",
    {
        "opponents": ("self-all",),
        "steps": 8_000_000,
        "epoch_steps": 1_000_000,
    },
)

# Then the fixed opponents, three of a kind at each table (heuristic at half of them,
# greedy and random at a quarter each), at a third of the learning rate and with a fresh
# critic (the self-play critic's values are those of another game). On the validation
# deals the pairs gained 1-4 points of win share against every opponent but STANDARD's
# heuristic (+0.2) over self-play alone (docs/training.md, "The recipes' steps").
TABLES = Stage(
    "tables",
    {
        "opponents": ("heuristic", "heuristic", "greedy", "random"),
        "opponent_draw": "game",
        "lr": 1e-4,
        "init_critic": False,
        "steps": 2_000_000,
        "epoch_steps": 500_000,
    },
)


def population(current: str, former: str, steps: int) -> Stage:
    """One stage at tables drawn for each game from a population (``docs/training.md``, "The
    population recipe"): self-play in every seat at a fifth of the tables (a self-play game
    gives four seats' decisions, any other one, so about half the learner's decisions), and
    at the others the learner in one seat against three of: its past selves drawn by how
    often they beat it (``self``, :mod:`training.pfsp`: a quarter of them), the shipped
    agent ``current`` it is to succeed and ``former``, the one before (played greedily, as
    they play in the arena), and scripted players, heuristic ones mostly. Its best epoch is
    chosen on the validation deals against the scripted players and ``current`` alike. The
    stages of a recipe continue one another's latest networks: one long run cut into parts
    that fit a session, each one's networks small enough to keep in the repository
    (:mod:`training.recipes.kept`)."""
    tables = (
        *[SELF_ALL] * 4,
        *["self"] * 5,
        *[current] * 3,
        *[former] * 2,
        *["heuristic"] * 4,
        "greedy",
        "random",
    )
    settings = {
        "opponents": tables,
        "opponent_draw": "game",
        "eval_opponents": (*REPORT_OPPONENTS, current),
        "lr": 1e-4,
        "steps": steps,
        "epoch_steps": 1_000_000,
        "envs": 256,
        "collect_steps": 16_384,
        "ppo_repeat": 2,
        "snapshot_every": 2,
    }
    return Stage("population", settings, start="latest")


# Sizes measured on the population's tables (lab/notes.md, "Sizing the population
# stage"): 256 games let the opponents' networks answer for four times the games per
# call, collections of 16,384 in two passes update at twice the rate of 8,192 in four,
# and the same five minutes gave 1.6 times the decisions of 64 games and 16,384 (2.4
# times today's 8,192 x 4) with no difference in the validation figures; 32,768 gained
# nothing more. At 1,100-1,300 decisions/s a member, two members side by side on 2 cores,
# 32M decisions take 7-8 hours, the most a shipped agent may train: eight stages of 4M,
# each about an hour, so that a session of three hours finishes two (lab/notes.md, "The
# candidates in stages").
POPULATION_STAGES, POPULATION_STEPS = 8, 4_000_000


def population_recipe(name: str, rules: str, current: str, former: str) -> Recipe:
    """The recipe of :data:`POPULATION_STAGES` :func:`population` stages whose two members
    start from the matching members of ``current`` (a shipped agent's dated name, so that
    the recipe keeps its start when that agent is replaced), the agent it is to succeed;
    ``former`` is the one before.

    >>> recipe = population_recipe("mine", "standard", "trained@2026-11-28", "trained@2026-11-27")
    >>> len(recipe.stages), recipe.steps, recipe.start
    (8, 32000000, 'trained@2026-11-28')
    """
    stage = population(current, former, POPULATION_STEPS)
    return Recipe(name, rules, (stage,) * POPULATION_STAGES, members=2, start=current)


# Two members, side by side on two cores, played as their ensemble: on the validation
# deals the pair beat either member alone (docs/training.md, "The recipes' steps").
RECIPES = {
    "trained": Recipe("trained", "standard", (SELF_PLAY, TABLES), members=2),
    # since 2026-12-03: the population's recipe, which beat the agent it starts from,
    # trained-charlesworth@2026-11-28, head to head (docs/results.md); that agent's own
    # recipe (5M decisions of self-play, then 5M at fixed tables, from scratch) is in git
    # history (docs/training.md, "The recipes' steps")
    "trained-charlesworth": population_recipe(
        "trained-charlesworth",
        "charlesworth",
        "trained-charlesworth@2026-11-28",
        "trained-charlesworth@2026-11-27",
    ),
}

# The candidate for the next shipped STANDARD agent.
CANDIDATES = {
    "population": population_recipe(
        "population", "standard", "trained@2026-11-28", "trained@2026-11-27"
    ),
}
BOOK = {**RECIPES, **CANDIDATES}  # every recipe by name: the shipped agents' and the candidates'
