"""Networks for masked Big Two actions: a shared-shape MLP actor, critic and Q-network.

Illegal actions get logits (or Q-values) of -1e9, not -inf, so entropies stay finite.
The actor returns logits (for Tianshou's ``DiscreteActorPolicy``), not probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.data import Batch, to_numpy
from torch import nn

import observers
from training.features import PLAN_FEATURES
from training.features import SCALE as PLAN_SCALE

ILLEGAL = -1e9


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers with ReLU between them (and after the last)."""
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


def _tensor(x: Any, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return (
        x.to(dtype) if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x), dtype=dtype)
    )


class LegalCategorical(torch.distributions.Distribution):
    """A categorical distribution over each row's legal actions only.

    Built from the compact actor output (batch, L, 2): scores and action ids, padded
    with score -1e9 and id -1. Sampling, log-probabilities and entropy cost O(L)
    instead of O(number of actions); samples and ``log_prob`` use action ids.
    """

    arg_constraints: dict[str, Any] = {}  # noqa: RUF012

    def __init__(self, compact: torch.Tensor) -> None:
        self.inner = torch.distributions.Categorical(logits=compact[..., 0])
        self.ids = compact[..., 1].long()
        super().__init__(batch_shape=self.inner.batch_shape, validate_args=False)

    def sample(self, sample_shape: Any = ()) -> torch.Tensor:
        return self._to_ids(self.inner.sample(torch.Size(sample_shape)))

    @property
    def mode(self) -> torch.Tensor:
        logits: torch.Tensor = self.inner.logits
        return self._to_ids(logits.argmax(-1))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        position = (self.ids == torch.as_tensor(value).long().unsqueeze(-1)).float().argmax(-1)
        out: torch.Tensor = self.inner.log_prob(position)
        return out

    def entropy(self) -> torch.Tensor:
        out: torch.Tensor = self.inner.entropy()
        return out

    @property
    def variance(self) -> torch.Tensor:
        out: torch.Tensor = self.inner.variance  # NaN, as torch's Categorical (Tianshou logs it)
        return out

    def _to_ids(self, position: torch.Tensor) -> torch.Tensor:
        ids: torch.Tensor = self.ids.gather(-1, position.unsqueeze(-1)).squeeze(-1)
        return ids


