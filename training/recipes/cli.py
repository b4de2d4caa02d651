"""Recipes for the shipped agents: ``python -m training.recipes NAME``, then ``NAME --ship``
(``make agents`` runs both).

A recipe trains one shipped agent from scratch: ``members`` networks alike from
different seeds, each in stages, every stage a training run (:func:`training.train.train`)
that starts from the networks of the one before (``--init``). The agent is the last
stages' best networks, as their ensemble when there are several
(:mod:`training.ensemble`); the recipe evaluates it on deals nothing was chosen on and
exports it to its run directory's ``agent.pt`` (and to ``--export``, if given). The
recipes are data, in :mod:`training.recipe_book`; their stages and why they are what
they are: ``docs/training.md``.

Training never writes the shipped agents. ``python -m training.recipes NAME --ship``
(:func:`ship`) is the one step that does: it copies the finished run's ``agent.pt`` over
``training/agents/NAME.pt``, where agent specs find it, after checking that the run is
the recipe itself (its seed, its full budget, its report), and says what it replaced,
which it keeps in the run directory (``replaced-NAME-SHA.pt``). A trial (``--scale``),
another ``--seed`` or an unfinished run is refused.

Everything lands in ``--run-dir`` (default ``runs/recipes/NAME``; ``NAME-seedN`` for
another ``--seed``, ``NAME-scaleF`` for a trial): one run directory per stage (under
``memberM/`` for each member of a recipe of several), ``report.json`` (the final
evaluation) and the agent, ``agent.pt``. Members train ``--jobs`` at a time, each in a
process of its own (:mod:`training.members`; ``--jobs 1``: one after the other, in this
process), and the report plays its deals in as many processes (the same results). The
command is resumable: run it again and finished stages are skipped, an interrupted one
continues from its last checkpoint (``--resume``), so ``--max-minutes`` can cut a recipe
into sessions that each lose at most one epoch. Each stage's seed is derived from the
recipe's seed, and runs use one torch thread, so the same command gives the same weights,
whatever ``--jobs``.

``--seed N`` trains the same recipe from another seed, to measure the spread across
training seeds, by default into ``runs/recipes/NAME-seedN``. A stage directory that holds
a run of another seed is refused, not continued.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from big2.evaluation import evaluate
from big2.evaluation.processes import die_with_parent, stop_on_sigterm
from big2.players import Agent
from big2.rules import get as get_rules
from envs.kernels.interrupts import signals_after_compiling
from training import checkpoint, export
from training.cli import command
from training.config import Config
from training.lock import locked
from training.loop import figures
from training.members import OUT_OF_TIME, RECIPE_FILE, MemberFailed, train_in_processes
from training.recipe_book import (
    LONG_TABLES,
    MIN_STEPS,
    NETWORK,
    RECIPES,
    REPORT_OPPONENTS,
    REPORT_SEED,
    SELF_PLAY,
    SHORT_SELF_PLAY,
    TABLES,
    VALIDATION_SEED,
    Recipe,
    Stage,
    member_dir,
    stage_dir,
)
from training.rundir import RunDirectory, write_whole
from training.train import train

AGENTS = Path(__file__).parent / "agents"  # the shipped agents: only ship() writes here
AGENT_FILE = "agent.pt"  # a recipe's agent, in its run directory
REPORT_FILE = "report.json"

__all__ = [  # the recipe book's names too, as before it was a module of its own
    "AGENTS",
    "AGENT_FILE",
    "LONG_TABLES",
    "MIN_STEPS",
    "NETWORK",
    "RECIPES",
    "REPORT_FILE",
    "REPORT_OPPONENTS",
    "REPORT_SEED",
    "SELF_PLAY",
    "SHORT_SELF_PLAY",
    "TABLES",
    "VALIDATION_SEED",
    "Recipe",
    "Stage",
    "agent_data",
    "main",
    "member_dir",
    "run_recipe",
    "ship",
    "stage_dir",
    "train_member",
]


def run_recipe(
    recipe: Recipe,
    run_dir: Path,
    max_minutes: float = 0.0,
    export: Path | None = None,
    jobs: int = 1,
) -> dict[str, Any] | None:
    """Train, evaluate and export ``recipe`` in ``run_dir``, its members ``jobs`` at a time
    (each in a process of its own when more than one) and then the report's deals in
    ``jobs`` processes; the report, or None when ``max_minutes`` ran out first (run again
    to continue). The agent goes to ``run_dir/agent.pt``, and to ``export`` too if given;
    ValueError, before anything is trained, if ``export`` is a shipped agent's place (only
    :func:`ship` writes there)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if export is not None and _shipped_place(export):
        raise ValueError(
            f"--export {export} is where the shipped agents are: training "
            f"never writes them; export elsewhere, and replace a shipped "
            f"agent with `python -m training.recipes {recipe.name} --ship` "
            f"once its run has finished"
        )
    if jobs == 1 or recipe.members == 1:
        start = time.monotonic()
        for member in range(recipe.members):
            if not train_member(recipe, run_dir, member, _left(max_minutes, start)):
                return None
    elif not train_in_processes(recipe, run_dir, max_minutes, jobs):
        return None
    data = agent_data(recipe, run_dir)
    report = _report(recipe, data, jobs)
    (run_dir / REPORT_FILE).write_text(json.dumps(report, indent=2), encoding="utf-8")
    targets = [run_dir / AGENT_FILE, *([export] if export is not None else [])]
    for target in targets:
        checkpoint.save(target, data)
    report["exported"] = " and ".join(map(str, targets))
    return report


