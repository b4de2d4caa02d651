"""training.checkpoint (save, load, errors, agents) and the evaluate / arena / train CLIs.

Checkpoints here are built by hand from a small ``MaskedActor`` (no Tianshou algorithm,
so no numba JIT); test_training.py round-trips real training checkpoints.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
import torch
from training_helpers import former_config

import observers
from big2.app import cli
from big2.evaluation.arena import evaluate as arena
from big2.players import load_agent as load_any_agent
from big2.rules import CHARLESWORTH, STANDARD
from envs import codecs
from envs.policy_agent import PolicyAgent
from training import checkpoint, loader
from training.checkpoint import CheckpointError
from training.nets import MaskedActor, NumpyLogits

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def make_checkpoint(path: Path, seed: int = 0, hidden: int = 16) -> dict:
    """A valid PPO checkpoint (hand codec, simple observer) with random weights."""
    cfg = asdict(
        former_config(actions="hand", observer="simple", hidden=[hidden], run_dir=str(path))
    )
    cfg["obs_size"] = observers.make("simple").size
    cfg["n_actions"] = codecs.make("hand").n
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        net = MaskedActor(cfg["obs_size"], cfg["n_actions"], (hidden,))
    state = {f"policy.actor.{k}": v for k, v in net.state_dict().items()}
    data = {"config": cfg, "state": state, "epoch": 2, "env_step": 300, "update_step": 7,
            "history": [{"env_step": 150, "win_share": 0.5}], "snapshots": []}  # fmt: skip
    checkpoint.save(path, data)
    return data


@pytest.fixture
def ckpt(tmp_path) -> Path:
    make_checkpoint(tmp_path / "agent.pt")
    return tmp_path / "agent.pt"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120)


# ------------------------------------------------------------------ save / load


def test_save_then_load_preserves_everything(tmp_path):
    path = tmp_path / "sub" / "c.pt"
    data = make_checkpoint(path)
    loaded = checkpoint.load(path)
    assert set(loaded) == set(checkpoint.KEYS)
    assert loaded["format"] == checkpoint.FORMAT
    for key in ("config", "epoch", "env_step", "update_step", "history", "snapshots"):
        assert loaded[key] == data[key], key
    assert loaded["state"].keys() == data["state"].keys()
    assert all(torch.equal(loaded["state"][k], v) for k, v in data["state"].items())
    assert [p.name for p in path.parent.iterdir()] == ["c.pt"]  # no temporary file left
    make_checkpoint(path, seed=1)  # overwriting works and replaces the weights
    again = checkpoint.load(path)["state"]
    assert any(not torch.equal(again[k], v) for k, v in data["state"].items())


def test_save_refuses_incomplete_data(tmp_path):
    with pytest.raises(ValueError, match=r"lacks \['state', 'epoch'"):
        checkpoint.save(tmp_path / "c.pt", {"config": {}})
    assert not list(tmp_path.iterdir())


def test_load_missing_file_or_directory(tmp_path):
    for path in (tmp_path / "nothing.pt", tmp_path):
        with pytest.raises(CheckpointError, match="no checkpoint at") as err:
            checkpoint.load(path)
        assert str(path) in str(err.value)


def corrupt_inputs(good: bytes) -> dict[str, bytes]:
    rng = random.Random(0)
    return {
        "empty": b"",
        "text": b"hello, this is not a checkpoint\n",
        "random": bytes(rng.getrandbits(8) for _ in range(1000)),
        "plain pickle": pickle.dumps({"format": checkpoint.FORMAT}),
        "zip header": b"PK\x03\x04" + bytes(100),
        **{f"truncated {n}": good[:n] for n in (1, 100, len(good) // 2, len(good) - 1)},
    }


# torch warns about the pickle protocol of some corrupt inputs before it fails on them
@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_load_corrupt_files_raise_checkpoint_error(ckpt, tmp_path):
    for label, content in corrupt_inputs(ckpt.read_bytes()).items():
        path = tmp_path / f"{label}.pt"
        path.write_bytes(content)
        with pytest.raises(CheckpointError, match="corrupt or not a checkpoint") as err:
            checkpoint.load(path)
        assert str(path) in str(err.value), label


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ({"x": 1}, "not a big2-checkpoint/1 file"),
        ([1, 2, 3], "not a big2-checkpoint/1 file"),
        ({"format": "big2-checkpoint/0", "config": {}}, "not a big2-checkpoint/1 file"),
        ({"format": checkpoint.FORMAT, "config": {}}, r"lacks \['state', 'epoch'"),
    ],
)
def test_load_other_torch_files(tmp_path, content, error):
    path = tmp_path / "other.pt"
    torch.save(content, path)
    with pytest.raises(CheckpointError, match=error) as err:
        checkpoint.load(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    "content",
    [
        b"\x82A",  # EXT1 opcode: ValueError 'unregistered extension code 65'
        b"\x8c\x01\xff",  # SHORT_BINUNICODE of a bad byte: UnicodeDecodeError
        b"\x8e" + (2**62).to_bytes(8, "little"),  # BINBYTES8 of 2**62 bytes: MemoryError
        b"c__builtin__\nnonexistent\n.",  # GLOBAL of a missing name: AttributeError
    ],
    ids=["ValueError", "UnicodeDecodeError", "MemoryError", "AttributeError"],
)
def test_load_any_corrupt_bytes_raise_checkpoint_error(tmp_path, content):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match="corrupt"):
        checkpoint.load(path)


class Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def test_load_does_not_execute_code_from_the_file(tmp_path):
    marker = tmp_path / "code-ran"
    torch.save({"format": checkpoint.FORMAT, "config": Payload(marker)}, tmp_path / "evil.pt")
    with pytest.raises(CheckpointError):
        checkpoint.load(tmp_path / "evil.pt")
    assert not marker.exists()


@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_a_damaged_checkpoint_is_explained_without_torchs_unsafe_advice(ckpt, tmp_path):
    files = {**corrupt_inputs(ckpt.read_bytes()), "a global": b"c__builtin__\nprint\n."}
    for label, content in files.items():
        path = tmp_path / f"{label}.pt"
        path.write_bytes(content)
        with pytest.raises(CheckpointError) as err:
            checkpoint.load(path)
        said = str(err.value)
        assert "weights_only" not in said and "can still be loaded" not in said, label
        assert said.startswith(f"{path} is corrupt or not a checkpoint: "), label
        assert "name a checkpoint that training or training.export wrote" in said, label
    said = str(err.value)  # the global: an object no checkpoint holds, never run
    assert "holds Python objects that no big2 checkpoint holds" in said


def test_weights_that_do_not_fit_the_config(tmp_path):
    data = make_checkpoint(tmp_path / "c.pt")
    data["config"]["hidden"] = [32]
    checkpoint.save(tmp_path / "c.pt", data)
    with pytest.raises(CheckpointError, match="do not fit its config"):
        checkpoint.load_agent(tmp_path / "c.pt")


# ------------------------------------------------------------------ agents


def test_load_agent_plays_its_network_greedily(ckpt):
    agent = checkpoint.load_agent(ckpt)
    assert agent.name == "agent" and checkpoint.load_agent(ckpt, name="x").name == "x"
    net = checkpoint.actor_from(checkpoint.load(ckpt))
    result = arena([agent, "random", "random", "random"], 3, seed=5)  # raises on illegal moves
    assert result.games == 12
    obs, mask = agent.observer.observe, agent.codec.mask
    from big2.game import Game

    game = Game(seed=3)
    view, legal = game.view(game.turn), game.legal_moves()
    logits = NumpyLogits(net)(obs(view), mask(legal, view.hand))
    assert agent.codec.encode(agent.act(view, legal), view.hand) == int(logits.argmax())


def test_agent_loader_plugin(ckpt, tmp_path):
    assert loader.agent_loader("random", STANDARD) is None
    assert loader.agent_loader("no-such-name", STANDARD) is None
    assert loader.agent_loader(str(ckpt), STANDARD).name == "agent"
    assert load_any_agent(str(ckpt)).name == "agent"  # through the big2.agent_loaders entry point
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        loader.agent_loader(str(tmp_path / "missing.pt"), STANDARD)
    with pytest.raises(CheckpointError, match="trained for the standard rules, not charlesworth"):
        loader.agent_loader(str(ckpt), CHARLESWORTH)
    assert checkpoint.resolve("trained").name == checkpoint.SHIPPED["trained"] == "trained.pt"
    assert checkpoint.resolve("x.pt") == Path("x.pt")


# ------------------------------------------------------------------ command lines


def test_evaluate_json_matches_the_arena(ckpt):
    out = run(sys.executable, "-m", "training.evaluate", str(ckpt), "--opponents", "random",
              "--deals", "5", "--seed", "0", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    expected = arena([checkpoint.load_agent(ckpt), "random", "random", "random"], 5, 0).agents[0]
    assert report["deals"] == 5 and report["games"] == 20
    assert report["win_share"] == expected.win_share
    assert report["mean_score"] == expected.mean_score


def test_evaluate_in_the_compiled_engine_plays_the_arenas_games(ckpt, capsys):
    from training import evaluate

    reports = []
    for engine in ("arena", "compiled"):
        evaluate.main([str(ckpt), "--opponents", "heuristic", "--deals", "3", "--seed", "4",
                       "--json", "--engine", engine])  # fmt: skip
        reports.append(json.loads(capsys.readouterr().out))
    arena, compiled = reports
    assert compiled == arena and compiled["games"] == 12
    with pytest.raises(SystemExit, match=r"evaluate: --engine compiled plays a network alone; "
                       r".*\+search is not one"):  # fmt: skip
        evaluate.main([f"{ckpt}+search", "--deals", "1", "--engine", "compiled"])


def test_evaluate_compares_with_a_baseline_deal_by_deal(ckpt, tmp_path, capsys):
    from training import evaluate

    make_checkpoint(tmp_path / "other.pt", seed=1)
    for engine, baseline in (("compiled", str(tmp_path / "other.pt")), ("arena", "greedy")):
        evaluate.main([str(ckpt), "--baseline", baseline, "--opponents", "heuristic", "--deals",
                       "4", "--json", "--engine", engine])  # fmt: skip
        report = json.loads(capsys.readouterr().out)
        difference = report["paired"]
        expected = report["win_share"] - report["baseline_win_share"]
        assert difference["win_share"] == pytest.approx(expected)
        low, high = difference["win_share_ci"]
        assert low <= difference["win_share"] <= high and report["baseline"] == baseline
    evaluate.main([str(ckpt), "--baseline", str(ckpt), "--deals", "3", "--engine", "compiled"])
    out = capsys.readouterr().out  # an agent against itself: no difference, on every deal
    assert "deal by deal: win share +0.0000 [+0.0000, +0.0000], mean score +0.000" in out


def test_evaluate_errors(tmp_path, capsys):
    from training import evaluate

    with pytest.raises(SystemExit, match="evaluate: no checkpoint at"):
        evaluate.main([str(tmp_path / "missing.pt"), "--json"])
    make_checkpoint(tmp_path / "c.pt")
    with pytest.raises(SystemExit, match="evaluate: unknown agent 'nosuch'"):
        evaluate.main([str(tmp_path / "c.pt"), "--opponents", "nosuch", "--deals", "1"])


def test_ctrl_c_during_an_evaluation_is_one_line_and_status_130(ckpt, monkeypatch, capsys):
    from training import evaluate

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "deal_results", interrupted)
    with pytest.raises(SystemExit) as exit_:
        evaluate.main([str(ckpt), "--opponents", "random", "--deals", "1"])
    assert exit_.value.code == 130
    assert capsys.readouterr().err.strip() == "evaluate: interrupted"


def test_big2_arena_loads_checkpoints_through_the_entry_point(ckpt, tmp_path):
    out = run(str(BIN / "big2"), "arena", "--agents", str(ckpt), "random", "random", "random",
              "--deals", "3", "--json", str(tmp_path / "r.json"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2].startswith("agent ")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["agents"][0]["name"] == "agent" and report["games"] == 12


@pytest.mark.parametrize(
    ("spec", "error"),
    [("nosuch", "unknown agent 'nosuch'"), ("missing.pt", "no checkpoint at missing.pt")],
)
def test_big2_arena_bad_agent_specs(spec, error):
    with pytest.raises(SystemExit, match=f"big2 arena: {error}"):
        cli.main(["arena", "--agents", spec, "random", "random", "random", "--deals", "1"])


def test_train_resume_missing_dir_fails(tmp_path):
    from training.train import main as train  # in this process: no second import of torch

    with pytest.raises(SystemExit, match="cannot resume") as exit_:  # a message: status 1
        train(["--resume", str(tmp_path / "nope")])
    assert str(tmp_path / "nope") in str(exit_.value)
    assert not (tmp_path / "nope").exists()


SHIPPED_PRESETS = {"trained": STANDARD, "trained-charlesworth": CHARLESWORTH}


def test_the_shipped_agents_are_one_per_preset():
    assert set(checkpoint.SHIPPED) == set(SHIPPED_PRESETS)


@pytest.mark.parametrize("name", sorted(SHIPPED_PRESETS))
def test_each_shipped_agent_loads_and_plays_its_presets_games(name):
    """A shipped agent (a committed checkpoint) plays its preset's games legally through
    the arena, with the plan features it was trained with, far above parity against
    random players; with search too; and refuses the other preset's games, saying why."""
    rules = SHIPPED_PRESETS[name]
    agent = load_any_agent(name, rules)
    assert agent.name == name and agent.features is not None and agent.codec.rules == rules
    result = arena([agent, "random", "random", "random"], 12, 7, rules)  # 48 games
    # 0.85 (trained) and 0.88 (charlesworth) on these deals, about 0.8 on 1,000 deals
    # (docs/results.md), where an agent no better than random players is near 0.25
    assert result.agents[0].win_share > 0.5
    assert result.agents[0].mean_score > 0
    searching = load_any_agent(f"{name}+search", rules, determinizations=2, candidates=2)
    assert arena([searching, "greedy", "greedy", "greedy"], 1, 7, rules).deals == 1
    other = STANDARD if rules == CHARLESWORTH else CHARLESWORTH
    with pytest.raises(CheckpointError, match=f"trained for the {rules.name} rules, not"):
        load_any_agent(name, other)