def compact(values: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Full-width masked values (batch, n) -> (batch, L, 2) of legal scores and action ids."""
    rows, cols = legal.nonzero(as_tuple=True)
    counts = legal.sum(-1)
    width = max(int(counts.max()), 1)
    slot = torch.arange(len(rows)) - torch.repeat_interleave(counts.cumsum(0) - counts, counts)
    out = torch.full((legal.shape[0], width, 2), -1.0)
    out[..., 0] = ILLEGAL
    out[rows, slot, 0] = values[rows, cols]
    out[rows, slot, 1] = cols.to(out.dtype)
    return out


REST_FEATURES = 5


def hand_offset(enabled: bool, observer: str, rules: str) -> int | None:
    """Where ``observer``'s 52 hand bits start, if rest features are ``enabled``."""
    if not enabled:
        return None
    encoder = observers.make(observer, rules)
    if "hand" not in encoder.offsets:
        raise ValueError(
            f"action_rest needs an observer with a 'hand' piece, not {observer!r} "
            f"(pass --no-action-rest)"
        )
    return encoder.offsets["hand"]


def rest_features(hand: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """What each play leaves in the hand: cards, and singles, pairs, triples+ and low
    singles (below T) when the rest is grouped by rank, each scaled to about [0, 1]."""
    rest = (hand - action).clamp(min=0)
    counts = rest.view(-1, 13, 4).sum(-1)
    singles = counts == 1
    return torch.stack(
        [
            rest.sum(-1) / 13,
            singles.sum(-1) / 13,
            (counts == 2).sum(-1) / 6,
            (counts >= 3).sum(-1) / 4,
            singles[:, :7].sum(-1) / 7,
        ],
        -1,
    ).to(hand.dtype)


class ActionScorer(nn.Module):
    """Scores only the legal actions: ``<state embedding, embedding of the action's features>``.

    For the catalog codec an action's meaning is fixed, so it is described by features
    (its 52 cards, its category, a pass flag) and similar combinations share what is
    learned. Work is proportional to the number of legal actions, not to 17,859.
    """

    def __init__(
        self,
        features: np.ndarray,
        width: int,
        embed: int = 128,
        head: str = "dot",
        hand_at: int | None = None,
        plan: bool = False,
    ) -> None:
        super().__init__()
        if head not in ("dot", "mlp"):
            raise ValueError(f"action head must be 'dot' or 'mlp', got {head!r}")
        # hand_at: where the observation's 52 hand bits start; then each action also gets
        # features of what it leaves in the hand (see rest_features)
        self.hand_at = hand_at
        # plan: each action also gets its column of the plan features (training.features)
        self.plan = plan
        n_features = (
            features.shape[1]
            + (REST_FEATURES if hand_at is not None else 0)
            + (PLAN_FEATURES if plan else 0)
        )
        # derived from the codec, so not saved in checkpoints (persistent=False)
        features_t = torch.as_tensor(features, dtype=torch.float32)
        self.register_buffer("features", features_t, persistent=False)
        self.register_buffer("plan_scale", torch.tensor(PLAN_SCALE), persistent=False)
        self.state = nn.Linear(width, embed)
        self.action = nn.Sequential(nn.Linear(n_features, embed), nn.ReLU(),
                                    nn.Linear(embed, embed))  # fmt: skip
        self.bias = nn.Linear(n_features, 1)
        # "mlp": score = MLP([state embedding, action embedding]); "dot": their dot product
        self.joint = (
            nn.Sequential(nn.Linear(2 * embed, embed), nn.ReLU(), nn.Linear(embed, 1))
            if head == "mlp"
            else None
        )

    def forward(
        self,
        hidden: torch.Tensor,
        mask: torch.Tensor,
        obs: torch.Tensor | None = None,
        plan: Any = None,
    ) -> torch.Tensor:
        rows, cols = mask.nonzero(as_tuple=True)
        f = self.features[cols]  # type: ignore[index]
        if self.hand_at is not None:
            assert obs is not None
            hand = obs[rows, self.hand_at : self.hand_at + 52]
            f = torch.cat([f, rest_features(hand, f[:, :52])], -1)
        if self.plan:
            if plan is None:
                raise ValueError("this actor scores actions with plan features; pass `plan`")
            # index the int8 array first: only the legal columns become floats
            picked = torch.as_tensor(np.asarray(plan))[rows, :, cols].to(f.dtype)
            scale: torch.Tensor = self.plan_scale  # type: ignore[assignment]
            f = torch.cat([f, picked * scale], -1)
        state, action = self.state(hidden)[rows], self.action(f)
        if self.joint is not None:
            scores = self.joint(torch.cat([state, action], -1)).squeeze(-1)
        else:
            scores = (state * action).sum(-1) + self.bias(f).squeeze(-1)
        out = torch.full(mask.shape, ILLEGAL, dtype=scores.dtype)
        out[rows, cols] = scores
        return out


class MaskedActor(nn.Module):
    """obs Batch (``.obs``, ``.mask``) -> masked logits, state.

    With ``features`` (one row per action) the head is an :class:`ActionScorer`;
    without, a linear layer over all actions.
    """

    def __init__(
        self,
        obs_size: int,
        n_actions: int,
        hidden: Sequence[int] = (512, 256),
        features: np.ndarray | None = None,
        head: str = "dot",
        hand_at: int | None = None,
        plan: bool = False,
    ) -> None:
        super().__init__()
        if plan and features is None:
            raise ValueError("plan features need the catalog codec's action features")
        self.body = mlp([obs_size, *hidden])
        self.scorer = (
            None
            if features is None
            else ActionScorer(features, hidden[-1], head=head, hand_at=hand_at, plan=plan)
        )
        self.head = nn.Linear(hidden[-1], n_actions) if features is None else None

    @property
    def uses_plan(self) -> bool:
        """Whether :meth:`logits` needs the plan features of the position."""
        return self.scorer is not None and self.scorer.plan

    def logits(self, obs: Any, mask: Any, plan: Any = None) -> torch.Tensor:
        x, legal = _tensor(obs), _tensor(mask, torch.bool)
        h = self.body(x)
        if self.scorer is not None:
            scored: torch.Tensor = self.scorer(h, legal, x, plan)
            return scored
        assert self.head is not None
        full: torch.Tensor = self.head(h)
        return full.masked_fill(~legal, ILLEGAL)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        """The compact (batch, L, 2) form for :class:`LegalCategorical` (Tianshou's actor call)."""
        legal = _tensor(obs.mask, torch.bool)
        plan = obs.plan if self.uses_plan else None
        return compact(self.logits(obs.obs, legal, plan), legal), state


class Critic(nn.Module):
    """obs Batch -> state value (batch, 1), read from ``obs.<key>`` ("critic": centralised)."""

    def __init__(self, obs_size: int, hidden: Sequence[int] = (512, 256), key: str = "obs") -> None:
        super().__init__()
        self.body = mlp([obs_size, *hidden])
        self.head = nn.Linear(hidden[-1], 1)
        self.key = key

    def forward(self, obs: Any, **kwargs: Any) -> torch.Tensor:
        return self.head(self.body(_tensor(getattr(obs, self.key))))  # type: ignore[no-any-return]


class QNet(MaskedActor):
    """obs Batch (``.obs``, ``.mask``) -> Q-values, illegal actions at -1e9.

    Tianshou's DQN policy hands its model ``obs.obs`` only; :class:`MaskedQPolicy`
    hands it the whole Batch so the scorer sees the mask.
    """

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        return self.logits(obs.obs, obs.mask, obs.plan if self.uses_plan else None), state


class MaskedQPolicy(DiscreteQLearningPolicy):
    """Tianshou's DQN policy, calling its model with the observation Batch (obs and mask)."""

    def forward(self, batch: Any, state: Any = None, model: Any = None) -> Any:
        model = self.model if model is None else model
        obs = batch.obs
        values, hidden = model(obs, state=state, info=batch.info)
        q = self.compute_q_value(values, getattr(obs, "mask", None))
        return Batch(logits=values, act=to_numpy(q.argmax(dim=1)), state=hidden)


def action_features(codec: Any) -> np.ndarray | None:
    """Per action of a catalog codec: 52 cards, category one-hot (10), pass flag; else None."""
    catalog = getattr(codec, "catalog", None)
    if catalog is None:
        return None
    n_rankings = 10
    out = np.zeros((codec.n, 52 + n_rankings + 1), dtype=np.float32)
    for combo in catalog:
        for card in range(52):
            if combo.cards >> card & 1:
                out[combo.index, card] = 1.0
        out[combo.index, 52 + combo.ranking - 1] = 1.0
    out[codec.pass_action, -1] = 1.0
    return out


class NumpyLogits:
    """The network as a policy for :class:`envs.policy_agent.PolicyAgent`: (observation,
    mask[, plan features]) -> masked logits (numpy) on one position.

    A class, not a closure, so agents holding it pickle into arena workers.
    """

    def __init__(self, net: MaskedActor) -> None:
        self.net = net  # used as is: no dropout or batch norm, so the mode does not matter

    def __call__(
        self, obs: np.ndarray, mask: np.ndarray, plan: np.ndarray | None = None
    ) -> np.ndarray:
        with torch.no_grad():
            out = self.net.logits(obs[None], mask[None], None if plan is None else plan[None])
        result: np.ndarray = out[0].numpy()
        return result
