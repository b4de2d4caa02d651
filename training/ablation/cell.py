"""One study cell, in its own process: ``python -m training.ablation.cell CELL_DIR [PARENT]``.

Reads ``CELL_DIR/cell.json`` (the cell's training config and the report deals), trains
from scratch into ``CELL_DIR/run`` (a cell cut short earlier is restarted, so the same
seed always gives the same curve), evaluates the final policy (no best-epoch choice) on
the report deals against every evaluation opponent, and writes ``CELL_DIR/result.json``
atomically: the last thing a finished cell does. A cell that raises writes
``CELL_DIR/error.json`` with the traceback and exits with status 1. The process holds
the cell directory's lock while it lives, and ends when process ``PARENT`` (the study's
runner) does, however that ends.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from big2.evaluation.processes import die_with_parent
from training.lock import DirectoryLock, Locked

RESULT, ERROR, SPEC, LOG = "result.json", "error.json", "cell.json", "log.txt"


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

    from big2.evaluation import deal_results
    from big2.rules import get as get_rules
    from training import checkpoint
    from training.config import Config
    from training.loop import learner_agent
    from training.train import train

    cfg = Config.from_dict(spec["config"])
    torch.set_num_threads(cfg.threads)
    start = time.monotonic()
    state = train(cfg, overwrite=True)
    trained = time.monotonic() - start
    net = checkpoint.actor_from(checkpoint.load(Path(cfg.run_dir) / "latest.pt"))
    agent = learner_agent(cfg, net)
    report: dict[str, Any] = {}
    for opponent in cfg.eval_opponents:
        deals = deal_results([agent, opponent, opponent, opponent], spec["report_deals"],
                             spec["report_seed"], get_rules(cfg.rules))  # fmt: skip
        report[opponent] = {"wins": [d[0][0] for d in deals], "scores": [d[0][1] for d in deals]}
    return {
        "setting": spec["setting"], "seed": cfg.seed, "config": spec["config"],
        "steps": state.env_step, "train_seconds": trained,
        "wall_seconds": time.monotonic() - start, "curve": state.history,
        "report_seed": spec["report_seed"], "report_deals": spec["report_deals"],
        "report": report,
    }  # fmt: skip


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
        write_json(directory / ERROR, {"error": f"{type(e).__name__}: {e}",
                                       "traceback": traceback.format_exc()})  # fmt: skip
        traceback.print_exc()
        return 1
    write_json(directory / RESULT, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
