"""Recipes for the shipped agents: ``python -m training.recipes NAME`` (``make agents``).

A recipe trains one shipped agent from scratch in stages, each a training run
(:func:`training.train.train`) that starts from the networks of the one before
(``--init``), evaluates the result on deals nothing was chosen on, and exports it
(:func:`training.export.export_agent`) to ``training/agents/NAME.pt``, where agent specs
find it. Its stages and why they are what they are: ``docs/training.md``.

Everything lands in ``--run-dir`` (default ``runs/recipes/NAME``): one run directory per
stage, ``report.json`` (the final evaluation) and the exported agent. The command is
resumable: run it again and finished stages are skipped, an interrupted one continues
from its last checkpoint (``--resume``), so ``--max-minutes`` can cut a recipe into
sessions that each lose at most one epoch. Each stage's seed is derived from the recipe's
seed, and runs use one torch thread, so the same command gives the same weights.

``--seed N`` trains the same recipe from another seed, to measure the spread across
training seeds: by default into ``runs/recipes/NAME-seedN``, exporting to that directory's
``agent.pt`` (never over the shipped agent unless ``--export`` names it). A stage
directory that holds a run of another seed is refused, not continued.

>>> RECIPES["trained"].rules, [s.name for s in RECIPES["trained"].stages]
('standard', ['self-play'])
>>> RECIPES["trained"].scaled(0.0001).stages[0].settings["steps"]
4096
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from big2.evaluation import evaluate
from big2.players import load_agent
from big2.rules import get as get_rules
from envs.kernels.interrupts import signals_after_compiling
from training import checkpoint
from training.config import Config
from training.export import export_agent
from training.rundir import RunDirectory
from training.train import train

AGENTS = Path(__file__).parent / "agents"
VALIDATION_SEED = 12345  # the deals every stage's evaluations (and so every choice) used
REPORT_SEED = 20261124  # the deals a recipe reports on: nothing was chosen on them
REPORT_OPPONENTS = ("random", "greedy", "heuristic")
MIN_STEPS = 4096  # the least a scaled stage trains (one epoch: a collection past it)

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
    """One training run of a recipe: its name and the Config settings it changes."""

    name: str
    settings: dict[str, Any]


@dataclass(frozen=True)
class Recipe:
    """How one shipped agent is trained (see the module docstring)."""

    name: str
    rules: str
    stages: tuple[Stage, ...]
    seed: int = 0
    report_deals: int = 1000
    shared: dict[str, Any] = field(default_factory=lambda: dict(NETWORK))

    def config(self, k: int, run_dir: Path) -> Config:
        """The Config of stage ``k`` (its seed drawn from the recipe's, its init the last
        stage's best networks)."""
        stage = self.stages[k]
        settings = {**self.shared, "rules": self.rules, **stage.settings}
        init = str(stage_dir(run_dir, self, k - 1) / "best.pt") if k else ""
        return Config.from_dict({**settings, "seed": self.seed * 1000 + k, "init": init,
                                 "run_dir": str(stage_dir(run_dir, self, k))})  # fmt: skip

    def scaled(self, fraction: float) -> Recipe:
        """The same recipe with every stage's steps (and epochs) times ``fraction``, at
        least :data:`MIN_STEPS`, and small evaluations: for tests and trials."""

        def scale(s: Stage) -> Stage:
            steps = max(MIN_STEPS, round(s.settings["steps"] * fraction))
            epoch = max(MIN_STEPS, round(s.settings.get("epoch_steps", steps) * fraction))
            return replace(s, settings={**s.settings, "steps": steps, "epoch_steps": epoch})

        small = {**self.shared, "eval_deals": 4}
        return replace(self, stages=tuple(map(scale, self.stages)), report_deals=4, shared=small)


def stage_dir(run_dir: Path, recipe: Recipe, k: int) -> Path:
    return run_dir / f"stage{k + 1}-{recipe.stages[k].name}"


# Current-policy self-play: the learner in all four seats of every game, from scratch.
# On the validation deals it reached the level of the two stages it replaced (heuristic,
# greedy and random opponents, then self-play snapshots added) within 3M decisions, no
# further; it runs no Python opponent, and 8M decisions fit in two hours beside the
# other recipe (docs/training.md, "The recipes' steps", says what each tried gave).
SELF_PLAY = Stage("self-play", {
    "opponents": ("self-all",), "steps": 8_000_000, "epoch_steps": 1_000_000,
})  # fmt: skip

RECIPES = {
    "trained": Recipe("trained", "standard", (SELF_PLAY,)),
    "trained-charlesworth": Recipe("trained-charlesworth", "charlesworth", (SELF_PLAY,)),
}


def run_recipe(recipe: Recipe, run_dir: Path, max_minutes: float = 0.0,
               export: Path | None = None) -> dict[str, Any] | None:  # fmt: skip
    """Train, evaluate and export ``recipe`` in ``run_dir``; the report, or None when
    ``max_minutes`` ran out first (run again to continue)."""
    start = time.monotonic()
    for k, stage in enumerate(recipe.stages):
        cfg = recipe.config(k, run_dir)
        left = max_minutes - (time.monotonic() - start) / 60 if max_minutes else 0.0
        if max_minutes and left <= 0:
            return None
        cfg = replace(cfg, max_minutes=max(left, 1e-3) if max_minutes else 0.0)
        print(f"{recipe.name}: stage {k + 1}/{len(recipe.stages)} ({stage.name}, "
              f"{cfg.steps:,} decisions) in {cfg.run_dir}", file=sys.stderr)  # fmt: skip
        if not _train_stage(cfg):
            return None
    report = _report(recipe, run_dir)
    (run_dir / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    target = export or AGENTS / f"{recipe.name}.pt"
    export_agent(stage_dir(run_dir, recipe, len(recipe.stages) - 1) / "best.pt", target)
    report["exported"] = str(target)
    return report


def _train_stage(cfg: Config) -> bool:
    """Run (or continue) one stage; whether it has trained all its steps."""
    directory = RunDirectory(cfg.run_dir)
    resume = None
    if directory.checkpointed:
        resume = checkpoint.load(Path(cfg.run_dir) / "latest.pt")
        saved = Config.from_dict(resume["config"])
        if saved.seed != cfg.seed:
            raise ValueError(f"{cfg.run_dir} holds a run of seed {saved.seed}, not this "
                             f"recipe's {cfg.seed}: give another --run-dir")  # fmt: skip
        if resume["env_step"] >= cfg.steps:
            return True
        cfg = replace(saved, max_minutes=cfg.max_minutes)
    state = train(cfg, resume)
    return state.env_step >= cfg.steps


def _report(recipe: Recipe, run_dir: Path) -> dict[str, Any]:
    """The final agent's win share and mean score against three copies of each report
    opponent, on ``report_deals`` duplicate deals of :data:`REPORT_SEED`."""
    best = stage_dir(run_dir, recipe, len(recipe.stages) - 1) / "best.pt"
    rules = get_rules(recipe.rules)
    agent = load_agent(str(best), rules)
    rows = []
    for name in REPORT_OPPONENTS:
        me = evaluate([agent, name, name, name], recipe.report_deals, REPORT_SEED, rules,
                      progress=True).agents[0]  # fmt: skip
        rows.append({"opponent": name, "win_share": me.win_share, "win_share_ci": me.win_share_ci,
                     "mean_score": me.mean_score, "mean_score_ci": me.mean_score_ci})  # fmt: skip
    return {"recipe": recipe.name, "rules": recipe.rules, "deals": recipe.report_deals,
            "seed": REPORT_SEED, "results": rows}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.recipes", description=__doc__)
    parser.add_argument("name", choices=sorted(RECIPES))
    parser.add_argument("--seed", type=int, default=0,
                        help="the recipe's seed (default 0, the shipped agents')")  # fmt: skip
    parser.add_argument("--run-dir", help="where the stages run (default runs/recipes/NAME, "
                        "or NAME-seedN for another --seed)")  # fmt: skip
    parser.add_argument("--max-minutes", type=float, default=0.0,
                        help="stop after the epoch past this; run again to continue")  # fmt: skip
    parser.add_argument("--export", help="where the agent goes (default training/agents/NAME.pt; "
                        "RUN_DIR/agent.pt for another --seed)")  # fmt: skip
    parser.add_argument("--scale", type=float, default=1.0,
                        help="train this fraction of every stage's steps (for trials)")  # fmt: skip
    args = parser.parse_args(argv)
    recipe = replace(RECIPES[args.name], seed=args.seed)
    if not 0 < args.scale <= 1:
        parser.error(f"--scale must be in (0, 1], got {args.scale}")
    if args.seed < 0:
        parser.error(f"--seed must be 0 or more, got {args.seed}")
    if args.scale < 1:
        recipe = recipe.scaled(args.scale)
    suffix = f"-seed{args.seed}" if args.seed else ""
    run_dir = Path(args.run_dir or f"runs/recipes/{recipe.name}{suffix}")
    export = args.export or (str(run_dir / "agent.pt") if args.seed else None)
    try:
        with signals_after_compiling():  # Ctrl-C inside numba's compiler would crash it
            report = run_recipe(recipe, run_dir, args.max_minutes,
                                Path(export) if export else None)  # fmt: skip
    except ValueError as e:
        raise SystemExit(f"recipes: {e}") from None
    except KeyboardInterrupt:
        print("recipes: interrupted; run the same command to continue", file=sys.stderr)
        raise SystemExit(130) from None
    if report is None:
        print("recipes: out of time; run the same command to continue", file=sys.stderr)
        return
    for row in report["results"]:
        print(f"{recipe.name} vs 3x {row['opponent']}: win share {row['win_share']:.3f}, "
              f"mean score {row['mean_score']:+.2f} ({report['deals']} deals of seed "
              f"{report['seed']})")  # fmt: skip
    print(f"exported to {report['exported']}")


if __name__ == "__main__":
    main()
