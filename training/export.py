"""Export a trained agent: ``python -m training.export RUN_DIR/best.pt OUT.pt``.

Keeps the run's config, evaluation history and the acting network's weights; drops
the critic, the optimizer state and the self-play snapshots, so the file is small
enough to commit (the shipped agent is ``training/agents/trained.pt``). An exported
file plays (``big2 play --opponents OUT.pt``) but cannot be resumed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training import checkpoint

ACTING = ("policy.actor.", "policy.model.")


def export_agent(source: Path | str, target: Path | str) -> int:
    """Write the playing part of checkpoint ``source`` to ``target``; its size in bytes."""
    data = checkpoint.load(source)
    weights = {k: v for k, v in data["state"].items() if k.startswith(ACTING)}
    checkpoint.save(target, {**data, "state": weights, "snapshots": [], "exported": True})
    return Path(target).stat().st_size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.export", description=__doc__)
    parser.add_argument("source")
    parser.add_argument("target")
    args = parser.parse_args(argv)
    try:
        size = export_agent(args.source, args.target)
    except checkpoint.CheckpointError as e:
        raise SystemExit(f"export: {e}") from None
    print(f"wrote {args.target} ({size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
