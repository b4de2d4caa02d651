"""lab.probe: a policy played with its observation replaced."""

from __future__ import annotations

import pytest
import torch

from lab import probe
from training import checkpoint
from training.config import FORMER_DEFAULTS, Config
from training.ensemble import Ensemble
from training.loop import learner_results
from training.nets import make_actor
from training.spec import resolve

CFG = Config(**{**FORMER_DEFAULTS, "hidden": (8,), "eval_engine": "compiled"})


class Recorder(torch.nn.Module):
    """A body that remembers what it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.append(x)
        return x


def test_zeros_and_shuffles_replace_what_the_body_reads():
    x = torch.arange(12.0).view(4, 3)
    zeros, shuffled = Recorder(), Recorder()
    probe.ReplacedInput(zeros, "zeros", seed=0)(x)
    probe.ReplacedInput(shuffled, "shuffled", seed=0)(x)
    assert (zeros.seen[0] == 0).all()
    rows = sorted(map(tuple, shuffled.seen[0].tolist()))
    assert rows == sorted(map(tuple, x.tolist())) and not torch.equal(shuffled.seen[0], x)
    with pytest.raises(ValueError, match="one of \\('zeros', 'shuffled'\\), got 'noise'"):
        probe.ReplacedInput(Recorder(), "noise", seed=0)


def test_every_member_reads_the_replacement_and_gets_its_body_back():
    torch.manual_seed(0)
    ensemble = Ensemble([make_actor(resolve(CFG).network), make_actor(resolve(CFG).network)])
    bodies = [n.body for n in ensemble.nets]
    with pytest.raises(RuntimeError), probe.observation_replaced(ensemble, "zeros"):
        assert all(isinstance(n.body, probe.ReplacedInput) for n in ensemble.nets)
        raise RuntimeError("the block fails")
    assert [n.body for n in ensemble.nets] == bodies  # restored, even after the failure


def test_a_policy_that_ignores_its_observation_loses_nothing_without_it():
    torch.manual_seed(0)
    net = make_actor(resolve(CFG).network)
    agent = checkpoint.NetworkAgent(net, CFG, "probe")
    rows = probe.probe(agent, ["greedy"], deals=3, seed=5)
    assert [r["observation"] for r in rows] == ["as is", "zeros", "shuffled"]
    base = learner_results(CFG, net, "greedy", 3, 5)
    assert rows[0]["win_share"] == sum(w for w, _ in base) / 12
    with torch.no_grad():  # cut the state path: the body's output no longer depends on x
        net.body[0].weight.zero_()
    rows = probe.probe(agent, ["greedy"], deals=3, seed=5)
    assert [r["difference"] for r in rows[1:]] == [0.0, 0.0]
    assert "zeros" in probe.table(rows) and "+0.000" in probe.table(rows)
