"""Networks over legal actions only: an MLP actor, critic and Q-network for masked Big Two.

A batch of positions comes with ``legal`` (B, K): each row's legal action ids first,
padded with -1 (the vector env's ``"legal"``). Networks score those K positions and
return (B, K) logits or Q-values, padding at -1e9 (not -inf, so entropies stay finite);
a policy's action is a *position* in its row, and ``legal[row, position]`` is the env
action. No full-width (17,859) mask or logit row reaches torch. Device moves happen in
:func:`to_tensor` only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.data import Batch, to_numpy
from tianshou.utils.net.common import ActionReprNet
from torch import nn

from envs.codecs import CatalogCodec, HandCodec
from envs.engine import MAX_COMBOS
from observers.base import Observer
from observers.moves import MoveFeatures
from training.bodies import ACTION_HEADS, HandReader, make_body, mlp

ILLEGAL = -1e9
REST_COUNTS = 5  # the columns of rest_counts


def to_tensor(x: Any, device: torch.device, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``x`` as a tensor of ``dtype`` on ``device`` (the one place inputs change device)."""
    if isinstance(x, torch.Tensor):
        return x.to(device=device, dtype=dtype)
    return torch.as_tensor(np.asarray(x), dtype=dtype, device=device)


def trim(legal: Any) -> np.ndarray:
    """Drop the columns of ``legal`` that are padding in every row (at least one stays).

    >>> trim(np.array([[4, 9, -1, -1], [3, -1, -1, -1]])).tolist()
    [[4, 9], [3, -1]]
    """
    arr: np.ndarray = to_numpy(legal)
    width = max(1, int((arr >= 0).sum(axis=1).max()) if len(arr) else 1)
    return arr[:, :width]


