"""OpenSpiel's ISMCTS bot as a big2 agent, for the arena, ``big2 play`` and the page.

An agent sees its seat's view only (:mod:`big2.players.base`), while an OpenSpiel bot
steps a state. :class:`ISMCTSAgent` bridges them without keeping a state in lockstep
with the arena's game: each ``act`` builds a ``python_big2`` state from the view
(:func:`envs.openspiel.state_from_view`: the cards the seat has not seen dealt at
random, the public moves replayed) and runs OpenSpiel's
:class:`~open_spiel.python.algorithms.ismcts.ISMCTSBot` on it. The bot samples a new
world from the seat's information state at every simulation (the state's
``resample_from_infostate``, drawing from the agent's seeded ``random.Random``), so the
first deal tells it nothing beyond the view. What it assumes: the hidden cards lie
uniformly among the other seats, given their card counts and what they have played;
like big2's search agent, it reads nothing more from how the opponents played.

Rollouts (the bot's evaluator) are OpenSpiel's random ones (``rollouts="random"``) or
:class:`AgentRollouts`: big2's heuristic plays every seat to the end
(``"heuristic"``, the default: far better informed, and as fast in Python).

As an agent spec: ``envs.openspiel_agent:ISMCTSAgent`` (``big2 arena``, ``big2 play``).

>>> from big2.game import Game
>>> from big2.players import HeuristicAgent, play
>>> agents = [ISMCTSAgent(simulations=4, seed=0), *[HeuristicAgent()] * 3]
>>> play(Game(seed=0), agents).is_over
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from big2 import rules as R
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.players import Agent, HeuristicAgent, play
from envs.openspiel import BigTwoGame, BigTwoState, state_from_view
from envs.rewards import final_rewards

ROLLOUTS = ("heuristic", "random")


class AgentRollouts(mcts.Evaluator):
    """An MCTS evaluator: ``agent`` plays every seat from the state to the end; the
    returns are the game's rewards. The prior is uniform over the legal actions."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def evaluate(self, state: BigTwoState) -> np.ndarray:
        """The returns of the game played out from ``state``."""
        game = play(state.game.copy(), self.agent)
        rewards = final_rewards(game.scores(), game.winner, game.rules, state.get_game().reward)
        return np.array(rewards)

    def prior(self, state: BigTwoState) -> list[tuple[int, float]]:
        """Equal probabilities for the legal actions."""
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


class ISMCTSAgent:
    """OpenSpiel's ISMCTS playing one seat (see the module docstring).

    Args:
        rules: the rules played (a preset: the game's ``rules`` parameter).
        seed: seeds the sampled worlds and the bot's choices; :meth:`reset` reseeds.
        simulations: ISMCTS simulations per decision (each one a sampled world).
        uct_c: the UCT exploration constant, for returns of about [-1, 3] (``reward``).
        rollouts: ``"heuristic"`` (:class:`AgentRollouts`) or ``"random"``.
        reward: what the bot maximises (a ``python_big2`` reward; ``"score_normalized"``
            is the score over the largest penalty).
    """

    name = "ismcts"

    def __init__(
        self,
        rules: R.Rules | str = R.STANDARD,
        seed: int | None = None,
        simulations: int = 100,
        uct_c: float = 1.0,
        rollouts: str = "heuristic",
        reward: str = "score_normalized",
    ) -> None:
        if rollouts not in ROLLOUTS:
            raise ValueError(f"unknown rollouts {rollouts!r}; expected one of {ROLLOUTS}")
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        self.rules = R.get(rules)
        if self.rules.name not in R.PRESETS:
            raise ValueError(f"python_big2 plays the presets {sorted(R.PRESETS)}, not {rules}")
        self.simulations, self.uct_c, self.rollouts = simulations, uct_c, rollouts
        self.spiel = BigTwoGame({"rules": self.rules.name, "reward": reward})
        self._rng = random.Random(seed)

    def reset(self, seed: int) -> None:
        """Reseed the agent (the arena does before every game)."""
        self._rng = random.Random(seed)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        """The bot's move for ``view``'s seat: one of ``legal_moves``."""
        if len(legal_moves) == 1:
            return legal_moves[0]
        state = state_from_view(self.spiel, view, self._rng)
        action = self._bot().step(state)
        move = self.spiel.codec.decode(action)
        if move not in legal_moves:
            raise ValueError(f"ISMCTS chose {move}, which is not among the legal moves")
        return move

    def _bot(self) -> ismcts.ISMCTSBot:
        numpy_rng = np.random.RandomState(self._rng.getrandbits(32))
        evaluator = (
            AgentRollouts(HeuristicAgent())
            if self.rollouts == "heuristic"
            else mcts.RandomRolloutEvaluator(random_state=numpy_rng)
        )
        bot = ismcts.ISMCTSBot(
            self.spiel, evaluator, self.uct_c, self.simulations, random_state=numpy_rng
        )
        bot.set_resampler(self._resample)
        return bot

    def _resample(self, state: BigTwoState, player: int) -> BigTwoState:
        return state.resample_from_infostate(player, self._rng)

    def __repr__(self) -> str:
        return (
            f"ISMCTSAgent(rules={self.rules.name!r}, simulations={self.simulations}, "
            f"uct_c={self.uct_c}, rollouts={self.rollouts!r}, reward={self.spiel.reward!r})"
        )
