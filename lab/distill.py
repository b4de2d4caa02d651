"""Does distilling search into the policy make it play better without search?
``python -m lab.distill CHECKPOINT --run-dir DIR``.

Search at play time (``NAME+search``, :mod:`big2.players.search`) wins more than the
policy it starts from, because it tries the policy's likeliest moves on sampled deals.
Distillation hands that gain back to the policy, so it would play better without search
(and make a better prior for it):

1. **Label.** The policy plays with search (``CHECKPOINT+search``) in one seat of arena
   games against three copies of each of ``--opponents`` (``--deals`` duplicate deals
   of each, seeded by ``--seed``), and at every decision the
   search weighed, :class:`Recorder` keeps what the policy is asked (its observation,
   legal actions and plan features, built by the agent's own
   :meth:`~envs.policy_agent.PolicyAgent.inputs`) and the search's move: one
   :class:`Labels` set, saved as ``labels.npz``.
2. **Fit.** The actor is trained to put the search's move first (cross-entropy over its
   legal actions, Adam), ``--epochs`` passes over the labels in a seeded order; after
   each pass it plays the arena on the validation deals (the checkpoint's
   ``eval_opponents``, ``eval_deals``, ``eval_seed``), exactly like a training epoch.
   ``best.pt`` is the pass with the best mean win share (mean score for a checkpoint not
   trained on the ``win`` reward); the starting policy counts as pass 0, so distillation
   never ships a policy that evaluated worse than the one it started from.

The run directory follows :mod:`training.rundir` like a training run (refused when it
holds files, locked while it runs; a run that stops before its first checkpoint removes
its ``labels.npz`` and ``distill.json``); running the same command again continues where
a run stopped: labels once saved are kept, and fitting goes on from its last finished
pass (``--epochs`` may grow); labelling is its smallest unit of work. Its seeds are
drawn as :func:`training.seeds.seed_of` draws a run's, under purposes of its own
(:func:`seed_of`), so its labels and passes are those it made in the product.

Found (2026-11-25, lab/notes.md, "What distilling search did"): nothing measurable for
the agents shipped on 2026-11-24 (one network each). Run from each with its defaults
(``--seed 2``), the best pass gained at most 1-2 points on the validation deals, inside
their noise, and on the 1,000 held-out deals of seed 20261124 ``trained-charlesworth``
distilled won 0.838 / 0.500 / 0.316 against random / greedy / heuristic players where
it had won 0.835 / 0.504 / 0.310. The labels agree with the policy's own choice most of
the time (the fit starts at 0.42-0.51 nats), and the search's gain rests on rollouts to
the end of sampled deals, which one move's label does not carry. So it was not kept: it
left the product (``training.distill``, its run files and seed purposes) on 2026-12-01.
A shipped agent is an ensemble now: distil one of its members
(``python -m training.export trained --member 0 member0.pt``).

>>> Settings("trained", "runs/d", deals=0).check()
Traceback (most recent call last):
...
ValueError: deals must be at least 1, got 0
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from big2.evaluation import evaluate
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.log import Thought
from big2.players import load_agent
from big2.players.search import SearchAgent
from envs.kernels.interrupts import signals_after_compiling
from envs.policy_agent import PolicyAgent
from training import checkpoint
from training.cli import command
from training.config import Config
from training.loop import epoch_scores, evaluate_policy, selection_key
from training.nets import MaskedActor, torch_threads
from training.plot import plot_curve
from training.rundir import RunDirectory

LABELS = "labels.npz"
SETTINGS = "distill.json"
OWN_FILES = (LABELS, "labels.tmp.npz", SETTINGS)  # besides a training run's (training.rundir)
# this experiment's seed purposes, at the places they held in training.seeds.PURPOSES
PURPOSES = {"label": 5, "fit": 6}
# what a continued run may change: how long it fits, never what it learns from
CONTINUE_CHANGES = ("epochs", "threads")


def seed_of(seed: int, purpose: str, *keys: int) -> int:
    """The 32-bit seed of ``purpose`` (``label`` or ``fit``) at ``keys`` in the run seeded
    ``seed``, drawn as :func:`training.seeds.seed_of` draws a training run's.

    >>> seed_of(2, "fit", 0) == seed_of(2, "fit", 0) != seed_of(2, "label", 0)
    True
    """
    sequence = np.random.SeedSequence(seed, spawn_key=(PURPOSES[purpose], *keys))
    return int(sequence.generate_state(1, np.uint32)[0])


@dataclass(frozen=True)
class Labels:
    """Positions the search decided, as the policy sees them: observation (N, D),
    legal action ids (N, K, padded with -1), plan features (N, K, F) or None, and the
    search's move as a position in each row's legal ids (N,)."""

    observation: np.ndarray
    legal: np.ndarray
    plan: np.ndarray | None
    target: np.ndarray

    def __len__(self) -> int:
        return len(self.target)

    def save(self, path: Path) -> None:
        arrays = {k: v for k, v in asdict(self).items() if v is not None}
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Labels:
        with np.load(path) as data:
            plan = data.get("plan")
            return cls(data["observation"], data["legal"], plan, data["target"])

    @classmethod
    def stack(cls, rows: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]]) -> Labels:
        """Labels from :class:`Recorder` rows (obs, legal ids, plan rows, target)."""
        if not rows:
            raise ValueError("no positions were labelled: the search made no decision")
        width = max(len(r[1]) for r in rows)
        legal = np.full((len(rows), width), -1, dtype=np.int32)
        plan = None
        if rows[0][2] is not None:
            plan = np.zeros((len(rows), width, rows[0][2].shape[1]), dtype=np.int8)
        for i, (_, ids, features, _) in enumerate(rows):
            legal[i, : len(ids)] = ids
            if plan is not None and features is not None:
                plan[i, : len(ids)] = features
        obs = np.stack([r[0] for r in rows]).astype(np.float32)
        return cls(obs, legal, plan, np.array([r[3] for r in rows], dtype=np.int64))


class Recorder:
    """Plays like ``search``; at each decision it weighed, keeps the inputs ``policy``
    would get and the position of the search's move among the legal actions."""

    def __init__(self, search: SearchAgent, policy: PolicyAgent) -> None:
        self.search, self.policy, self.name = search, policy, search.name
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]] = []
        self.last_thought: Thought | None = None

    def reset(self, seed: int) -> None:
        self.search.reset(seed)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        move = self.search.act(view, legal_moves)
        self.last_thought = self.search.last_thought
        if self.last_thought is not None:  # a real choice (not a forced move)
            obs, mask, *plan = self.policy.inputs(view, legal_moves)
            ids = np.flatnonzero(mask)
            position = int(np.searchsorted(ids, self.policy.codec.encode(move, view.hand)))
            self.rows.append((obs, ids.astype(np.int32), plan[0] if plan else None, position))
        return move