def test_a_checkpoint_of_a_removed_option_is_refused_saying_why(tmp_path):
    """The shipped agents hold ``critic_outlook`` at False and load; one trained with the
    removed outlook is refused, naming the option and where its experiment went."""
    data = checkpoint.load("trained")
    assert data["config"]["critic_outlook"] is False
    data["config"]["critic_outlook"] = True
    checkpoint.save(tmp_path / "outlook.pt", data)
    with pytest.raises(CheckpointError, match=r"critic_outlook is true: .*lab/outlook\.py"):
        checkpoint.load_agent(tmp_path / "outlook.pt")


# ------------------------------------------------------------------ search with a checkpoint


def test_policy_scores_rank_moves_like_the_greedy_agent(ckpt):
    from big2.game import Game

    agent = checkpoint.load_agent(ckpt)
    for seed in range(5):
        game = Game(seed=seed)
        view, legal = game.view(game.turn), game.legal_moves()
        scores = agent.scores(view, legal)
        assert len(scores) == len(legal)
        assert legal[max(range(len(legal)), key=scores.__getitem__)] == agent.act(view, legal)
    with pytest.raises(ValueError, match="scores and sampling need logits"):
        game = Game(seed=0)
        PolicyAgent(lambda obs, mask: 0, "simple", "hand").scores(game.view(0), game.legal_moves())


def test_search_spec_loads_a_search_agent_that_plays_legally(ckpt):
    from big2.players.search import SearchAgent

    agent = load_any_agent(f"{ckpt}+search")
    assert isinstance(agent, SearchAgent) and agent.name == "agent+search"
    assert isinstance(load_any_agent("trained+search"), SearchAgent)
    fast = load_any_agent(f"{ckpt}+search", determinizations=2, candidates=2)
    one = arena([fast, "random", "random", "random"], 2, seed=1).agents[0]
    two = arena([fast, "random", "random", "random"], 2, seed=1, workers=2).agents[0]
    assert one == two and one.games == 8  # picklable, seeded per game, legal throughout
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        load_any_agent(str(ckpt.parent / "missing.pt+search"))
