"""lab.distill: labels are the search's moves as the policy sees them, fitting moves the
policy toward them, and a distillation run keeps its directory's promises."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from big2.game import Game
from big2.players import load_agent, play
from big2.players.search import SearchAgent
from lab.distill import Labels, Recorder, Settings, distill, fit_pass, label, main
from training import checkpoint
from training.checkpoint import CheckpointError
from training.export import member_data
from training.rundir import RunDirError


@pytest.fixture(scope="module")
def member0(tmp_path_factory) -> str:
    """The first network of the shipped ``trained`` (an ensemble), as an agent of its own."""
    path = tmp_path_factory.mktemp("agents") / "member0.pt"
    checkpoint.save(path, member_data("trained", 0))
    return str(path)


@pytest.fixture(scope="module")
def labels(member0) -> Labels:
    return label(member0, ["heuristic"], 2, seed=0)


def test_stack_pads_legal_ids_and_plan_rows_and_keeps_targets():
    a = (np.ones(3, np.float32), np.array([4, 9], np.int32), np.ones((2, 4), np.int8), 1)
    b = (np.zeros(3, np.float32), np.array([7], np.int32), np.full((1, 4), 2, np.int8), 0)
    stacked = Labels.stack([a, b])
    assert stacked.legal.tolist() == [[4, 9], [7, -1]]
    assert stacked.plan is not None and stacked.plan[1].tolist() == [[2] * 4, [0] * 4]
    assert stacked.target.tolist() == [1, 0] and len(stacked) == 2
    with pytest.raises(ValueError, match="no positions were labelled"):
        Labels.stack([])


def test_labels_round_trip_through_a_file(labels, tmp_path):
    labels.save(tmp_path / "labels.npz")
    again = Labels.load(tmp_path / "labels.npz")
    assert np.array_equal(again.observation, labels.observation)
    assert np.array_equal(again.legal, labels.legal) and np.array_equal(again.target, labels.target)
    assert labels.plan is not None and np.array_equal(again.plan, labels.plan)


def test_every_label_is_the_search_move_among_the_legal_actions():
    policy = checkpoint.load_agent("trained")
    search = load_agent("trained+search", policy.codec.rules, determinizations=4)
    assert isinstance(search, SearchAgent)
    recorder = Recorder(search, policy)
    game, chosen = Game(seed=4), []
    while not game.is_over:
        view, legal = game.view(game.turn), game.legal_moves()
        move = recorder.act(view, legal)
        if recorder.last_thought is not None:
            chosen.append((move, view.hand, len(legal)))
        game.play(move)
    assert len(recorder.rows) == len(chosen) > 0  # forced moves are not labelled
    assert policy.features is not None
    width = policy.features.width  # the shipped agent's per-move features (plan and replies)
    for (obs, ids, plan, target), (move, hand, n_legal) in zip(recorder.rows, chosen, strict=True):
        assert len(ids) == n_legal and plan is not None and plan.shape == (n_legal, width)
        assert ids[target] == policy.codec.encode(move, hand)
        assert obs.shape == (policy.observer.size,)


def agreement(net, labels: Labels) -> float:
    """The share of labels that are the net's likeliest move."""
    with torch.no_grad():
        logits = net.scores(labels.observation, labels.legal, labels.plan)
    return float((logits.argmax(1).numpy() == labels.target).mean())


def test_fitting_moves_the_policy_toward_the_labels(labels, member0):
    net = checkpoint.network_from(checkpoint.load(member0), member0)
    before = agreement(net, labels)
    optim = torch.optim.Adam(net.parameters(), lr=1e-3)
    first = fit_pass(net, labels, optim, 64, seed=0)
    for k in range(1, 8):
        last = fit_pass(net, labels, optim, 64, seed=k)
    assert last < first
    assert before < 1 and agreement(net, labels) > before


@pytest.mark.slow
def test_a_distillation_run_writes_an_agent_that_plays_and_continues_where_it_stopped(
    tmp_path, member0
):
    run = tmp_path / "run"
    settings = Settings(member0, str(run), ("heuristic",), deals=2, epochs=1, eval_deals=2)
    distill(settings)
    history = json.loads((run / "evaluations.json").read_text())
    assert sorted({r["env_step"] for r in history})[0] == 0  # the starting policy is pass 0
    agent = load_agent(str(run / "best.pt"))
    assert play(Game(seed=2), agent).is_over
    labels_stamp = (run / "labels.npz").stat().st_mtime_ns
    more = distill(Settings(member0, str(run), ("heuristic",), deals=2, epochs=2, eval_deals=2))
    assert more["epoch"] == 2 and (run / "labels.npz").stat().st_mtime_ns == labels_stamp
    whole = distill(Settings(member0, str(tmp_path / "whole"), ("heuristic",), deals=2,
                             epochs=2, eval_deals=2))  # fmt: skip
    a, b = more["state"], whole["state"]
    assert all(torch.equal(a[k], b[k]) for k in a if k.startswith("policy.actor."))


def test_a_directory_holding_other_files_is_refused_and_left_as_it_was(tmp_path, member0):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(RunDirError, match="already holds files"):
        distill(Settings(member0, str(tmp_path), ("heuristic",), deals=1, epochs=1))
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deals", "0"], "deals must be at least 1"),
        (["--lr", "0"], "lr must be in"),
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_written(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["trained", "--run-dir", str(tmp_path / "run"), *argv])
    assert message in str(e.value)
    assert not (tmp_path / "run").exists()


def test_ctrl_c_says_how_to_continue_and_exits_130(monkeypatch, tmp_path, capsys):
    import lab.distill

    def interrupted(settings):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(lab.distill, "distill", interrupted)
    with pytest.raises(SystemExit) as exit_:
        main(["trained", "--run-dir", str(tmp_path / "run")])
    assert exit_.value.code == 130
    err = capsys.readouterr().err
    assert err.startswith("distill: interrupted; the same command continues") and err.endswith("\n")
    assert err.count("\n") == 1 and str(tmp_path / "run") in err


def test_distilling_an_ensemble_is_refused_before_anything_is_written(tmp_path):
    """The shipped ``trained`` is an ensemble of two networks; distillation fits one."""
    with pytest.raises(CheckpointError, match="is an ensemble of 2 networks"):
        distill(Settings("trained", str(tmp_path / "run"), ("heuristic",), deals=1))
    assert not (tmp_path / "run").exists()


def test_a_run_stopped_before_its_first_checkpoint_leaves_no_trace(member0, tmp_path, monkeypatch):
    """Its own files go as a training run's do, though training.rundir no longer names them."""
    import lab.distill

    def interrupted(*args):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(lab.distill, "label", interrupted)
    with pytest.raises(KeyboardInterrupt):
        distill(Settings(member0, str(tmp_path / "run"), ("heuristic",), deals=1))
    assert not (tmp_path / "run").exists()