def label(source: str, opponents: list[str], deals: int, seed: int) -> Labels:
    """Play ``source+search`` against three copies of each opponent on ``deals`` duplicate
    deals of ``seed`` (its own seed per opponent) and record the search's decisions."""
    policy = checkpoint.load_agent(source)
    rules = policy.codec.rules
    # the heuristic's rollouts, as when distillation was measured (docs/training.md); the
    # policy's own would label about five times slower
    search = load_agent(f"{source}+search", rules, rollouts="heuristic")
    assert isinstance(search, SearchAgent)
    recorder = Recorder(search, policy)
    for k, name in enumerate(opponents):
        evaluate(
            [recorder, name, name, name], deals, seed_of(seed, "label", k), rules, progress=True
        )
    return Labels.stack(recorder.rows)


def minibatch_pass(
    net: MaskedActor,
    optim: torch.optim.Optimizer,
    order: np.ndarray,
    batch_size: int,
    loss_of: Callable[[np.ndarray], torch.Tensor],
) -> float:
    """One pass over the row indices ``order`` in minibatches of ``batch_size``: a step of
    ``optim`` on ``loss_of(rows)`` for each, gradients clipped at 0.5; the mean loss."""
    losses = []
    net.train()
    for start in range(0, len(order), batch_size):
        loss = loss_of(order[start : start + batch_size])
        optim.zero_grad()
        torch.autograd.backward(loss)  # loss.backward(), which mypy reads as untyped
        torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        optim.step()
        losses.append(float(loss.detach()))
    net.eval()
    return float(np.mean(losses))


