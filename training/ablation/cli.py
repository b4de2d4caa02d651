"""Run an ablation study: every setting x seed trained alike, then a table and plots.

    python -m training.ablation --observers simple card_counting history planes \\
        charlesworth oracle --seeds 3 --steps 400000 --run-dir studies/observers \\
        [--set KEY=VALUE ...] [--grid KEY=V1,V2 ...] [--baseline NAME] [--workers 2]
        [--backend ray [--ray-address ADDR]]

or the same as a TOML file (``--study study.toml``; flags given beside it override it)::

    observers = ["simple", "planes"]
    seeds = 3
    steps = 400000
    [fixed]
    epoch_steps = 40000
    [grid]
    critic_observer = ["oracle", ""]

``--set`` (a study file's ``[fixed]`` table, the name ``study.json`` keeps) fixes any
``training.train`` option for every cell (tuple options take space-separated values:
``--set "hidden=512 256"``); ``--grid`` varies one beside the observer (comma-separated
values; an empty value is the empty string). An unknown key, or a value of the wrong type
or outside its choices, is refused before anything is written. Re-running the same
command skips finished cells and rebuilds the report; other settings are refused.
``--reuse DIR`` takes the finished cells of another study that train exactly as cells
of this one (:mod:`training.ablation.reuse`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from big2.evaluation import backends
from envs.kernels.interrupts import signals_after_compiling
from training.ablation.report import write_report
from training.ablation.reuse import reuse_cells
from training.ablation.runner import prepare, run_cells
from training.ablation.study import Study
from training.cli import command
from training.lock import locked

# how it runs, not what it is
RUN_OPTIONS = ("run_dir", "workers", "backend", "ray_address", "reuse")


@dataclass(frozen=True)
class RunOptions:
    """How a study runs: where it writes, and where and how widely its cells run."""

    run_dir: Path
    workers: int = 1
    backend: str = "local"
    ray_address: str = ""
    progress: bool = True
    reuse: tuple[Path, ...] = ()  # studies whose finished cells this one may take


def parse(argv: list[str]) -> tuple[Study, RunOptions]:
    """The study, and how to run it."""
    parser = _parser()
    args = vars(parser.parse_args(argv))
    data = _merged(args)
    known = sorted({f.name for f in fields(Study)} - {"command"} | set(RUN_OPTIONS))
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown study keys {unknown}; expected some of {known}")
    run = {k: data.pop(k) for k in RUN_OPTIONS if data.get(k) is not None}
    _check_run(run)
    if not run.get("run_dir"):
        parser.error("a study needs --run-dir (or run_dir in the study file)")
    command = "python -m training.ablation " + shlex.join(argv)
    study = Study.from_dict(data, command=command)
    run["run_dir"] = Path(run["run_dir"])
    reuse = run.pop("reuse", ())
    run["reuse"] = tuple(Path(d) for d in ([reuse] if isinstance(reuse, str) else reuse))
    return study, RunOptions(**run, progress=not args["no_progress"])


def _parser() -> argparse.ArgumentParser:
    """The command line's flags (a study file's keys, spelled as flags)."""
    parser = command("python -m training.ablation", __doc__)
    parser.add_argument("--study", type=Path, help="a TOML study file")
    parser.add_argument("--observers", nargs="+")
    parser.add_argument("--seeds", type=int)
    parser.add_argument("--steps", type=int, help="learner decisions per cell")
    parser.add_argument("--run-dir", dest="run_dir")
    parser.add_argument("--set", dest="fixed", action="append", metavar="KEY=VALUE")
    parser.add_argument("--grid", action="append", metavar="KEY=V1,V2")
    parser.add_argument("--baseline", help="the setting differences are taken against")
    parser.add_argument("--report-deals", dest="report_deals", type=int)
    parser.add_argument("--report-seed", dest="report_seed", type=int)
    parser.add_argument("--threads", type=int, help="torch threads per cell (default 1)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--reuse",
        action="append",
        metavar="DIR",
        help="take the finished cells of the study in DIR that train as "
        "cells of this one (training.ablation.reuse)",
    )
    backends.add_arguments(parser, default=None)
    return parser


def _check_run(run: dict[str, Any]) -> None:
    """Raise ValueError for a run option of the wrong type (from a study file).

    >>> _check_run({"workers": "2"})
    Traceback (most recent call last):
    ValueError: study key 'workers' takes an integer, got '2'
    """
    for key, value in run.items():
        kind = int if key == "workers" else str
        values = value if key == "reuse" and isinstance(value, list) else [value]
        if not all(isinstance(v, kind) and not isinstance(v, bool) for v in values):
            words = "an integer" if kind is int else "text"
            raise ValueError(f"study key {key!r} takes {words}, got {value!r}")


def _merged(args: dict[str, Any]) -> dict[str, Any]:
    """The study file's keys (if ``--study``) with the flags given beside it on top:
    ``--set`` and ``--grid`` add to or replace the file's single options."""
    data: dict[str, Any] = {}
    if args["study"] is not None:
        data = _read_toml(args["study"])
        if "set" in data:
            raise ValueError(
                f"study file {args['study']}: the options every cell shares are "
                f"the table [fixed] (as study.json keeps them), not [set]; "
                f"rename it"
            )
    given = {k: v for k, v in args.items() if v is not None and k not in ("study", "no_progress")}
    if "fixed" in given:
        fixed = _assignments(given.pop("fixed"), "--set")
        data["fixed"] = {**_table(data, "fixed"), **fixed}
    if "grid" in given:
        grid = {k: v.split(",") for k, v in _assignments(given.pop("grid"), "--grid").items()}
        data["grid"] = {**_table(data, "grid"), **grid}
    data.update(given)
    return data


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    """The study file's table ``key`` (empty if it has none), to add flags to."""
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise ValueError(f"study key {key!r} takes a table of options, got {table!r}")
    return table