def rest_counts(hand: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """What each play leaves in the hand, counted: cards, and singles, pairs, triples+ and
    low singles (below T) when the rest is grouped by rank, each scaled to about [0, 1]."""
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


def action_table(codec: Any) -> np.ndarray | None:
    """The catalog codec's action descriptions, one row per action: 52 cards, category
    one-hot (10), pass flag; None for another codec (its actions' meaning is not fixed)."""
    catalog = getattr(codec, "catalog", None)
    if catalog is None:
        return None
    return _catalog_table(catalog).copy()


@functools.cache
def _catalog_table(catalog: Any) -> np.ndarray:
    """:func:`action_table` of a catalog, built once per rules (every network built, so
    every agent loaded, asks for it; built afresh it took a third of a second)."""
    n_rankings = 10
    rows = np.array([(c.index, c.cards, c.ranking) for c in catalog], dtype=np.int64)
    index, cards, ranking = rows.T
    out = np.zeros((len(catalog) + 1, 52 + n_rankings + 1), dtype=np.float32)
    out[index, :52] = (cards[:, None] >> np.arange(52)) & 1  # every combination's cards
    out[index, 52 + ranking - 1] = 1.0
    out[-1, -1] = 1.0  # the pass action, the codec's last
    return out


class ActionScorer(nn.Module):
    """Scores legal actions from the state and each action's description.

    Heads: ``dot``, the dot product of a state embedding and an embedding of the action's
    description (plus a bias from it); ``mlp``, a hidden layer over those two embeddings
    side by side; ``fused``, an MLP of two hidden layers over the body's output and the
    action's raw description side by side, so state and action meet at the first layer
    (as DouZero's Q-network reads state and move together).

    For the catalog codec an action's meaning is fixed, so it is described by a row of
    ``table`` (:func:`action_table`: its 52 cards, its category, a pass flag), optionally
    followed by what it leaves in the hand (:func:`rest_counts`) and its move features
    (:mod:`observers.moves`: the planner's view of it, who could answer it), and similar
    combinations share what is learned. ``plan`` holds what each column of the move
    features is multiplied by (empty: none are read). Work grows with the number of
    legal actions, not with 17,859.

    With ``context`` the state embedding also reads the set of legal moves: the mean and
    the maximum of their embeddings (a DeepSets pooling), so a move is scored knowing
    what else could be played instead.
    """

    def __init__(
        self,
        table: np.ndarray,
        width: int,
        embed: int = 128,
        head: str = "dot",
        hand: HandReader | None = None,
        plan: Sequence[float] = (),
        context: bool = False,
    ) -> None:
        super().__init__()
        if head not in ACTION_HEADS:
            raise ValueError(f"action head must be one of {ACTION_HEADS}, got {head!r}")
        self.hand, self.plan = hand, bool(plan)
        n_inputs = table.shape[1] + (REST_COUNTS if hand is not None else 0) + len(plan)
        # derived from the codec, so not saved in checkpoints (persistent=False)
        self.register_buffer("table", torch.as_tensor(table), persistent=False)
        self.register_buffer("plan_scale", torch.tensor(tuple(plan)), persistent=False)
        self.fused = head == "fused"
        # Built in the order the heads had before "fused" came (state, action, bias,
        # context, joint): initialisation draws from torch's RNG in that order, so a seed
        # gives the initial weights it gave then, those the shipped agents grew from.
        self.state = None if self.fused else nn.Linear(width, embed)
        # the actions' embeddings: what "dot" and "mlp" score, and what the context pools
        self.action = (
            nn.Sequential(nn.Linear(n_inputs, embed), nn.ReLU(), nn.Linear(embed, embed))
            if context or not self.fused
            else None
        )
        self.bias = None if self.fused else nn.Linear(n_inputs, 1)
        # the state's width where it meets the actions: the body's own for "fused"
        meets = width if self.fused else embed
        self.context = nn.Linear(2 * embed, meets) if context else None
        self.joint: nn.Module | None = None
        if self.fused:
            self.joint = nn.Sequential(
                nn.Linear(width + n_inputs, 2 * embed),
                nn.ReLU(),
                nn.Linear(2 * embed, embed),
                nn.ReLU(),
                nn.Linear(embed, 1),
            )
        elif head == "mlp":
            self.joint = nn.Sequential(nn.Linear(2 * embed, embed), nn.ReLU(), nn.Linear(embed, 1))

    def forward(
        self, hidden: torch.Tensor, legal: torch.Tensor, obs: torch.Tensor, plan: Any = None
    ) -> torch.Tensor:
        rows, slots = (legal >= 0).nonzero(as_tuple=True)
        f = self.table[legal[rows, slots]]  # type: ignore[index]
        if self.hand is not None:
            f = torch.cat([f, rest_counts(self.hand(obs)[rows], f[:, :52])], -1)
        if self.plan:
            if plan is None:
                raise ValueError("this actor scores actions with move features; pass `plan`")
            picked = to_tensor(np.asarray(plan)[:, : legal.shape[1]], f.device)[rows, slots]
            scale: torch.Tensor = self.plan_scale  # type: ignore[assignment]
            f = torch.cat([f, picked * scale], -1)
        scores = self._score(hidden, f, rows, len(legal))
        out = torch.full(legal.shape, ILLEGAL, dtype=scores.dtype, device=scores.device)
        out[rows, slots] = scores
        return out

    def _score(
        self, hidden: torch.Tensor, f: torch.Tensor, rows: torch.Tensor, n_rows: int
    ) -> torch.Tensor:
        """(N,) scores of the N legal actions described by ``f`` (action i of row
        ``rows[i]``) from the body's (B, width) output ``hidden``."""
        action = None if self.action is None else self.action(f)
        state = hidden if self.state is None else self.state(hidden)
        if self.context is not None:
            assert action is not None
            state = state + self.context(pooled(action, rows, n_rows))
        state = state[rows]
        if self.fused:
            assert self.joint is not None
            return self.joint(torch.cat([state, f], -1)).squeeze(-1)  # type: ignore[no-any-return]
        assert action is not None
        if self.joint is not None:
            return self.joint(torch.cat([state, action], -1)).squeeze(-1)  # type: ignore[no-any-return]
        assert self.bias is not None
        dot: torch.Tensor = (state * action).sum(-1) + self.bias(f).squeeze(-1)
        return dot


def pooled(items: torch.Tensor, rows: torch.Tensor, n_rows: int) -> torch.Tensor:
    """(n_rows, 2E): the mean and the maximum of the (N, E) ``items`` of each row
    (``rows[i]`` is item i's row; every row has at least one item).

    >>> pooled(torch.tensor([[1.0], [3.0], [5.0]]), torch.tensor([0, 0, 1]), 2).tolist()
    [[2.0, 3.0], [5.0, 5.0]]
    """
    width = items.shape[1]
    index = rows.unsqueeze(1).expand(-1, width)
    total = items.new_zeros(n_rows, width).index_add_(0, rows, items)
    count = items.new_zeros(n_rows).index_add_(0, rows, items.new_ones(len(rows)))
    top = items.new_full((n_rows, width), -torch.inf).scatter_reduce_(0, index, items, "amax")
    return torch.cat([total / count.unsqueeze(1), top], 1)


class MaskedActor(ActionReprNet):
    """Observations and legal ids -> logits over the legal positions (B, K): Tianshou's
    :class:`~tianshou.utils.net.common.ActionReprNet`, the actor its policies take.

    The body suits the observer's shape (:func:`training.bodies.make_body`: an MLP, or a
    CNN for card planes, or with ``body="gru"`` a GRU over its move history; a plain
    size means an MLP). With ``table`` (:func:`action_table`, one row per action: the
    catalog codec) the head is an :class:`ActionScorer` (``rest``: it also reads what
    each play leaves in the hand, which needs an observer; ``plan``: the scales of the
    move features' columns it reads, :func:`feature_scale`); without, a linear layer
    whose rows for the legal actions are gathered (the hand codec).
    """

    def __init__(
        self,
        observer: Observer | int,
        n_actions: int,
        hidden: Sequence[int] = (256, 128),
        table: np.ndarray | None = None,
        head: str = "dot",
        rest: bool = False,
        plan: Sequence[float] = (),
        context: bool = False,
        body: str = "auto",
    ) -> None:
        super().__init__()
        if plan and table is None:
            raise ValueError("move features need the catalog codec's action table")
        if rest and not isinstance(observer, Observer):
            raise ValueError("rest counts read the hand, so they need an observer, not a size")
        if isinstance(observer, Observer):
            self.body = make_body(observer, hidden, body)
            hand = HandReader(observer) if rest else None
        else:
            self.body, hand = mlp([observer, *hidden]), None
        self.scorer = None
        if table is not None:
            self.scorer = ActionScorer(
                table, hidden[-1], head=head, hand=hand, plan=plan, context=context
            )
        self.head = nn.Linear(hidden[-1], n_actions) if table is None else None

    @property
    def uses_plan(self) -> bool:
        """Whether :meth:`scores` needs the move features (plan, replies) of the legal
        actions."""
        return self.scorer is not None and self.scorer.plan

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def scores(self, obs: Any, legal: Any, plan: Any = None) -> torch.Tensor:
        """(B, K) logits of the legal positions of ``legal`` (trimmed), padding at -1e9."""
        ids = trim(legal)
        x = to_tensor(obs, self.device)
        legal_t = to_tensor(ids, self.device, torch.long)
        h = self.body(x)
        if self.scorer is not None:
            scored: torch.Tensor = self.scorer(h, legal_t, x, plan)
            return scored
        assert self.head is not None
        valid = legal_t >= 0
        safe = legal_t.clamp(min=0)
        weight, bias = self.head.weight[safe], self.head.bias[safe]  # (B, K, H), (B, K)
        out: torch.Tensor = (weight * h.unsqueeze(1)).sum(-1) + bias
        return out.masked_fill(~valid, ILLEGAL)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        """Tianshou's actor call: ``obs`` is a :class:`~envs.decisions.Decisions` record as a
        Batch (``.observation``, ``.legal``[, ``.features``])."""
        plan = obs.features if self.uses_plan else None
        return self.scores(obs.observation, obs.legal, plan), state


class Scores(Protocol):
    """What :class:`NumpyLogits` plays: anything that scores the legal positions as
    :class:`MaskedActor` does, one network or several as one (an
    :class:`~training.ensemble.Ensemble`; :data:`training.ensemble.Actor` is either)."""

    def scores(self, obs: Any, legal: Any, plan: Any = None) -> torch.Tensor: ...


def legal_distribution(logits: torch.Tensor) -> torch.distributions.Categorical:
    """The policy's distribution over legal positions (padding has logit -1e9). Its
    arguments are not validated: the logits are the network's own, and torch's checks of
    them cost a tenth of a collection step's forward pass."""
    return torch.distributions.Categorical(logits=logits, validate_args=False)


class Critic(nn.Module):
    """Record Batch -> state value (B, 1), read from ``obs.<key>`` (``"critic"``: a
    centralised critic's own observation; ``"observation"``: the actor's)."""

    def __init__(
        self, observer: Observer, hidden: Sequence[int] = (256, 128), key: str = "observation"
    ) -> None:
        super().__init__()
        self.body = make_body(observer, hidden)
        self.head = nn.Linear(hidden[-1], 1)
        self.key = key

    def forward(self, obs: Any, **kwargs: Any) -> torch.Tensor:
        x = to_tensor(getattr(obs, self.key), next(self.parameters()).device)
        return self.head(self.body(x))  # type: ignore[no-any-return]


class QNet(MaskedActor):
    """obs Batch -> Q-values of the legal positions (B, K), padding at -1e9."""


class MaskedQPolicy(DiscreteQLearningPolicy):
    """Tianshou's DQN policy over legal positions: its mask is ``legal >= 0`` (B, K)."""

    def forward(self, batch: Any, state: Any = None, model: Any = None) -> Any:
        model = self.model if model is None else model
        values, hidden = model(batch.obs, state=state, info=batch.info)
        legal = to_numpy(values > ILLEGAL / 2)  # the scores mark the padding
        q = self.compute_q_value(values, legal)
        return Batch(logits=values, act=to_numpy(q.argmax(dim=1)), state=hidden)


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Run the block with ``threads`` torch threads; restore the count afterwards.

    The count is part of reproducibility: with two threads, two runs of the same seed
    ended with weights that differed in the last bits when the machine was busy (seen in
    tests/test_distributed.py), while one thread gave identical weights every time.
    It is also speed: a network asked about one position at a time gains nothing from
    a second thread and loses a lot when the cores are busy (the arena with ``trained``,
    50 deals against random players beside two busy processes on 2 cores: 11.6 s with
    one thread, 51.6 s with two).
    """
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class NumpyLogits:
    """The network as a policy for :class:`envs.policy_agent.PolicyAgent`: (observation,
    mask[, plan rows]) -> logits over every action (numpy; -1e9 off the mask).

    Only the legal actions reach the network; ``plan`` has one row per legal action in
    ascending action order. A class, not a closure, so agents holding it pickle into
    arena workers. It runs on one torch thread (:func:`torch_threads`): the arena
    parallelises over processes (``--workers``), not inside one position's forward pass.
    """

    def __init__(self, net: Scores) -> None:
        self.net = net  # used as is: no dropout or batch norm, so the mode does not matter

    def __call__(
        self, obs: np.ndarray, mask: np.ndarray, plan: np.ndarray | None = None
    ) -> np.ndarray:
        legal = np.flatnonzero(mask)
        with torch.no_grad(), torch_threads(1):
            scores = self.net.scores(obs[None], legal[None], None if plan is None else plan[None])
        out = np.full(mask.shape, ILLEGAL, dtype=np.float32)
        out[legal] = scores[0].cpu().numpy()
        return out


@dataclass(frozen=True)
class NetworkSpec:
    """What a run's networks are built from, resolved: the actor's observer and codec, the
    critic's observer, the layer widths and the head's choices (``--help``'s network
    group). :func:`training.spec.resolve` builds it from a config's names; the sizes the
    networks need follow from it.

    >>> import observers
    >>> from envs import codecs
    >>> net = NetworkSpec(observers.make("simple"), codecs.make("hand"), hidden=(16,))
    >>> net.obs_size, net.n_actions, net.critic_size, net.store_width
    (161, 1695, 161, 1695)
    """

    observer: Observer
    codec: CatalogCodec | HandCodec
    hidden: tuple[int, ...] = (256, 128)
    body: str = "auto"
    head: str = "dot"
    rest: bool = True
    context: bool = False
    plan: tuple[float, ...] = ()  # the scales of the legal features' columns (none: empty)
    critic: Observer | None = None  # a centralised critic's own observer (None: the actor's)

    @property
    def obs_size(self) -> int:
        """The actor's observation size."""
        return self.observer.size

    @property
    def n_actions(self) -> int:
        """The codec's number of actions."""
        return self.codec.n

    @property
    def critic_size(self) -> int:
        """The critic's input size."""
        return (self.critic or self.observer).size

    @property
    def store_width(self) -> int:
        """The most legal actions a position can have (the width of a DQN buffer's lists)."""
        return min(MAX_COMBOS + 1, self.n_actions)


def make_actor(network: NetworkSpec, kind: type[MaskedActor] = MaskedActor) -> MaskedActor:
    """The acting network ``network`` describes: PPO's actor, or DQN's Q-network (``QNet``)."""
    if not isinstance(network, NetworkSpec):
        raise TypeError(
            f"make_actor takes a resolved NetworkSpec, not {type(network).__name__}: for a "
            f"Config, make_actor(training.spec.resolve(cfg).network)"
        )
    codec = network.codec
    scoring = (action_table(codec), network.head, network.rest, network.plan, network.context)
    return kind(network.observer, codec.n, network.hidden, *scoring, network.body)


def make_critic(network: NetworkSpec) -> Critic:
    """PPO's critic: over the critic's own observation (the env's ``"critic"`` key) when
    ``network`` has one, else over the actor's."""
    key = "observation" if network.critic is None else "critic"
    return Critic(network.critic or network.observer, network.hidden, key=key)


def feature_scale(features: MoveFeatures | None) -> tuple[float, ...]:
    """What the actor multiplies each column of its move features by (none: empty)."""
    return () if features is None else features.scale