def _shipped_place(path: Path) -> bool:
    """Whether ``path`` is in the folder of the shipped agents."""
    return path.resolve().parent == AGENTS.resolve()


def ship(name: str, run_dir: Path) -> str:
    """Replace the shipped agent ``name`` with the agent of the finished run of its recipe
    in ``run_dir``, keeping the one it replaces there; what was done, in words.

    Raises ValueError, replacing nothing, unless ``run_dir`` holds the recipe's own
    finished run: its report and agent, trained with the recipe's seed 0 and full budget
    (not a ``--scale`` trial, nor another ``--seed``).
    """
    recipe, source = RECIPES[name], run_dir / AGENT_FILE
    if not (run_dir / REPORT_FILE).is_file() or not source.is_file():
        raise ValueError(
            f"{run_dir} holds no finished {name} run (no {REPORT_FILE} and "
            f"{AGENT_FILE}): train it with `python -m training.recipes {name}"
            f"` (run again to continue), then ship it"
        )
    differ = _not_the_recipe(recipe, run_dir, checkpoint.load(source))
    if differ:
        raise ValueError(
            f"{source} is not the {name} recipe's agent ({'; '.join(differ)}): "
            f"a trial (--scale), another --seed or a run of other settings is "
            f"never shipped; nothing was replaced"
        )
    target = AGENTS / checkpoint.SHIPPED.get(name, f"{name}.pt")
    new = source.read_bytes()
    old = target.read_bytes() if target.is_file() else None
    if old == new:
        return f"{target} is {source} already: nothing replaced"
    try:
        kept = _keep(old, run_dir / f"replaced-{name}") if old is not None else None
        write_whole(target, new)
    except OSError as e:
        raise ValueError(
            f"cannot ship {source} as {target}: {e.strerror or e}; nothing was replaced"
        ) from None
    replaced = f"replaced {target} ({_digest(old)}, kept as {kept})" if kept else f"wrote {target}"
    return f"{replaced} with {source} ({_digest(new)})"


def _not_the_recipe(recipe: Recipe, run_dir: Path, data: dict[str, Any]) -> list[str]:
    """How agent checkpoint ``data`` and ``run_dir``'s report differ from what ``recipe``
    (seed 0, full budget) trains and reports: the settings of its last stage, its members
    and their seeds, the report's deals."""
    last = len(recipe.stages) - 1
    want = [recipe.config(last, run_dir, m) for m in range(recipe.members)]
    got = Config.from_dict(data["config"])
    mine, theirs = _trained_as(want[0]).to_dict(), _trained_as(got).to_dict()
    differ = [f"{k} {theirs[k]!r}, the recipe's {mine[k]!r}" for k in mine if mine[k] != theirs[k]]
    runs = data.get("member_runs", [{"seed": got.seed}])
    if [r["seed"] for r in runs] != [c.seed for c in want]:
        differ.append(
            f"members of seeds {[r['seed'] for r in runs]}, the recipe's {[c.seed for c in want]}"
        )
    report = json.loads((run_dir / REPORT_FILE).read_text(encoding="utf-8"))
    if (report.get("deals"), report.get("seed")) != (recipe.report_deals, REPORT_SEED):
        differ.append(
            f"reported on {report.get('deals')} deals of seed {report.get('seed')}, "
            f"the recipe on {recipe.report_deals} of {REPORT_SEED}"
        )
    return differ


def _trained_as(cfg: Config) -> Config:
    """``cfg`` but for where it ran and for how long a session went (not what it trains)."""
    return replace(cfg, run_dir="", init="", max_minutes=0.0)


def _keep(data: bytes, stem: Path) -> Path:
    """Write ``data`` to ``stem-SHA.pt`` (the start of its SHA-256); that path."""
    path = stem.with_name(f"{stem.name}-{_digest(data)[7:]}.pt")
    write_whole(path, data)
    return path


