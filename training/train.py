"""Train a Big Two agent with Tianshou: ``python -m training.train [options]``.

Masked PPO (Tianshou's ``PPO``) or masked DQN (Tianshou's ``DQN``) on
:class:`envs.vector.Big2VectorEnv`: ``--envs`` games stepped together, experience
collected by :mod:`training.rollout` into Tianshou buffers, legal actions only end to
end. The learner plays one seat against ``--opponents`` (agent specs and ``self``:
frozen snapshots of itself), or every seat (``--opponents self-all``), or, with
``self-all`` among other opponents, a table drawn for each game (self-play, or one seat
against three of an entry; ``self`` there is prioritized fictitious self-play:
:mod:`training.pfsp`). ``--exploit AGENT`` measures how much a fresh learner takes from
an agent (:func:`exploit_settings`; ``RUN_DIR/exploit.json``). Every run writes
to its own directory: ``config.json``, TensorBoard logs (``tb/``), ``latest.pt`` and
``best.pt`` (the best evaluation: mean score, or win share for the ``win`` reward),
``evaluations.json`` (arena results against fixed opponents on fixed duplicate deals
after every epoch) and ``curve.png``. A directory that already holds a run is refused
unless ``--resume`` continues it or ``--overwrite`` replaces it (removing only what a run
writes: :mod:`training.rundir`); a run holds its directory's lock while it runs. A
directory that cannot be written in is refused before training starts; a disk that fills
up (or turns read-only) mid-run stops the run with a message saying what to do, its last
checkpoint intact, so ``--resume`` continues it once there is room again.
With no flags it trains as the shipped agent's first stage does (the defaults of
:class:`training.config.Config`; ``make train`` is that, shortened with ``--steps``);
``--recipe NAME`` starts from the settings of a shipped agent's first stage
(:mod:`training.recipes`), which the other flags change.

Randomness: every seed comes from one ``SeedSequence`` of ``--seed``
(:mod:`training.seeds`), by purpose and epoch. Tianshou draws from torch's and numpy's
global generators, so training runs inside :func:`scoped_seed`, which restores them
after, and every epoch reseeds them, the env's deals, the self-play pool's sampling and
DQN's exploration from its own number: a run resumed after epoch ``e`` goes on exactly as
the uninterrupted run does (PPO; a DQN run's replay buffer is not saved, so a resumed
one refills it).
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Collection
from contextlib import suppress
from pathlib import Path
from typing import Any

from tianshou.utils.torch_utils import policy_within_training_step

from big2.evaluation.backends import BackendError, make_backend
from big2.evaluation.processes import stop_on_sigterm
from envs.kernels.interrupts import signals_after_compiling
from training import checkpoint
from training.build import load_init, make_algorithm, scoped_seed
from training.config import RESUME_CHANGES, SELF, SELF_ALL, Config, parse_args
from training.loop import Run, RunState
from training.nets import torch_threads
from training.recipes.book import BOOK, REPORT_SEED
from training.rundir import RunDirectory, fault_message, is_disk_fault, write_whole
from training.seeds import seed_of
from training.spec import RunSpec


def train(cfg: Config, resume: dict[str, Any] | None = None, overwrite: bool = False) -> RunState:
    """Run training as configured (continuing ``resume``, a loaded checkpoint); the last state.

    Everything is checked before anything is written: a bad config, an ``--init``
    checkpoint that does not fit, a run directory that already holds a run (unless
    resuming it, or ``overwrite``) or that another run is using raises ``ValueError`` and
    leaves the disk as it was (:mod:`training.rundir`). A new run that stops before its
    first checkpoint removes what it wrote.
    """
    cfg.check()
    spec = RunSpec.of(cfg)  # the one resolution of the run's names
    directory = RunDirectory(cfg.run_dir)
    state = RunState() if resume is None else RunState.from_checkpoint(resume)
    with (
        directory.claim(fresh=resume is None, overwrite=overwrite),
        torch_threads(cfg.threads),
        scoped_seed(seed_of(cfg.seed, "init")),
    ):
        algorithm = make_algorithm(spec, progress=lambda: state.env_step / cfg.steps)
        if resume is not None:
            algorithm.load_state_dict(resume["state"])
        elif cfg.init:
            load_init(cfg, algorithm)  # a bad checkpoint fails here, before any file is written
        # a backend that cannot start (Ray without its extra) fails here, before any write
        with make_backend(cfg.backend, address=cfg.ray_address) as backend:
            if resume is None:
                directory.remove_run()  # what --overwrite replaces (checked: nothing else)
            config = json.dumps(cfg.to_dict(), indent=2).encode()
            write_whole(directory.path / "config.json", config)
            with policy_within_training_step(algorithm.policy):
                Run(spec, directory.path, algorithm, state, backend).run()
    return state


# the settings in which a run's saved config may differ from the config continuing it:
# what a resume may change, where it runs and what it started from (resume_or_start)
MAY_CHANGE_ON_RESUME = ("run_dir", "init", *RESUME_CHANGES)


def resume_or_start(cfg: Config, keep: Collection[str] = ()) -> dict[str, Any] | None:
    """The checkpoint that ``cfg``'s run continues from, or None: it starts.

    None when ``cfg.run_dir`` holds no checkpoint. Its ``latest.pt`` is continued when it
    holds a run of ``cfg``'s settings but for what a resume may change
    (:data:`training.config.RESUME_CHANGES`: ``steps``, ``max_minutes``, where it computes),
    where it runs (``run_dir``: a run directory may move) and what it started from
    (``init``: a moved recipe names its previous stage by another path, and a resumed run
    loads its own networks, not those). ``keep`` names settings of these that must not
    differ either (a study cell keeps its budget and its init: they are its result's).

    Anything else raises ValueError, having written nothing: a run of other settings,
    naming each that differs (``lr: 0.0001 there, 0.0003 here``); an exported agent (an
    agent, not a run: there is nothing to continue); a checkpoint that cannot be read
    (:class:`training.checkpoint.CheckpointError`: cut short, or not a checkpoint). What a
    caller then does is its own: a recipe stage refuses (``training.recipes``), a study
    cell starts again in its own run directory (``training.ablation.cell``).

    >>> resume_or_start(Config(run_dir="/nonexistent")) is None
    True
    """
    latest = Path(cfg.run_dir) / "latest.pt"
    if not RunDirectory(cfg.run_dir).checkpointed:
        return None
    data = checkpoint.load(latest)
    if data.get("exported"):
        raise ValueError(
            f"{latest} is an exported agent, not a run to continue: give another run directory"
        )
    try:
        saved = Config.from_dict(data["config"])
    except (TypeError, ValueError) as e:  # ValueError: a removed option (config.REMOVED)
        raise ValueError(f"{latest} holds a run this version cannot continue: {e}") from None
    may_change = set(MAY_CHANGE_ON_RESUME) - set(keep)
    differ = other_settings(saved, cfg, but=may_change)
    if differ:
        settings = "; ".join(f"{k}: {a!r} there, {b!r} here" for k, (a, b) in differ.items())
        raise ValueError(
            f"{cfg.run_dir} holds a run of other settings ({settings}): give another run "
            f"directory, or the run's own settings to continue it"
        )
    return data


def other_settings(
    theirs: Config, ours: Config, but: Collection[str] = ()
) -> dict[str, tuple[Any, Any]]:
    """The settings (all but ``but``) in which config ``theirs`` differs from ``ours``,
    each as its two values (tuples as lists), in the order of the Config's fields.

    >>> other_settings(Config(lr=1e-4, seed=1), Config(lr=3e-4), but=("seed",))
    {'lr': (0.0001, 0.0003)}
    """
    a, b = theirs.to_dict(), ours.to_dict()
    return {k: (a[k], b[k]) for k in b if k not in but and a[k] != b[k]}


# ------------------------------------------------------------------ exploitability

EXPLOIT_FILE = "exploit.json"  # an exploitability run's figure, in its run directory
BEST_KEYS = ("win_share", "win_share_ci", "mean_score", "mean_score_ci")  # of its best epoch


def exploit_settings(agent: str) -> dict[str, Any]:
    """What ``--exploit AGENT`` starts from: the defaults (a fresh learner of the shipped
    agent's network, PPO) for 2M decisions against three frozen copies of ``agent`` (one
    draw seats all three) in 256 games at once, evaluated against three of it on the
    recipes' 1,000 held-out deals (:data:`~training.recipes.book.REPORT_SEED`: the deals
    nothing was chosen on) every 250k, in ``runs/exploit/AGENT``, under the agent's own
    rules when it is a checkpoint.

    >>> settings = exploit_settings("greedy")
    >>> settings["opponents"], settings["eval_seed"], settings["run_dir"]
    (('greedy',), 20261124, 'runs/exploit/greedy')
    """
    folder = re.sub(r"[^\w@.+-]", "_", agent)  # a path's separators, and the like
    settings = {
        "opponents": (agent,),
        "opponent_draw": "game",
        "eval_opponents": (agent,),
        "eval_deals": 1000,
        "eval_seed": REPORT_SEED,
        "steps": 2_000_000,
        "epoch_steps": 250_000,
        "envs": 256,  # the frozen copies answer for 4 times the games per forward pass
        "run_dir": f"runs/exploit/{folder}",
    }
    with suppress(checkpoint.CheckpointError):  # not a checkpoint: --rules says
        settings["rules"] = checkpoint.load(agent)["config"]["rules"]
    return settings


def is_exploit(cfg: Config) -> bool:
    """Whether ``cfg`` is an exploitability run: a learner trained and evaluated against
    three of one agent, on the held-out deals (what ``--exploit`` sets up)."""
    one = len(cfg.opponents) == 1 and cfg.opponents[0] not in (SELF, SELF_ALL)
    return one and cfg.eval_opponents == cfg.opponents and cfg.eval_seed == REPORT_SEED


def exploit_report(cfg: Config, state: RunState) -> dict[str, Any]:
    """The exploitability figure of a finished run: the best evaluation of the learner
    against three of the agent (its win share, mean score, their intervals, when)."""
    best = max(state.history, key=lambda row: row["win_share"])
    return {
        "agent": cfg.opponents[0],
        "rules": cfg.rules,
        "decisions": state.env_step,
        "deals": cfg.eval_deals,
        "seed": cfg.eval_seed,
        "best": {k: best[k] for k in ("env_step", *BEST_KEYS)},
        "curve": [[row["env_step"], row["win_share"]] for row in state.history],
    }


def write_exploit(cfg: Config, state: RunState) -> str:
    """Write ``RUN_DIR/exploit.json``; the figure in words."""
    report = exploit_report(cfg, state)
    path = Path(cfg.run_dir) / EXPLOIT_FILE
    write_whole(path, json.dumps(report, indent=2).encode())
    best = report["best"]
    low, high = best["win_share_ci"]
    return (
        f"exploitability of {report['agent']}: a fresh learner reached a win share of "
        f"{best['win_share']:.3f} [{low:.3f}, {high:.3f}] (mean score {best['mean_score']:+.2f}) "
        f"against three of it, at {best['env_step']:,} of {report['decisions']:,} decisions "
        f"({report['deals']:,} deals of seed {report['seed']}); written to {path}"
    )


# ------------------------------------------------------------------ command line


def _what_is_kept(run_dir: str) -> str:
    if RunDirectory(run_dir).checkpointed:
        return f"continue from the last checkpoint with --resume {run_dir}"
    return "it stopped before its first checkpoint, so it left nothing behind"


def check_steps(resume: dict[str, Any], given: dict[str, Any], run_dir: str) -> None:
    """Refuse a ``--steps`` that would end resumed run ``run_dir`` before where it is (a
    config.json rewritten to a budget it has passed, and nothing trained); the run's own
    budget, given again, is no change.

    >>> check_steps({"env_step": 300, "config": {"steps": 400}}, {"steps": 200}, "runs/a")
    Traceback (most recent call last):
    ...
    ValueError: --steps 200: runs/a already trained 300 steps; give --steps above 300 to ...
    """
    steps, done = given.get("steps"), resume["env_step"]
    if steps is not None and steps < done and steps != resume["config"]["steps"]:
        raise ValueError(
            f"--steps {steps}: {run_dir} already trained {done:,} steps; give --steps above "
            f"{done:,} to extend it, or leave --steps out (its budget: "
            f"{resume['config']['steps']:,})"
        )


def main(argv: list[str] | None = None) -> None:
    stop_on_sigterm()  # SIGTERM unwinds like Ctrl-C: the lock is released, workers stop
    recipes = {name: recipe.settings() for name, recipe in BOOK.items()}
    given, resume_dir, overwrite = parse_args(argv, recipes, exploit_settings)
    resume = None
    if resume_dir:
        try:
            resume = checkpoint.load(Path(resume_dir) / "latest.pt")
        except checkpoint.CheckpointError as e:
            raise SystemExit(f"cannot resume: {e}") from None
        if resume.get("exported"):
            raise SystemExit(f"cannot resume: {resume_dir}/latest.pt is an exported agent")
        try:
            check_steps(resume, given, resume_dir)
        except ValueError as e:
            raise SystemExit(f"cannot resume: {e}") from None
        given = {**resume["config"], **given, "run_dir": resume_dir}  # only a few flags differ
    try:
        cfg = Config.from_dict(given) if resume else Config.from_settings(given)
    except (TypeError, ValueError) as e:  # ValueError: a removed option (config.REMOVED)
        raise SystemExit(f"training: bad configuration: {e}") from None
    start = time.time()
    try:
        with signals_after_compiling():  # Ctrl-C inside numba's compiler would crash it
            final = train(cfg, resume, overwrite)
    except (ValueError, ImportError) as e:  # ImportError: the backend's missing extra
        raise SystemExit(f"training: {e}") from None
    except BackendError as e:  # a rollout actor was lost: the last checkpoint resumes
        raise SystemExit(f"training: {e}; resume with --resume {cfg.run_dir}") from None
    except OSError as e:  # a full disk, one turned read-only: the last checkpoint resumes
        if not is_disk_fault(e):
            raise
        raise SystemExit(f"training: {fault_message(e, cfg.run_dir)}") from None
    except KeyboardInterrupt:
        print(f"training: interrupted; {_what_is_kept(cfg.run_dir)}", file=sys.stderr)
        raise SystemExit(130) from None
    print(f"done in {time.time() - start:.0f} s: {final.env_step:,} env steps")
    run = cfg.run_dir
    print(f"checkpoints: {run}/latest.pt, {run}/best.pt; learning curve: {run}/curve.png")
    if is_exploit(cfg) and final.env_step >= cfg.steps and final.history:
        print(write_exploit(cfg, final))


if __name__ == "__main__":
    main()
