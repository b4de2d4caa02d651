"""training.ensemble and ensembles in checkpoints: an ensemble scores the mean of its
members' log-probabilities, exports and loads as one agent that plays (search included),
and what cannot combine, or cannot start from an ensemble, is refused saying why."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from big2.game import Game
from big2.players import load_agent, play
from big2.players.specs import AgentSpec
from training import checkpoint, export
from training.build import load_init, make_algorithm
from training.checkpoint import CheckpointError
from training.config import Config
from training.ensemble import Ensemble
from training.nets import make_actor
from training.spec import resolve

# the recipes' kind of network (catalog actions scored with their features), made small
NETWORK = {"observer": "simple", "hidden": (32,), "action_head": "mlp", "action_rest": True,
           "action_context": True, "plan_features": True, "reply_features": True}  # fmt: skip


def member(path: Path, seed: int, **settings: object) -> Path:
    """A PPO checkpoint of the recipes' kind of network, random weights from ``seed``."""
    cfg = Config(**{**NETWORK, **settings, "seed": seed, "run_dir": str(path.parent)})  # type: ignore[arg-type]
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        net = make_actor(resolve(cfg).network)
    state = {f"policy.actor.{k}": v for k, v in net.state_dict().items()}
    checkpoint.save(path, {"config": cfg.to_dict(), "state": state, "epoch": 1, "env_step": 100,
                           "update_step": 3, "history": [], "snapshots": []})  # fmt: skip
    return path


@pytest.fixture
def pair(tmp_path) -> tuple[Path, Path, Path]:
    """Two members and their exported ensemble."""
    a, b = member(tmp_path / "a.pt", 1), member(tmp_path / "b.pt", 2)
    export.main([str(a), str(b), str(tmp_path / "ab.pt")])
    return a, b, tmp_path / "ab.pt"


def positions(n: int, seed: int = 0) -> list[Game]:
    """Positions with a choice, from games of random moves."""
    rng, found = random.Random(seed), []
    while len(found) < n:
        game = Game(seed=rng.randrange(10**6))
        while not game.is_over:
            if len(game.legal_moves()) > 1:
                found.append(game.copy())
            game.play(rng.choice(game.legal_moves()))
    return found[:n]


def test_an_ensemble_scores_the_mean_log_probability_of_its_members(pair):
    a, b, ab = (load_agent(str(p)) for p in pair)
    assert isinstance(ab.net, Ensemble) and len(ab.net.members) == 2
    for game in positions(20):
        view, legal = game.view(game.turn), game.legal_moves()
        logs = [torch.log_softmax(torch.as_tensor(x.scores(view, legal)), 0) for x in (a, b)]
        mean = (logs[0] + logs[1]) / 2
        assert np.allclose(ab.scores(view, legal), mean.numpy(), atol=1e-5)
        assert ab.act(view, legal) == legal[int(mean.argmax())]


def test_an_ensemble_of_copies_plays_as_its_member(tmp_path):
    a = member(tmp_path / "a.pt", 1)
    export.export_ensemble([a, a], tmp_path / "aa.pt")
    one, copies = load_agent(str(a)), load_agent(str(tmp_path / "aa.pt"))
    moves = [m for game in (play(Game(seed=s), one) for s in range(3)) for m in game.log.moves]
    again = [m for game in (play(Game(seed=s), copies) for s in range(3)) for m in game.log.moves]
    assert moves == again


def test_an_exported_ensemble_keeps_its_members_runs_and_plays_with_search(pair):
    ab = pair[2]
    data = checkpoint.load(ab)
    assert data["members"] == 2 and data["exported"]
    assert [r["seed"] for r in data["member_runs"]] == [1, 2]
    assert data["env_step"] == 200  # the decisions of both members
    searching = load_agent(AgentSpec.parse(f"{ab}+search"), determinizations=2,
                           max_determinizations=4)  # fmt: skip
    others = [load_agent("random") for _ in range(3)]
    assert play(Game(seed=3), [searching, *others]).is_over


@pytest.mark.parametrize(
    ("other", "message"),
    [
        ({"hidden": (16,)}, "has another architecture (hidden: [16] there, [32] in"),
        ({"algo": "dqn"}, "is a DQN checkpoint: only PPO policies combine"),
    ],
)
def test_members_that_do_not_combine_are_refused_and_nothing_is_written(tmp_path, other, message):
    a, b = member(tmp_path / "a.pt", 1), member(tmp_path / "b.pt", 2, **other)
    with pytest.raises(SystemExit, match=rf"^export: {tmp_path / 'b.pt'} ") as e:
        export.main([str(a), str(b), str(tmp_path / "ab.pt")])
    assert message in str(e.value) and not (tmp_path / "ab.pt").exists()


def test_an_ensemble_of_one_or_of_ensembles_is_refused(pair, tmp_path):
    a, _, ab = pair
    with pytest.raises(CheckpointError, match="needs at least 2 checkpoints, got 1"):
        export.ensemble_data([a])
    with pytest.raises(CheckpointError, match="is an ensemble already: name its members"):
        export.ensemble_data([a, ab])


def test_a_run_cannot_start_from_an_ensemble(pair, tmp_path):
    cfg = Config(**{**NETWORK, "run_dir": str(tmp_path / "run")})  # type: ignore[arg-type]
    algorithm = make_algorithm(cfg)
    before = {k: v.clone() for k, v in algorithm.state_dict().items()
              if isinstance(v, torch.Tensor)}  # fmt: skip
    with pytest.raises(ValueError, match=r"--init: .*ab.pt is an ensemble of 2 networks and "
                       r"this needs one: export one with 'python -m training.export "
                       r".*ab.pt --member 0 member0.pt'"):  # fmt: skip
        load_init(dataclasses.replace(cfg, init=str(pair[2])), algorithm)
    assert all(torch.equal(algorithm.state_dict()[k], v) for k, v in before.items())


def test_a_member_exports_as_an_agent_of_its_own(pair, tmp_path):
    a, b, ab = pair
    export.main([str(ab), "--member", "1", str(tmp_path / "b1.pt")])
    alone, original = checkpoint.load(tmp_path / "b1.pt"), checkpoint.load(b)
    assert alone["state"].keys() == original["state"].keys()
    assert all(torch.equal(v, original["state"][k]) for k, v in alone["state"].items())
    assert alone["config"]["seed"] == 2 and not alone.get("members")
    games = [play(Game(seed=5), load_agent(str(p))).log.moves for p in (b, tmp_path / "b1.pt")]
    assert games[0] == games[1]
    with pytest.raises(SystemExit, match="has members 0 to 1, not 2"):
        export.main([str(ab), "--member", "2", str(tmp_path / "x.pt")])
    with pytest.raises(SystemExit, match="is no ensemble"):
        export.main([str(a), "--member", "0", str(tmp_path / "x.pt")])
    assert not (tmp_path / "x.pt").exists()