def _digest(data: bytes | None) -> str:
    """``sha256 `` and the first 12 hex digits of ``data``'s SHA-256.

    >>> _digest(b"")
    'sha256 e3b0c44298fc'
    """
    return f"sha256 {hashlib.sha256(data or b'').hexdigest()[:12]}"


def _left(max_minutes: float, start: float) -> float:
    """The minutes left of ``max_minutes`` since ``start`` (0: no limit; else at least a
    trace, so that a budget spent is not read as none)."""
    if not max_minutes:
        return 0.0
    return max(max_minutes - (time.monotonic() - start) / 60, 1e-6)


def train_member(recipe: Recipe, run_dir: Path, member: int, max_minutes: float = 0.0) -> bool:
    """Train (or continue) ``member``'s stages; whether all are done."""
    start = time.monotonic()
    for k, stage in enumerate(recipe.stages):
        cfg = recipe.config(k, run_dir, member)
        if max_minutes and _left(max_minutes, start) <= 1e-6:
            return False
        cfg = replace(cfg, max_minutes=_left(max_minutes, start))
        who = f" member {member}" if recipe.members > 1 else ""
        print(
            f"{recipe.name}{who}: stage {k + 1}/{len(recipe.stages)} ({stage.name}, "
            f"{cfg.steps:,} decisions) in {cfg.run_dir}",
            file=sys.stderr,
        )
        if not _train_stage(cfg):
            return False
    return True


def _train_stage(cfg: Config) -> bool:
    """Run (or continue) one stage; whether it has trained all its steps."""
    directory = RunDirectory(cfg.run_dir)
    resume = None
    if directory.checkpointed:
        resume = checkpoint.load(Path(cfg.run_dir) / "latest.pt")
        saved = Config.from_dict(resume["config"])
        if saved.seed != cfg.seed:
            raise ValueError(
                f"{cfg.run_dir} holds a run of seed {saved.seed}, not this "
                f"recipe's {cfg.seed}: give another --run-dir"
            )
        if resume["env_step"] >= cfg.steps:
            return True
        cfg = replace(saved, max_minutes=cfg.max_minutes)
    state = train(cfg, resume)
    return state.env_step >= cfg.steps


def agent_data(recipe: Recipe, run_dir: Path) -> dict[str, Any]:
    """The recipe's agent, as the checkpoint it exports: the last stage's best networks
    (of every member: their ensemble)."""
    last = len(recipe.stages) - 1
    bests = [stage_dir(run_dir, recipe, last, m) / "best.pt" for m in range(recipe.members)]
    return export.agent_data(bests[0]) if len(bests) == 1 else export.ensemble_data(bests)


def _report(recipe: Recipe, data: dict[str, Any], workers: int = 1) -> dict[str, Any]:
    """The agent's win share and mean score against three copies of each report
    opponent, on ``report_deals`` duplicate deals of :data:`REPORT_SEED` (played in
    ``workers`` processes: the same results, sooner)."""
    rules = get_rules(recipe.rules)
    agent = checkpoint.agent_of(data, recipe.name)
    rows = []
    for name in REPORT_OPPONENTS:
        players: list[Agent | str] = [agent, name, name, name]
        result = evaluate(players, recipe.report_deals, REPORT_SEED, rules, workers, progress=True)
        rows.append({"opponent": name, **figures(result.agents[0])})
    return {
        "recipe": recipe.name,
        "rules": recipe.rules,
        "deals": recipe.report_deals,
        "seed": REPORT_SEED,
        "members": recipe.members,
        "results": rows,
    }


