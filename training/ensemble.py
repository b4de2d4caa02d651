"""Ensembles: policies trained alike from different seeds, playing as one.

An :class:`Ensemble`'s logits over the legal moves are the mean of its members'
log-probabilities, so its policy is the normalised geometric mean of theirs and its
greedy move the one whose probabilities multiply to the most: a move one member rules
out is ruled out. Policies from different training seeds make different mistakes, and
the product keeps what they agree on. Measured on the observer study's final policies
(3 seeds of ``simple`` at 2M decisions, 1,000 deals of seed 2026): the seeds alone won
0.843 / 0.460 / 0.317 against random / greedy / heuristic players on average, their
ensemble 0.860 / 0.480 / 0.338 (docs/training.md has the command and the recipes' figures).

An ensemble's checkpoint (:func:`training.export.ensemble_data`; ``python -m
training.export A.pt B.pt OUT.pt``) holds the members' acting weights under
``policy.actor.members.<m>.``, and :func:`training.checkpoint.actor_from` reads it back
as an :class:`Ensemble`. Only PPO policies combine (DQN's Q-values are no
log-probabilities), and only networks of one architecture.

>>> import numpy as np
>>> from training.config import Config
>>> from training.nets import make_actor
>>> from training.spec import resolve
>>> network = resolve(Config(plan_features=False, reply_features=False)).network
>>> net, obs, legal = make_actor(network), np.zeros((1, network.obs_size)), [[3, 7, -1]]
>>> alone = torch.log_softmax(net.scores(obs, legal)[0, :2], 0)
>>> torch.allclose(Ensemble([net, net]).scores(obs, legal)[0, :2], alone)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import torch
from torch import nn

from training.nets import ILLEGAL, MaskedActor, QNet, to_tensor, trim


class Ensemble(nn.Module):
    """Networks scoring the same legal moves, combined (module docstring): the acting
    interface of :class:`~training.nets.MaskedActor` (``scores``, ``uses_plan``,
    ``device``), so it plays wherever one network does, search rollouts included."""

    def __init__(self, members: Sequence[MaskedActor]) -> None:
        super().__init__()
        if not members:
            raise ValueError("an ensemble needs at least one network")
        if any(isinstance(m, QNet) for m in members):
            raise ValueError("an ensemble combines policies; Q-networks (DQN) do not combine")
        self.members = nn.ModuleList(members)

    @property
    def nets(self) -> list[MaskedActor]:
        """The members."""
        return [cast(MaskedActor, m) for m in self.members]

    @property
    def uses_plan(self) -> bool:
        """Whether :meth:`scores` needs the move features (the members are built alike)."""
        return self.nets[0].uses_plan

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def scores(self, obs: Any, legal: Any, plan: Any = None) -> torch.Tensor:
        """(B, K) mean log-probabilities of the legal positions, padding at -1e9."""
        logs = [torch.log_softmax(m.scores(obs, legal, plan), -1) for m in self.nets]
        valid = to_tensor(trim(legal) >= 0, self.device, torch.bool)
        return torch.stack(logs).mean(0).masked_fill(~valid, ILLEGAL)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        """The acting call of Tianshou, as :meth:`MaskedActor.forward`."""
        plan = obs.features if self.uses_plan else None
        return self.scores(obs.observation, obs.legal, plan), state


Actor = MaskedActor | Ensemble  # what plays: one network, or several as one
