"""Unit tests of the network pieces: rest features, the compact legal form and its distribution."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from big2.cards import parse_cards
from envs import codecs
from training.nets import (
    ILLEGAL,
    LegalCategorical,
    MaskedActor,
    action_features,
    compact,
    hand_offset,
    rest_features,
)


def bits(text: str) -> torch.Tensor:
    mask = parse_cards(text)
    return torch.tensor([[float(mask >> i & 1) for i in range(52)]])


def test_rest_features_describe_what_a_play_leaves():
    rest = rest_features(bits("3D 3C 5H 9S TS 2S"), bits("3D"))[0].tolist()
    # left: 3C 5H 9S TS 2S -> 5 cards, 5 singles, no pairs or triples, 3 singles below T
    assert rest == pytest.approx([5 / 13, 5 / 13, 0.0, 0.0, 3 / 7])
    pair = rest_features(bits("3D 3C 7H 7S 7D"), bits("3D 3C"))[0].tolist()
    assert pair == pytest.approx([3 / 13, 0.0, 0.0, 1 / 4, 0.0])


def test_compact_and_legal_categorical_agree_with_a_softmax_over_legal_actions():
    values = torch.tensor([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]])
    legal = torch.tensor([[True, False, True, True], [False, True, False, False]])
    dist = LegalCategorical(compact(values, legal))
    expected = torch.log_softmax(torch.tensor([0.0, 2.0, 3.0]), -1)
    assert dist.log_prob(torch.tensor([2, 1])).tolist() == pytest.approx([expected[1].item(), 0.0])
    assert dist.mode.tolist() == [3, 1]
    samples = torch.stack([dist.sample() for _ in range(200)])
    assert set(samples[:, 0].tolist()) <= {0, 2, 3} and set(samples[:, 1].tolist()) == {1}
    assert dist.entropy()[1].item() == pytest.approx(0.0)


@pytest.mark.parametrize("rest", [False, True])
def test_masked_actor_gives_illegal_actions_the_floor(rest):
    codec = codecs.make("catalog")
    features = action_features(codec)
    assert features is not None and features.shape == (codec.n, 52 + 10 + 1)
    hand_at = hand_offset(rest, "simple", "standard")
    actor = MaskedActor(161, codec.n, (16,), features, "mlp", hand_at)
    mask = np.zeros((1, codec.n), dtype=np.int8)
    mask[0, [0, 5, codec.pass_action]] = 1
    logits = actor.logits(np.random.default_rng(0).random((1, 161), dtype=np.float32), mask)
    assert (logits[0, mask[0] == 0] == ILLEGAL).all() and (logits[0, mask[0] == 1] > ILLEGAL).all()


def test_rest_features_need_a_hand_piece():
    with pytest.raises(ValueError, match="hand"):
        hand_offset(True, "charlesworth", "standard")
    assert hand_offset(False, "charlesworth", "standard") is None
