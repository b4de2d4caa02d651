"""Unit tests of the network pieces: rest counts, legal positions and their distribution."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import observers
from big2.cards import parse_cards
from big2.game import Game
from envs import codecs
from training.bodies import HandReader, PlanesBody, make_body
from training.nets import (
    ILLEGAL,
    MaskedActor,
    NumpyLogits,
    action_table,
    legal_distribution,
    pooled,
    rest_counts,
    trim,
)


def bits(text: str) -> torch.Tensor:
    mask = parse_cards(text)
    return torch.tensor([[float(mask >> i & 1) for i in range(52)]])


def test_rest_counts_describe_what_a_play_leaves():
    rest = rest_counts(bits("3D 3C 5H 9S TS 2S"), bits("3D"))[0].tolist()
    # left: 3C 5H 9S TS 2S -> 5 cards, 5 singles, no pairs or triples, 3 singles below T
    assert rest == pytest.approx([5 / 13, 5 / 13, 0.0, 0.0, 3 / 7])
    pair = rest_counts(bits("3D 3C 7H 7S 7D"), bits("3D 3C"))[0].tolist()
    assert pair == pytest.approx([3 / 13, 0.0, 0.0, 1 / 4, 0.0])


def test_the_distribution_over_legal_positions_ignores_the_padding():
    logits = torch.tensor([[0.0, 2.0, 3.0], [5.0, ILLEGAL, ILLEGAL]])
    dist = legal_distribution(logits)
    expected = torch.log_softmax(torch.tensor([0.0, 2.0, 3.0]), -1)
    assert dist.log_prob(torch.tensor([1, 0])).tolist() == pytest.approx([expected[1].item(), 0.0])
    assert dist.mode.tolist() == [2, 0]
    samples = torch.stack([dist.sample() for _ in range(200)])
    assert set(samples[:, 0].tolist()) == {0, 1, 2} and set(samples[:, 1].tolist()) == {0}
    assert dist.entropy()[1].item() == pytest.approx(0.0) and torch.isfinite(dist.entropy()).all()


def test_trim_keeps_every_legal_column():
    legal = np.array([[7, 3, -1, -1, -1], [2, -1, -1, -1, -1]])
    assert trim(legal).tolist() == [[7, 3], [2, -1]]
    assert trim(np.full((2, 4), -1)).shape == (2, 1)


@pytest.mark.parametrize("head", ["mlp", "fused"])
@pytest.mark.parametrize("rest", [False, True])
@pytest.mark.parametrize("actions", ["catalog", "hand"])
def test_masked_actor_scores_legal_positions_and_pads_the_rest(rest, actions, head):
    codec = codecs.make(actions)
    table = action_table(codec)
    if actions == "catalog":
        assert table is not None and table.shape == (codec.n, 52 + 10 + 1)
    actor = MaskedActor(observers.make("simple"), codec.n, (16,), table, head, rest)
    obs = np.random.default_rng(0).random((2, 161), dtype=np.float32)
    legal = np.array([[0, 5, codec.n - 1, -1], [9, -1, -1, -1]])
    scores = actor.scores(obs, legal)
    assert scores.shape == (2, 3)  # trimmed to the widest row
    assert (
        (scores[1, 1:] == ILLEGAL).all() and (scores[0] > ILLEGAL).all() and scores[1, 0] > ILLEGAL
    )
    # the numpy face for agents: full-width logits, the same scores at the legal actions
    mask = np.zeros(codec.n, np.int8)
    mask[[0, 5, codec.n - 1]] = 1
    full = NumpyLogits(actor)(obs[0], mask)
    assert full.shape == (codec.n,) and (full[mask == 0] == ILLEGAL).all()
    assert full[[0, 5, codec.n - 1]] == pytest.approx(scores[0].detach().numpy(), abs=1e-5)


def test_rest_counts_need_an_observer_that_shows_the_hand():
    with pytest.raises(ValueError, match="need an observer"):
        MaskedActor(161, 1695, (16,), action_table(codecs.make("catalog")), rest=True)

    class NoHand(observers.Observer):
        name = "no-hand"

        def declare(self) -> list[observers.Piece]:
            return [observers.Piece("passes", (3,), "passes")]

        def write(self, view, pieces, game=None) -> None:  # never called here
            raise AssertionError

    with pytest.raises(ValueError, match="no-action-rest"):
        HandReader(NoHand())


@pytest.mark.parametrize("name", sorted(observers.REGISTRY))
def test_the_hand_reader_finds_the_hand_in_every_observer(name):
    game = Game(seed=3)
    for _ in range(9):  # a few plays in, so hands and history differ from the deal
        game.play(game.legal_moves()[-1])
    view = game.view(game.turn)
    observer = observers.make(name)
    obs = torch.as_tensor(observer.observe(view, game))[None]
    expected = [float(view.hand >> card & 1) for card in range(52)]
    assert HandReader(observer)(obs)[0].tolist() == expected


@pytest.mark.parametrize("name", sorted(observers.REGISTRY))
def test_each_observer_gets_a_body_suited_to_its_shape(name):
    observer = observers.make(name)
    body = make_body(observer, (32, 8))
    assert isinstance(body, PlanesBody) == (name == "planes")
    out = body(torch.zeros(3, observer.size))
    assert out.shape == (3, 8)


def test_the_planes_cnn_sees_where_cards_are():
    observer = observers.make("planes")
    torch.manual_seed(0)
    body = PlanesBody(observer, (16,))
    a, b = torch.zeros(1, observer.size), torch.zeros(1, observer.size)
    a[0, 0], b[0, 5] = 1.0, 1.0  # one card in the hand plane, at different places
    assert not torch.allclose(body(a), body(b))


def test_with_context_a_move_is_scored_knowing_the_other_legal_moves():
    codec = codecs.make("catalog")
    torch.manual_seed(0)
    actor = MaskedActor(observers.make("simple"), codec.n, (16,), action_table(codec), "mlp",
                        context=True)  # fmt: skip
    obs = np.random.default_rng(0).random((1, 161), dtype=np.float32).repeat(3, axis=0)
    legal = np.array([[0, 5, -1], [0, 9, 12], [0, 5, -1]])
    scores = actor.scores(obs, legal)
    assert scores[0, 0] != scores[1, 0]  # the same move beside other moves scores otherwise
    assert scores[0].tolist() == pytest.approx(scores[2].tolist(), abs=1e-6)
    assert scores[0, 2] == ILLEGAL
    plain = MaskedActor(observers.make("simple"), codec.n, (16,), action_table(codec), "mlp")
    assert plain.scorer is not None and plain.scorer.context is None


@pytest.mark.parametrize("context", [False, True])
def test_the_fused_head_reads_state_and_move_together(context):
    codec = codecs.make("catalog")
    torch.manual_seed(0)
    actor = MaskedActor(observers.make("simple"), codec.n, (16,), action_table(codec),
                        "fused", context=context)  # fmt: skip
    scorer = actor.scorer
    assert scorer is not None and scorer.fused
    assert scorer.state is None and scorer.bias is None  # no unused layers
    assert not any(name.startswith(("state.", "bias.")) for name in scorer.state_dict())
    assert (scorer.action is not None) == context  # action embeddings only to pool them
    first = scorer.joint[0]  # the body's output (16) beside the move's description (63)
    assert isinstance(first, torch.nn.Linear) and first.in_features == 16 + 52 + 10 + 1
    rng = np.random.default_rng(0)
    obs = rng.random((2, 161), dtype=np.float32)
    legal = np.array([[0, 5, 9], [0, 5, 9]])
    scores = actor.scores(obs, legal)
    assert not torch.allclose(scores[0], scores[1])  # the state changes every move's score
    # and a gradient reaches the body through every move's score
    actor.zero_grad()
    legal_distribution(scores).log_prob(torch.tensor([1, 2])).sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in actor.body.parameters())


def test_an_unknown_action_head_is_refused_by_name():
    codec = codecs.make("catalog")
    with pytest.raises(ValueError, match=r"action head must be one of .*'fused'.*got 'deep'"):
        MaskedActor(observers.make("simple"), codec.n, (16,), action_table(codec), "deep")


def test_pooling_takes_the_mean_and_maximum_of_each_row():
    items = torch.tensor([[1.0, -2.0], [3.0, -4.0], [5.0, 6.0]])
    out = pooled(items, torch.tensor([0, 0, 1]), 2)
    assert out.tolist() == [[2.0, -3.0, 3.0, -2.0], [5.0, 6.0, 5.0, 6.0]]