def fit_pass(
    net: MaskedActor, labels: Labels, optim: torch.optim.Optimizer, batch_size: int, seed: int
) -> float:
    """One pass over ``labels`` in a seeded order; the mean cross-entropy."""
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed)).numpy()

    def cross_entropy(rows: np.ndarray) -> torch.Tensor:
        plan = None if labels.plan is None else labels.plan[rows]
        logits = net.scores(labels.observation[rows], labels.legal[rows], plan)
        target = torch.as_tensor(labels.target[rows], device=logits.device)
        return torch.nn.functional.cross_entropy(logits, target)

    return minibatch_pass(net, optim, order, batch_size, cross_entropy)


@dataclass(frozen=True)
class Settings:
    """How one distillation runs (the command's options)."""

    source: str
    run_dir: str
    opponents: tuple[str, ...] = ("heuristic", "heuristic", "greedy", "random")
    deals: int = 1000  # label deals per opponent (4 games each)
    epochs: int = 4
    lr: float = 1e-4
    batch_size: int = 256
    seed: int = 0
    threads: int = 1
    eval_deals: int = 0  # validation deals per opponent; 0: the checkpoint's own setting

    def check(self) -> None:
        if self.eval_deals < 0:
            raise ValueError(f"eval_deals must be at least 0, got {self.eval_deals}")
        for name in ("deals", "epochs", "batch_size", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not 0 < self.lr <= 1:
            raise ValueError(f"lr must be in (0, 1], got {self.lr}")
        if not self.opponents:
            raise ValueError("give at least one opponent to label games against")
        for name in self.opponents:
            load_agent(name)  # a bad spec raises, naming it


def distill(settings: Settings) -> dict[str, Any]:
    """Label, then fit (see the module docstring); the run's last checkpoint data (its
    ``epoch`` is the passes done)."""
    settings.check()
    data = checkpoint.load(settings.source)  # a missing or broken file raises, saying why
    checkpoint.require_one_network(data, settings.source)  # this fits one network
    run_dir = Path(settings.run_dir)
    fresh = not (run_dir / SETTINGS).is_file()
    with RunDirectory(run_dir).claim(fresh=fresh) as directory, torch_threads(settings.threads):
        try:
            _check_continued(settings, run_dir) if not fresh else _write_settings(settings, run_dir)
            latest = run_dir / "latest.pt"  # read under the lock: no other run writes it now
            resume = checkpoint.load(latest) if latest.is_file() else None
            labels = _labels(settings, run_dir)
            return _fit(settings, data, labels, run_dir, resume)
        except BaseException:
            if fresh and not directory.checkpointed:  # nothing to continue: leave no trace
                for name in OWN_FILES:
                    (run_dir / name).unlink(missing_ok=True)
            raise


def _write_settings(settings: Settings, run_dir: Path) -> None:
    path = run_dir / SETTINGS
    path.write_text(json.dumps(asdict(settings), indent=1), encoding="utf-8")


def _check_continued(settings: Settings, run_dir: Path) -> None:
    """A run continued in ``run_dir`` must have been started with the same settings
    (but :data:`CONTINUE_CHANGES`)."""
    saved = json.loads((run_dir / SETTINGS).read_text(encoding="utf-8"))
    given = json.loads(json.dumps(asdict(settings)))  # tuples as lists, as saved
    differ = [k for k in given if k not in CONTINUE_CHANGES and saved.get(k) != given[k]]
    if differ:
        shown = ", ".join(f"{k} {saved.get(k)!r} (now {given[k]!r})" for k in differ)
        raise ValueError(
            f"{run_dir} holds a distillation started with other settings: "
            f"{shown}; continue it with those or choose another --run-dir"
        )


def _labels(settings: Settings, run_dir: Path) -> Labels:
    path = run_dir / LABELS
    if path.is_file():
        return Labels.load(path)
    print(
        f"distill: labelling {settings.deals} deals against each of "
        f"{', '.join(settings.opponents)}",
        file=sys.stderr,
    )
    labels = label(settings.source, list(settings.opponents), settings.deals, settings.seed)
    labels.save(path)
    return labels


def _fit(
    settings: Settings,
    data: dict[str, Any],
    labels: Labels,
    run_dir: Path,
    resume: dict[str, Any] | None,
) -> dict[str, Any]:
    """Fit the actor to ``labels`` pass by pass, evaluating after each (pass 0: as given)."""
    cfg = replace(checkpoint.config_of(data), run_dir=str(run_dir))
    if settings.eval_deals:
        cfg = replace(cfg, eval_deals=settings.eval_deals)
    net = checkpoint.network_from(resume or data, settings.source)
    optim = torch.optim.Adam(net.parameters(), lr=settings.lr)
    if resume is not None:
        optim.load_state_dict(resume["state"]["distill.optim"])
    done, history = (resume["epoch"], resume["history"]) if resume else (0, [])
    out = resume or _save(run_dir, cfg, net, optim, 0, [], best=False)  # the labels are kept
    if not history:  # pass 0: the policy as given, on the same deals
        history = evaluate_policy(cfg, net, 0)
        out = _save(run_dir, cfg, net, optim, 0, history, best=True)
    key = selection_key(cfg)
    best = max(epoch_scores(history, key).values())
    for p in range(done, settings.epochs):
        loss = fit_pass(net, labels, optim, settings.batch_size, seed_of(settings.seed, "fit", p))
        rows = evaluate_policy(cfg, net, (p + 1) * len(labels))
        history = [*history, *rows]
        score = epoch_scores(rows, key)[rows[0]["env_step"]]
        summary = ", ".join(f"{r['opponent']} {r['win_share']:.3f}" for r in rows)
        print(f"[pass {p + 1}] loss {loss:.3f}; win share vs {summary}", flush=True)
        out = _save(run_dir, cfg, net, optim, p + 1, history, best=score > best)
        best = max(best, score)
    return out


def _save(
    run_dir: Path,
    cfg: Config,
    net: MaskedActor,
    optim: torch.optim.Optimizer,
    passes: int,
    history: list[dict[str, Any]],
    best: bool,
) -> dict[str, Any]:
    """Write ``latest.pt`` (and ``best.pt`` when ``best``), the curve and the evaluations."""
    state: dict[str, Any] = {f"policy.actor.{k}": v for k, v in net.state_dict().items()}
    state["distill.optim"] = optim.state_dict()
    data = {
        "config": cfg.to_dict(),
        "state": state,
        "epoch": passes,
        "env_step": passes,
        "update_step": 0,
        "history": history,
        "snapshots": [],
    }
    checkpoint.save(run_dir / "latest.pt", data)
    if best:
        checkpoint.save(run_dir / "best.pt", data)
    (run_dir / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1), encoding="utf-8")
    (run_dir / "evaluations.json").write_text(json.dumps(history, indent=1), encoding="utf-8")
    if history:
        plot_curve(history, run_dir / "curve.png")
    return data


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m lab.distill", __doc__)
    parser.add_argument(
        "source",
        help="the policy to distil search into: a checkpoint of one network "
        "(a shipped ensemble's member: training.export trained --member 0 FILE)",
    )
    parser.add_argument("--run-dir", required=True, help="where labels and checkpoints go")
    defaults = Settings("", "")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=list(defaults.opponents),
        help="label games against three copies of each (agent specs)",
    )
    parser.add_argument(
        "--deals",
        type=int,
        default=defaults.deals,
        help="duplicate deals to label per opponent (4 games each)",
    )
    parser.add_argument(
        "--epochs", type=int, default=defaults.epochs, help="passes over the labels"
    )
    parser.add_argument("--lr", type=float, default=defaults.lr, help="Adam's learning rate")
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument(
        "--seed",
        type=int,
        default=defaults.seed,
        help="seeds the label deals, the search and the order of passes",
    )
    parser.add_argument("--threads", type=int, default=defaults.threads, help="torch threads")
    parser.add_argument(
        "--eval-deals",
        type=int,
        default=0,
        help="validation deals per opponent (default: the checkpoint's)",
    )
    args = parser.parse_args(argv)
    settings = Settings(
        args.source,
        args.run_dir,
        tuple(args.opponents),
        args.deals,
        args.epochs,
        args.lr,
        args.batch_size,
        args.seed,
        args.threads,
        args.eval_deals,
    )
    try:
        with signals_after_compiling():  # Ctrl-C inside numba's compiler would crash it
            distill(settings)
    except ValueError as e:  # CheckpointError and RunDirError included
        raise SystemExit(f"distill: {e}") from None
    except KeyboardInterrupt:
        print(f"distill: interrupted; the same command continues from the saved labels and "
              f"the last finished pass in {args.run_dir}", file=sys.stderr)  # fmt: skip
        raise SystemExit(130) from None
    print(f"best pass: {Path(args.run_dir) / 'best.pt'}")


if __name__ == "__main__":
    main()
