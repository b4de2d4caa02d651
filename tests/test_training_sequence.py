"""The sequence body (``--body gru``): a GRU over the observer's move history."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import observers
from big2.game import Game
from envs import codecs
from training.bodies import SEQUENCE_STATE, SequenceBody, make_body, sequence_piece
from training.checkpoint import setting
from training.config import Config
from training.nets import MaskedActor, action_table, legal_distribution

HISTORY = observers.make("history")  # the last 16 moves, empty rows first


def observations(moves: int, seed: int = 3) -> list[torch.Tensor]:
    """The acting seat's ``history`` observation after each of the first ``moves`` moves."""
    game, out = Game(seed=seed), []
    for _ in range(moves):
        out.append(torch.tensor(HISTORY.observe(game.view(game.turn))))
        game.play(game.legal_moves()[-1])
    return out


def test_the_history_observer_has_move_rows_and_the_flat_ones_do_not():
    piece = sequence_piece(HISTORY)
    assert piece is not None and piece.shape == (16, 57)
    assert sequence_piece(observers.make("card_counting")) is None
    assert sequence_piece(observers.make("planes")) is None


def test_the_body_maps_a_batch_to_the_last_hidden_width():
    body = make_body(HISTORY, (64, 32), "gru")
    assert isinstance(body, SequenceBody)
    assert body(torch.stack(observations(5))).shape == (5, 32)
    assert body.read(torch.zeros(3, 16, 57)).shape == (3, SEQUENCE_STATE)


def test_an_observer_without_move_rows_is_a_clear_error():
    with pytest.raises(ValueError, match="observer 'card_counting' has no move rows"):
        make_body(observers.make("card_counting"), (8,), "gru")
    with pytest.raises(ValueError, match="body must be one of"):
        make_body(HISTORY, (8,), "lstm")


def test_padding_never_reaches_the_gru():
    torch.manual_seed(0)
    body = make_body(HISTORY, (8,), "gru")
    batch = torch.stack(observations(20))  # 0, 1, ... 16, 16, 16, 16 moves made
    rows = batch[:, body.moves].view(-1, 16, 57)
    with torch.no_grad():
        read = body.read(rows)
        for b, row in enumerate(rows):
            made = row[row.abs().sum(-1) > 0]
            assert len(made) == min(b, 16)
            if not len(made):  # nothing played yet: the state is zeros
                assert read[b].abs().sum() == 0
                continue
            alone = body.gru(made[None])[1][0, 0]  # the GRU over the moves only
            assert torch.allclose(read[b], alone, atol=1e-6), b


def test_more_padding_in_front_changes_nothing():
    """The same moves read the same whatever the history's length (16 or 32 rows)."""
    torch.manual_seed(0)
    short, long = (
        make_body(HISTORY, (8,), "gru"),
        make_body(observers.make("history", k=32), (8,), "gru"),
    )
    long.gru.load_state_dict(short.gru.state_dict())
    rows = torch.stack(observations(9))[:, short.moves].view(-1, 16, 57)
    padded = torch.cat([torch.zeros(9, 16, 57), rows], 1)
    with torch.no_grad():
        assert torch.allclose(short.read(rows), long.read(padded), atol=1e-6)


def test_one_training_step_moves_the_gru():
    torch.manual_seed(0)
    codec = codecs.make("catalog")
    actor = MaskedActor(HISTORY, codec.n, (32,), action_table(codec), "mlp", rest=True,
                        body="gru")  # fmt: skip
    game, obs, legal = Game(seed=1), [], []
    for _ in range(6):
        obs.append(HISTORY.observe(game.view(game.turn)))
        moves = game.legal_moves()
        legal.append(sorted(codec.encode(m, game.hands[game.turn]) for m in moves) + [-1] * 3)
        game.play(moves[0])
    width = max(map(len, legal))
    legal = [row + [-1] * (width - len(row)) for row in legal]
    before = [p.detach().clone() for p in actor.body.gru.parameters()]
    optimizer = torch.optim.Adam(actor.parameters(), lr=1e-2)
    dist = legal_distribution(actor.scores(np.array(obs), np.array(legal)))
    loss = -dist.log_prob(torch.zeros(6, dtype=torch.long)).mean()
    loss.backward()
    optimizer.step()
    assert all(
        not torch.equal(a, b) for a, b in zip(before, actor.body.gru.parameters(), strict=True)
    )


def test_the_config_refuses_a_gru_without_a_history_and_old_runs_read_as_auto():
    Config(observer="history", body="gru").check()
    with pytest.raises(ValueError, match="--body gru reads the observer's move history"):
        Config(observer="card_counting", body="gru").check()
    assert setting({}, "body") == "auto"  # checkpoints saved before the option existed
