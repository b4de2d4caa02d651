"""Export a trained agent: ``python -m training.export RUN_DIR/best.pt OUT.pt``.

Keeps the run's config, evaluation history and the acting network's weights; drops
the critic, the optimizer state and the self-play snapshots, so the file is small
enough to commit (the shipped agents are ``training/agents/NAME.pt``, which
``python -m training.recipes NAME --ship`` replaces). An exported file plays
(``big2 play --opponents OUT.pt``) but cannot be resumed.

Several checkpoints export as one agent, their ensemble (:mod:`training.ensemble`):
``python -m training.export A/best.pt B/best.pt OUT.pt``; ``--member M`` exports one
member of an ensemble as an agent of its own (``python -m training.export trained
--member 0 OUT.pt``), which a run can start from (``--init``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training import checkpoint
from training.build import architecture_differences
from training.checkpoint import CheckpointError
from training.cli import command

ACTING = ("policy.actor.", "policy.model.")
ACTOR = ACTING[0]  # PPO's: the only acting weights an ensemble combines


def export_agent(source: Path | str, target: Path | str) -> int:
    """Write the playing part of checkpoint ``source`` to ``target``; its size in bytes."""
    return write(target, agent_data(source))


def write(target: Path | str, data: dict[str, Any]) -> int:
    """Save checkpoint ``data`` to ``target``; its size in bytes."""
    checkpoint.save(target, data)
    return Path(target).stat().st_size


def agent_data(source: Path | str) -> dict[str, Any]:
    """The playing part of checkpoint ``source``: what :func:`export_agent` writes."""
    data = checkpoint.load(source)
    weights = {k: v for k, v in data["state"].items() if k.startswith(ACTING)}
    return {**data, "state": weights, "snapshots": [], "exported": True}


def export_ensemble(sources: Sequence[Path | str], target: Path | str) -> int:
    """Write the ensemble of the checkpoints ``sources`` to ``target``; its size in bytes."""
    return write(target, ensemble_data(sources))


def ensemble_data(sources: Sequence[Path | str]) -> dict[str, Any]:
    """The checkpoint of the :class:`~training.ensemble.Ensemble` of the checkpoints
    ``sources``: their acting weights under ``policy.actor.members.<m>.``, the first one's
    config, and beside them ``members`` (their number) and ``member_runs`` (each one's
    seed, run directory, decisions and evaluations). :class:`CheckpointError` says which
    source does not fit, and why."""
    if len(sources) < 2:
        raise CheckpointError(f"an ensemble needs at least 2 checkpoints, got {len(sources)}")
    datas = [checkpoint.load(s) for s in sources]
    for source, data in zip(sources, datas, strict=True):
        _check_member(source, data, sources[0], datas[0]["config"])
    state = {
        f"{ACTOR}members.{m}.{k[len(ACTOR) :]}": v
        for m, data in enumerate(datas)
        for k, v in data["state"].items()
        if k.startswith(ACTOR)
    }
    runs = [
        {
            "seed": d["config"]["seed"],
            "run_dir": d["config"]["run_dir"],
            "env_step": d["env_step"],
            "history": d["history"],
        }
        for d in datas
    ]
    return {
        "config": datas[0]["config"],
        "state": state,
        "epoch": 0,
        "env_step": sum(d["env_step"] for d in datas),
        "update_step": sum(d["update_step"] for d in datas),
        "history": [],
        "snapshots": [],
        "exported": True,
        "members": len(datas),
        "member_runs": runs,
    }


def member_data(source: Path | str, member: int) -> dict[str, Any]:
    """Member ``member`` of the ensemble checkpoint ``source``, as an exported agent of its
    own (its weights, seed, run directory, decisions and evaluations)."""
    data = checkpoint.load(source)
    count = data.get("members", 0)
    if not count:
        raise CheckpointError(f"{source} is no ensemble: it has no members to choose from")
    if not 0 <= member < count:
        raise CheckpointError(f"{source} has members 0 to {count - 1}, not {member}")
    prefix = f"{ACTOR}members.{member}."
    state = {ACTOR + k[len(prefix) :]: v for k, v in data["state"].items() if k.startswith(prefix)}
    run = data["member_runs"][member]
    config = {**data["config"], "seed": run["seed"], "run_dir": run["run_dir"]}
    return {
        "config": config,
        "state": state,
        "epoch": 0,
        "env_step": run["env_step"],
        "update_step": 0,
        "history": run["history"],
        "snapshots": [],
        "exported": True,
    }


def _check_member(
    source: Path | str, data: dict[str, Any], first: Path | str, first_config: dict[str, Any]
) -> None:
    """Raise :class:`CheckpointError` unless ``source`` can join an ensemble with ``first``."""
    if data.get("members"):
        raise CheckpointError(f"{source} is an ensemble already: name its members instead")
    if checkpoint.config_of(data).algo != "ppo":
        raise CheckpointError(f"{source} is a DQN checkpoint: only PPO policies combine")
    differ = architecture_differences(data["config"], first_config, f"in {first}")
    if differ:
        raise CheckpointError(f"{source} has another architecture ({'; '.join(differ)})")


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m training.export", __doc__)
    parser.add_argument("source", nargs="+", help="a checkpoint, or several for their ensemble")
    parser.add_argument("target")
    parser.add_argument("--member", type=int, help="export this member of an ensemble")
    args = parser.parse_args(argv)
    if args.member is not None and len(args.source) > 1:
        parser.error("--member takes one ensemble, not several checkpoints")
    try:
        if args.member is not None:
            size = write(args.target, member_data(args.source[0], args.member))
        elif len(args.source) == 1:
            size = export_agent(args.source[0], args.target)
        else:
            size = export_ensemble(args.source, args.target)
    except CheckpointError as e:
        raise SystemExit(f"export: {e}") from None
    print(f"wrote {args.target} ({size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
