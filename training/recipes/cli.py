"""Recipes for the shipped agents: ``python -m training.recipes NAME``, then ``NAME --ship``
(``make agents`` runs both).

A recipe trains one shipped agent: ``members`` networks alike from different seeds, each
in stages, every stage a training run (:func:`training.train.train`) that starts from
the networks of the one before (``--init``), the first from scratch or from a shipped
agent's members (``trained-charlesworth`` starts from the agent it replaced). The agent
is the last stages' best networks, as their ensemble when there are several
(:mod:`training.ensemble`); the recipe evaluates it on deals nothing was chosen on and
exports it to its run directory's ``agent.pt`` (and to ``--export``, if given). The
recipes are data, in :mod:`training.recipes.book`; their stages and why they are what
they are: ``docs/training.md``. The book also holds the candidates' recipes
(``population``): the agents that may succeed the shipped ones, each member starting
from a shipped agent's member; they train the same way, and ``--ship`` refuses them (a
candidate ships by taking the shipped agent's name in the book, once it beats that
agent head to head).

Training never writes the shipped agents. ``python -m training.recipes NAME --ship``
(:mod:`training.recipes.ship`) is the one step that does: it copies the finished run's
``agent.pt`` over ``training/agents/NAME.pt``, where agent specs find it, after checking
that the run is the recipe itself (its seed, its full budget, its report), and says what
it replaced, which it keeps in the run directory (``replaced-NAME-SHA.pt``). A trial
(``--scale``), another ``--seed`` or an unfinished run is refused.

Everything lands in ``--run-dir`` (default ``runs/recipes/NAME``; ``NAME-seedN`` for
another ``--seed``, ``NAME-scaleF`` for a trial): one run directory per stage (under
``memberM/`` for each member of a recipe of several), ``report.json`` (the final
evaluation) and the agent, ``agent.pt``. Members train ``--jobs`` at a time, each in a
process of its own (:mod:`training.recipes.members`; ``--jobs 1``: one after the other,
in this process), and the report plays its deals in as many processes (the same
results). The command is resumable: run it again and finished stages are skipped, an
interrupted one continues from its last checkpoint (:func:`training.train.resume_or_start`),
so ``--max-minutes`` can cut a recipe into sessions that each lose at most one epoch. A
recipe longer than a machine's sessions (the candidates') goes on elsewhere from its
finished stages: ``NAME --keep`` copies each member's newest finished stage's networks into
the repository (:mod:`training.recipes.kept`), to commit, and the recipe run on another
machine starts from them. Each stage's seed is derived from the recipe's seed, and runs use
one torch thread, so the same command gives the same weights, whatever ``--jobs``.

``--seed N`` trains the same recipe from another seed, to measure the spread across
training seeds, by default into ``runs/recipes/NAME-seedN``. A stage directory that holds
a run of other settings (another seed, say) is refused, naming them, not continued.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from big2.evaluation.processes import die_with_parent, stop_on_sigterm
from envs.kernels.interrupts import signals_after_compiling
from training.cli import command
from training.lock import locked
from training.recipes import kept
from training.recipes.book import BOOK, CANDIDATES, Recipe
from training.recipes.members import OUT_OF_TIME, RECIPE_FILE, MemberFailed
from training.recipes.run import run_recipe, train_member
from training.recipes.ship import is_shipped_place, ship


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
    if args.export and is_shipped_place(Path(args.export)):
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
    if args.keep and (args.ship or args.seed or args.scale < 1 or args.export or args.max_minutes):
        parser.error(
            "--keep keeps the recipe's own finished stages (seed 0, full scale) and trains "
            "nothing: it takes --run-dir only"
        )
    suffix = (f"-seed{args.seed}" if args.seed else "") + (
        f"-scale{args.scale:g}" if args.scale < 1 else ""
    )
    run_dir = Path(args.run_dir or f"runs/recipes/{args.name}{suffix}")
    if args.keep:
        _keep_main(args.name, run_dir)
    elif args.ship:
        _ship_main(args.name, run_dir)
    else:
        _train_main(args, run_dir)


def _parser() -> argparse.ArgumentParser:
    """The command line's flags."""
    parser = command("python -m training.recipes", __doc__)
    parser.add_argument("name", choices=sorted(BOOK))
    ship = (
        "train nothing: replace the shipped agent training/agents/NAME.pt with RUN_DIR/agent.pt, "
        "once the recipe's own run there has finished (a trial or another seed is refused)"
    )
    keep = (
        "train nothing: copy each member's newest finished stage's networks to "
        "training/recipes/stages/NAME/ (to commit, so that another machine continues there)"
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
    parser.add_argument("--keep", action="store_true", help=keep)
    parser.add_argument("--ship", action="store_true", help=ship)
    parser.add_argument("--seed", type=int, default=0, help=seed)
    parser.add_argument("--run-dir", help=run_dir)
    parser.add_argument("--max-minutes", type=float, default=0.0, help=max_minutes)
    parser.add_argument("--export", help=export)
    parser.add_argument("--scale", type=float, default=1.0, help=scale)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help=jobs)
    parser.add_argument("--member", type=int, help=argparse.SUPPRESS)  # a member's process
    parser.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    return parser


def candidate_note(name: str) -> str:
    """How candidate ``name``'s agent would ship."""
    return (
        f"{name} is a candidate's recipe (training/recipes/book.py, CANDIDATES): its agent "
        f"ships only once it beats the shipped agent it may succeed head to head (big2 "
        f"league; docs/training.md), by taking that agent's name in RECIPES, then "
        f"`python -m training.recipes NAME --ship --run-dir runs/recipes/{name}`"
    )


def _keep_main(name: str, run_dir: Path) -> None:
    """``NAME --keep``: keep the finished stages of ``run_dir`` in the repository."""
    try:
        written = kept.keep(BOOK[name], run_dir)
    except ValueError as e:  # CheckpointError included
        raise SystemExit(f"recipes: {e}") from None
    for path in written:
        print(f"kept {path} ({path.stat().st_size / 1e6:.1f} MB)")
    if not written:
        print(f"recipes: the newest finished stages of {run_dir} are kept already")
    else:
        print(f"commit them (git add {kept.STORE / name}) to continue elsewhere")


def _ship_main(name: str, run_dir: Path) -> None:
    """``NAME --ship``: replace the shipped agent from the finished run in ``run_dir``."""
    if name in CANDIDATES:
        raise SystemExit(f"recipes: nothing shipped: {candidate_note(name)}")
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
    recipe = replace(BOOK[args.name], seed=args.seed)
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
    if recipe != BOOK[args.name]:
        print("the shipped agent is unchanged (a trial or another seed is never shipped)")
        return
    if args.name in CANDIDATES:
        print(f"the shipped agents are unchanged: {candidate_note(args.name)}")
        return
    where = "" if args.run_dir is None else f" --run-dir {run_dir}"
    print(
        f"the shipped agent is unchanged: `python -m training.recipes {args.name} --ship"
        f"{where}` replaces it with this one"
    )


def _member_main(args: argparse.Namespace) -> int:
    """One member's process (:mod:`training.recipes.members`): its exit status."""
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