def _read_toml(path: Path) -> dict[str, Any]:
    """A study file's table; ``ValueError`` naming the file if it cannot be read."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"cannot read study file {path}: {e}") from None


def _assignments(items: list[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` items of ``flag`` as a table (dashes in keys read as underscores).

    >>> _assignments(["eval-deals=200", "hidden=512 256"], "--set")
    {'eval_deals': '200', 'hidden': '512 256'}
    """
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} takes KEY=VALUE, got {item!r}")
        out[key.strip().replace("-", "_")] = value
    return out


def main(argv: list[str] | None = None) -> None:
    """Run a study from the command line: train its unfinished cells, write its report."""
    args = sys.argv[1:] if argv is None else argv
    try:
        study, run = parse(args)
        study.check()
        # before anything is written: a backend that cannot start (Ray without its extra)
        backend = backends.make_backend(run.backend, run.workers, run.ray_address)
    except (ValueError, ImportError) as e:  # ImportError: the backend's missing extra
        raise SystemExit(f"ablation: {e}") from None
    try:
        # one runner per study directory; Ctrl-C inside numba's compiler would crash it
        with backend, locked(run.run_dir, "study"), signals_after_compiling():
            cells = prepare(study, run.run_dir)
            if run.reuse:
                reused = reuse_cells(cells, study, run.reuse)
                print(reused.describe(", ".join(map(str, run.reuse))))
            outcomes = run_cells(cells, study, run.workers, run.progress, backend)
            paths = write_report(study, outcomes, run.run_dir, getattr(backend, "lost", ()))
    except ValueError as e:  # StudyMismatch, Locked
        raise SystemExit(f"ablation: {e}") from None
    except KeyboardInterrupt:
        kept = "finished cells are kept, and re-running the same command runs the rest"
        print(f"ablation: interrupted; {kept}", file=sys.stderr)
        raise SystemExit(130) from None
    failed = [o for o in outcomes if o.result is None]
    print(
        f"{len(outcomes) - len(failed)} of {len(outcomes)} cells finished; wrote "
        f"{', '.join(str(p) for p in paths)}"
    )
    if failed:
        print(f"{len(failed)} cells failed (re-run the same command to retry them):")
        for o in failed:
            print(f"  {o.cell.name}: {o.error.splitlines()[0]}")
        raise SystemExit(1)
