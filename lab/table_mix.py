"""Do more tables of the predecessor lift a candidate's win share against it?
``python -m lab.table_mix --arm recipe`` and ``--arm predecessor``, side by side.

Each arm continues the same candidate member where a finished stage of its recipe left it
(by default ``trained-charlesworth``, the candidate ``population-charlesworth`` that
shipped, member 0 after stage 4, from its run directory ``runs/recipes/NAME``) for
``--steps`` decisions, evaluating every ``--epoch-steps`` on the validation deals.
``recipe`` is the recipe's own next stage (a fifth of its tables self-play, three in
twenty the predecessor: about 9% of the learner's decisions);
``predecessor`` puts the predecessor at eight tables in twenty, taken from self-play,
past selves and heuristic players (about 28% of the decisions). Everything else (seed,
learning rate, collections, snapshots) is the recipe's stage. Each arm's run directory
is ``--out/ARM``; run the same command again to continue one cut short
(``--max-minutes``).

Found (2026-12-03, lab/notes.md, "More tables of the predecessor";
``population-charlesworth`` member 0 after stage 4, 16M decisions, 2M more per arm, 200
validation deals of seed 12345): against three ``trained-charlesworth@2026-11-28`` the
recipe's own mix won 0.279, 0.297, 0.292, 0.295 at its four epochs and the predecessor at
eight tables 0.281, 0.281, 0.296, 0.290: no difference beyond the noise of 200 deals, so
the mix is not what holds the candidates at 0.27-0.30. Against three random / greedy /
heuristic players they ended at 0.855 / 0.535 / 0.414 and 0.876 / 0.540 / 0.426.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace
from pathlib import Path

from training.cli import command
from training.config import SELF_ALL, Config
from training.recipes.book import BOOK, Recipe
from training.train import resume_or_start, train

ARMS = ("recipe", "predecessor")


def predecessor_tables(recipe: Recipe, k: int) -> tuple[str, ...]:
    """Stage ``k``'s tables with the predecessor (the agent the recipe starts from) at
    eight in twenty: three self-play, three past selves, two heuristic, and the rest as
    they were (two of the one before it, a greedy and a random table).

    >>> from training.recipes.book import CANDIDATES
    >>> tables = predecessor_tables(CANDIDATES["population"], 4)
    >>> len(tables), tables.count("trained@2026-11-28"), tables.count("self-all")
    (20, 8, 3)
    """
    tables = recipe.settings(k)["opponents"]
    counts = Counter(tables)
    counts.update({recipe.start: 8 - counts[recipe.start]})
    counts.update({SELF_ALL: 3 - counts[SELF_ALL], "self": 3 - counts["self"]})
    counts.update({"heuristic": 2 - counts["heuristic"]})
    out = tuple(t for t in dict.fromkeys(tables) for _ in range(counts[t]))
    if len(out) != len(tables):
        raise ValueError(f"{recipe.name}'s stage {k + 1} is not a population stage of 20 tables")
    return out


def arm_config(args: argparse.Namespace) -> Config:
    """The Config of ``args.arm``: stage ``args.stage + 1`` of the recipe's member, from
    the networks its stage ``args.stage`` left, in ``args.out / arm``."""
    recipe = BOOK[args.recipe]
    k = args.stage  # the stage after the one finished (stages count from 0 here)
    cfg = recipe.config(k, args.recipe_dir or Path("runs/recipes") / recipe.name, args.member)
    cfg = replace(cfg, run_dir=str(args.out / args.arm), steps=args.steps)
    cfg = replace(cfg, epoch_steps=args.epoch_steps, max_minutes=args.max_minutes)
    if args.arm == "predecessor":
        cfg = replace(cfg, opponents=predecessor_tables(recipe, k))
    if not Path(cfg.init).is_file():
        raise SystemExit(f"table_mix: {cfg.init} is missing: finish stage {k} of {recipe.name}")
    return cfg


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m lab.table_mix", __doc__)
    parser.add_argument("--arm", choices=ARMS, required=True)
    parser.add_argument("--recipe", default="trained-charlesworth", choices=sorted(BOOK))
    parser.add_argument("--stage", type=int, default=4, help="the stage finished (from 1)")
    parser.add_argument("--member", type=int, default=0)
    parser.add_argument("--recipe-dir", type=Path, help="the recipe's run directory")
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--epoch-steps", type=int, default=500_000)
    parser.add_argument("--max-minutes", type=float, default=0.0)
    parser.add_argument("--out", type=Path, default=Path("runs/lab/table_mix"))
    cfg = arm_config(parser.parse_args(argv))
    train(cfg, resume_or_start(cfg))


if __name__ == "__main__":
    main()
