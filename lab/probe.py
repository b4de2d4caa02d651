"""Does a policy read its observation? ``python -m lab.probe CHECKPOINT``.

Plays a network on the duplicate deals of the compiled engine (as ``training.evaluate
--engine compiled``) three ways, its body reading:

- ``as is``: the observation;
- ``zeros``: zeros instead, so the policy knows only what each legal move's own
  features say (its cards, what it leaves in the hand, and with plan or reply features
  the planner's view and who could answer it);
- ``shuffled``: the observation of another position of the same batch (the positions
  where the policy is to move in one round of the games played together), so the
  inputs look like real ones but belong to another game.

The moves' features keep reading the real position (what a move leaves is read off
the real hand), so the two replacements change only what the state path reads. A
policy whose win share barely moves without its observation plays on its moves'
features alone: an observer study of such policies cannot tell observers apart, however
many deals it plays. Each row prints the win share against three copies of each
opponent and, for a replacement, its difference from ``as is``, deal by deal, with a
95% interval.

Found (2026-11-27, lab/notes.md, "What the policy reads"; the self-play pairs' member 0,
1,000 deals of seed 12345, random / greedy / heuristic players): `trained`'s plays as
well without its observation as with it (zeros: -0.005 / -0.008 / -0.007, every interval
holding 0; shuffled: -0.025 / -0.035 / -0.018), so its state path adds nothing a constant
would not and it plays on its moves' features alone; `trained-charlesworth`'s loses 5
points against the heuristic with zeros (-0.003 / +0.019 / -0.051). Neither the `fused`
head that reads the observation more, nor a larger entropy bonus, played better.

>>> from training.config import Config
>>> from training.nets import make_actor
>>> from training.spec import resolve
>>> net = make_actor(resolve(Config(hidden=(8,))).network)
>>> with observation_replaced(net, "zeros", seed=0):
...     type(net.body).__name__
'ReplacedInput'
>>> type(net.body).__name__
'Sequential'
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import torch
from torch import nn

from big2.evaluation import summarise
from big2.rules import get as get_rules
from training import checkpoint
from training.cli import command
from training.config import Config
from training.ensemble import Actor, Ensemble
from training.evaluate import paired
from training.loop import learner_results

REPLACEMENTS = ("zeros", "shuffled")
AS_IS = "as is"


class ReplacedInput(nn.Module):
    """A body that reads zeros, or a shuffle of its batch, instead of its input."""

    def __init__(self, body: nn.Module, how: str, seed: int) -> None:
        super().__init__()
        if how not in REPLACEMENTS:
            raise ValueError(f"replacement must be one of {REPLACEMENTS}, got {how!r}")
        self.body, self.how = body, how
        self.rng = torch.Generator().manual_seed(seed)

    def forward(self, x: torch.Tensor) -> Any:
        if self.how == "zeros":
            return self.body(torch.zeros_like(x))
        return self.body(x[torch.randperm(len(x), generator=self.rng).to(x.device)])


@contextmanager
def observation_replaced(net: Actor, how: str, seed: int = 0) -> Iterator[None]:
    """Within the block every network of ``net`` (an ensemble's members too) reads
    ``how`` (``zeros`` or ``shuffled``, seeded) instead of its observation."""
    nets = net.nets if isinstance(net, Ensemble) else [net]
    bodies = [n.body for n in nets]
    for k, n in enumerate(nets):
        n.body = ReplacedInput(n.body, how, seed + k)
    try:
        yield
    finally:
        for n, body in zip(nets, bodies, strict=True):
            n.body = body


def probe(
    agent: checkpoint.NetworkAgent, opponents: list[str], deals: int, seed: int
) -> list[dict[str, Any]]:
    """One row per opponent and way of reading (``as is`` first): win share, its 95%
    interval, and for a replacement the paired difference from ``as is``."""
    cfg = replace(agent.cfg, eval_engine="compiled")
    rows = []
    for opponent in opponents:
        base = learner_results(cfg, agent.net, opponent, deals, seed)
        rows.append(_row(cfg, seed, opponent, AS_IS, base, None))
        for how in REPLACEMENTS:
            with observation_replaced(agent.net, how, seed):
                results = learner_results(cfg, agent.net, opponent, deals, seed)
            rows.append(_row(cfg, seed, opponent, how, results, base))
    return rows


def _row(
    cfg: Config,
    seed: int,
    opponent: str,
    how: str,
    results: list[tuple[int, int]],
    base: list[tuple[int, int]] | None,
) -> dict[str, Any]:
    """The row of one way of reading: the arena's summary of ``results`` and, given the
    ``as is`` results ``base``, the paired difference from them."""
    me = summarise([how], [[r] for r in results], seed, get_rules(cfg.rules)).agents[0]
    row = {
        "opponent": opponent,
        "observation": how,
        "win_share": me.win_share,
        "win_share_ci": me.win_share_ci,
    }
    if base is not None:
        difference = paired(results, base)
        row |= {"difference": difference["win_share"], "difference_ci": difference["win_share_ci"]}
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a text table."""
    lines = [f"{'opponent':<12}{'observation':<12}{'win share':>10}   {'minus as is [95% CI]'}"]
    for r in rows:
        diff = ""
        if "difference" in r:
            low, high = r["difference_ci"]
            diff = f"{r['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
        lines.append(f"{r['opponent']:<12}{r['observation']:<12}{r['win_share']:>10.3f}   {diff}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m lab.probe", __doc__)
    parser.add_argument("checkpoint", help="a checkpoint file or a shipped agent's name")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy", "heuristic"])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=12345, help="the deals (and the shuffles)")
    args = parser.parse_args(argv)
    try:
        agent = checkpoint.load_agent(args.checkpoint)
        if not isinstance(agent, checkpoint.NetworkAgent):
            raise ValueError(f"{args.checkpoint} is not a network")
        rows = probe(agent, args.opponents, args.deals, args.seed)
    except ValueError as e:  # CheckpointError included
        raise SystemExit(f"probe: {e}") from None
    except KeyboardInterrupt:
        print("probe: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    print(table(rows))


if __name__ == "__main__":
    main()