def main(argv: list[str] | None = None) -> None:
    """Train a recipe (``NAME``) or ship its finished run (``NAME --ship``)."""
    parser = _parser()
    args = parser.parse_args(argv)
    stop_on_sigterm()  # SIGTERM unwinds like Ctrl-C: locks released, checkpoints kept
    if args.member is not None:
        raise SystemExit(_member_main(args))
    if not 0 < args.scale <= 1:
        parser.error(f"--scale must be in (0, 1], got {args.scale}")
    if args.seed < 0:
        parser.error(f"--seed must be 0 or more, got {args.seed}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.export and _shipped_place(Path(args.export)):
        parser.error(
            f"--export {args.export} is where the shipped agents are: training never "
            f"writes them (export elsewhere; --ship replaces a shipped agent from a "
            f"finished run)"
        )
    if args.ship and (args.seed or args.scale < 1 or args.export or args.max_minutes):
        parser.error(
            "--ship ships the recipe's own finished run (seed 0, full scale) and trains nothing: "
            "it takes --run-dir only"
        )
    suffix = (f"-seed{args.seed}" if args.seed else "") + (
        f"-scale{args.scale:g}" if args.scale < 1 else ""
    )
    run_dir = Path(args.run_dir or f"runs/recipes/{args.name}{suffix}")
    if args.ship:
        _ship_main(args.name, run_dir)
    else:
        _train_main(args, run_dir)


def _parser() -> argparse.ArgumentParser:
    """The command line's flags."""
    parser = command("python -m training.recipes", __doc__)
    parser.add_argument("name", choices=sorted(RECIPES))
    ship = (
        "train nothing: replace the shipped agent training/agents/NAME.pt with RUN_DIR/agent.pt, "
        "once the recipe's own run there has finished (a trial or another seed is refused)"
    )
    run_dir = (
        "where the stages run and the agent is exported (default runs/recipes/NAME, NAME-seedN "
        "for another --seed, NAME-scaleF for a trial)"
    )
    export = (
        "a copy of the agent here too (RUN_DIR/agent.pt always; never a shipped agent's file: "
        "--ship replaces those)"
    )
    scale = (
        "train this fraction of every stage's steps: a trial, in its own run directory, "
        "never shipped"
    )
    jobs = (
        "members trained at once, each in a process of its own, and the report's processes "
        "(default: one per core)"
    )
    seed = "the recipe's seed (default 0, the shipped agents')"
    max_minutes = "stop after the epoch past this; run again to continue"
    parser.add_argument("--ship", action="store_true", help=ship)
    parser.add_argument("--seed", type=int, default=0, help=seed)
    parser.add_argument("--run-dir", help=run_dir)
    parser.add_argument("--max-minutes", type=float, default=0.0, help=max_minutes)
    parser.add_argument("--export", help=export)
    parser.add_argument("--scale", type=float, default=1.0, help=scale)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help=jobs)
    parser.add_argument("--member", type=int, help=argparse.SUPPRESS)  # training.members' child
    parser.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    return parser


def _ship_main(name: str, run_dir: Path) -> None:
    """``NAME --ship``: replace the shipped agent from the finished run in ``run_dir``."""
    if not run_dir.is_dir():
        raise SystemExit(
            f"recipes: no run directory {run_dir}: train the recipe with "
            f"`python -m training.recipes {name}` first"
        )
    try:
        with locked(run_dir, "recipe"):  # not while the recipe trains there
            print(ship(name, run_dir))
    except ValueError as e:  # Locked and CheckpointError included
        raise SystemExit(f"recipes: {e}") from None


def _train_main(args: argparse.Namespace, run_dir: Path) -> None:
    """``NAME``: train (or continue) the recipe in ``run_dir``, then report and export."""
    recipe = replace(RECIPES[args.name], seed=args.seed)
    if args.scale < 1:
        recipe = recipe.scaled(args.scale)
    export = Path(args.export) if args.export else None
    try:
        # Ctrl-C inside numba's compiler would crash it
        with locked(run_dir, "recipe"), signals_after_compiling():
            report = run_recipe(recipe, run_dir, args.max_minutes, export, args.jobs)
    except (ValueError, MemberFailed) as e:  # Locked and CheckpointError included
        raise SystemExit(f"recipes: {e}") from None
    except KeyboardInterrupt:
        print("recipes: interrupted; run the same command to continue", file=sys.stderr)
        raise SystemExit(130) from None
    if report is None:
        print("recipes: out of time; run the same command to continue", file=sys.stderr)
        return
    for row in report["results"]:
        print(
            f"{recipe.name} vs 3x {row['opponent']}: win share {row['win_share']:.3f}, "
            f"mean score {row['mean_score']:+.2f} ({report['deals']} deals of seed "
            f"{report['seed']})"
        )
    print(f"exported to {report['exported']}")
    if recipe != RECIPES[args.name]:
        print("the shipped agent is unchanged (a trial or another seed is never shipped)")
        return
    where = "" if args.run_dir is None else f" --run-dir {run_dir}"
    print(
        f"the shipped agent is unchanged: `python -m training.recipes {args.name} --ship"
        f"{where}` replaces it with this one"
    )


def _member_main(args: argparse.Namespace) -> int:
    """One member's process (:mod:`training.members`): its exit status."""
    if args.parent is not None:
        die_with_parent(args.parent)
    run_dir = Path(args.run_dir)
    recipe = Recipe.from_json((run_dir / RECIPE_FILE).read_text(encoding="utf-8"))
    if recipe.name != args.name or not 0 <= args.member < recipe.members:
        print(
            f"recipes: {run_dir / RECIPE_FILE} has no member {args.member} of {args.name}",
            file=sys.stderr,
        )
        return 2
    try:
        with signals_after_compiling():
            done = train_member(recipe, run_dir, args.member, args.max_minutes)
    except ValueError as e:  # RunDirError and CheckpointError included
        print(f"recipes: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        message = "recipes: interrupted; the member continues when the recipe runs again"
        print(message, file=sys.stderr)
        return 130
    return 0 if done else OUT_OF_TIME


if __name__ == "__main__":
    main()
