"""One study cell, in its own process: ``python -m training.ablation.cell CELL_DIR [PARENT]``.

Reads ``CELL_DIR/cell.json`` (the cell's training config and the report deals), trains
into ``CELL_DIR/run``, evaluates the final policy (no best-epoch choice) on
the report deals against every evaluation opponent, and writes ``CELL_DIR/result.json``
atomically: the last thing a finished cell does. A cell cut short earlier (a study
stopped, a session ended) continues from its run's last checkpoint when that run was
trained as this cell says, and starts again otherwise: resumed PPO goes on as the run
whole does (:mod:`training.train`), so the same seed always gives the same curve, and a
stopped cell loses at most an epoch. ``CELL_DIR/attempt.json`` carries the seconds the
earlier attempts spent up to that checkpoint into the result's times. A cell that raises writes
``CELL_DIR/error.json`` with the traceback and exits with status 1. The process holds
the cell directory's lock while it lives, and ends when process ``PARENT`` (the study's
runner) does, however that ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from big2.evaluation.processes import die_with_parent
from training.lock import DirectoryLock, Locked

if TYPE_CHECKING:
    from training.config import Config

RESULT, ERROR, SPEC, LOG = "result.json", "error.json", "cell.json", "log.txt"
ATTEMPT = "attempt.json"  # what the earlier attempts of a resumed cell kept: seconds, steps


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` atomically (a reader sees the old file or the new one)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def run(directory: Path) -> dict[str, Any]:
    """Train and evaluate the cell described in ``directory/cell.json``; its result."""
    return run_spec(json.loads((directory / SPEC).read_text(encoding="utf-8")))


def run_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """Train and evaluate the cell ``spec`` describes (a ``cell.json``); its result.

    Runs wherever it is called: in the cell's own process, or in a Ray worker, which
    hands the result back to the study (the training run stays on that machine).
    """
    import torch

    from training import checkpoint
    from training.config import Config
    from training.loop import learner_results
    from training.train import train

    cfg = Config.from_dict(spec["config"])
    torch.set_num_threads(cfg.threads)
    start = time.monotonic()
    resume = resumable(cfg)
    earlier = _attempt(Path(cfg.run_dir), resume)
    state = train(cfg, resume, overwrite=resume is None)
    trained = earlier["seconds"] + time.monotonic() - start
    net = checkpoint.actor_from(checkpoint.load(Path(cfg.run_dir) / "latest.pt"))
    report: dict[str, Any] = {}
    for opponent in cfg.eval_opponents:
        deals = learner_results(cfg, net, opponent, spec["report_deals"], spec["report_seed"])
        report[opponent] = {"wins": [w for w, _ in deals], "scores": [s for _, s in deals]}
    return {
        "setting": spec["setting"],
        "seed": cfg.seed,
        "config": spec["config"],
        "steps": state.env_step,
        "train_seconds": trained,
        "wall_seconds": earlier["seconds"] + time.monotonic() - start,
        "resumed_from": earlier["resumed_from"],
        "curve": state.history,
        "report_seed": spec["report_seed"],
        "report_deals": spec["report_deals"],
        "report": report,
        "machine": machine(),
    }


def machine() -> str:
    """This machine as data: cores, CPU model, Python (a cell's result records it)."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def resumable(cfg: Config) -> dict[str, Any] | None:
    """The last checkpoint of the cell's run to continue from; None: the cell starts again.

    The rule of every resumed run (:func:`training.train.resume_or_start`), the cell's
    budget (``steps``) and its ``init`` kept as well, since its result depends on them.
    Where the rule refuses the run directory's checkpoint (a run of other settings, one
    cut mid-write, an exported agent), the cell starts again instead: the directory is the
    cell's own, and what it holds is an unfinished run that no result depends on (the
    runner refuses a study whose finished cells differ, and lets one that finished none
    take new settings).

    >>> from training.config import Config
    >>> resumable(Config(run_dir="/nonexistent")) is None
    True
    """
    from training.train import resume_or_start

    try:
        return resume_or_start(cfg, keep=("steps", "init"))
    except ValueError:  # CheckpointError included
        return None


def _attempt(run_dir: Path, resume: dict[str, Any] | None) -> dict[str, Any]:
    """Record this attempt in ``attempt.json`` beside the run; what the earlier ones did.

    The seconds of the earlier attempts that the run keeps (each from its training's
    start, when the run's ``config.json`` was written, to the checkpoint it resumes; an
    attempt that stopped before writing it adds nothing) and the steps each later attempt
    resumed from.
    """
    path = run_dir.parent / ATTEMPT
    earlier: dict[str, Any] = {"seconds": 0.0, "resumed_from": [], "counted": None}
    if resume is not None:
        with contextlib.suppress(OSError, ValueError):  # else cut short before attempts
            earlier = json.loads(path.read_text(encoding="utf-8"))  # were recorded
        kept = 0.0
        with contextlib.suppress(OSError):  # no config.json: its seconds are unknown
            started = (run_dir / "config.json").stat().st_mtime
            if started != earlier.get("counted"):
                kept = max((run_dir / "latest.pt").stat().st_mtime - started, 0.0)
            earlier["counted"] = started
        earlier = {
            "seconds": float(earlier.get("seconds", 0.0)) + kept,
            "resumed_from": [*earlier.get("resumed_from", []), resume["env_step"]],
            "counted": earlier.get("counted"),
        }
    write_json(path, earlier)
    return earlier


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or (len(args) == 2 and not args[1].isdigit()):
        print("usage: python -m training.ablation.cell CELL_DIR [PARENT_PID]", file=sys.stderr)
        return 2
    if len(args) == 2:
        die_with_parent(int(args[1]))
    directory = Path(args[0])
    try:
        with DirectoryLock(directory, "cell"):
            return _run_and_record(directory)
    except Locked as e:
        print(f"cell: {e}", file=sys.stderr)
        return 1


def _run_and_record(directory: Path) -> int:
    try:
        result = run(directory)
    except BaseException as e:
        error = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        write_json(directory / ERROR, error)
        traceback.print_exc()
        return 1
    write_json(directory / RESULT, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
