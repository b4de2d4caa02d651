"""What a player is, and the one loop that lets players play a game.

An agent has ``act(view, legal_moves) -> move``: it sees only its seat's
:class:`~big2.game.View` and picks one of the legal moves. :func:`play` is the game
loop that the CLI, the arena, search rollouts, the training env, benches and tests use.

One exception to "only its view", for research upper bounds: an agent whose
``sees_every_hand`` is true is shown the whole game (``agent.show(game)``) before each
of its moves. Only a policy on a perfect-information observer, made with ``cheat=True``
(:class:`envs.policy_agent.PolicyAgent`), does that; results of such agents are labelled
as cheating wherever they are reported.

>>> from big2.game import Game
>>> from big2.players.baselines import GreedyAgent, RandomAgent
>>> game = play(Game(seed=1), [GreedyAgent(), RandomAgent(0), GreedyAgent(), RandomAgent(1)])
>>> game.is_over, sum(game.scores())
(True, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from big2.game import Game, View
from big2.hand_ranking import HandRanking


@runtime_checkable
class Agent(Protocol):
    """Anything that picks one of the legal moves from a seat's view."""

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking: ...


def play(
    game: Game,
    agents: Agent | Sequence[Agent],
    until: Callable[[Game], bool] | None = None,
) -> Game:
    """Let ``agents`` move in ``game`` until it is over, or until ``until(game)`` holds.

    ``agents`` is one agent per seat (``agents[seat]``), or one agent for every seat.
    ``until`` is checked before each move (e.g. ``lambda g: g.turn == me`` stops when
    it is ``me``'s turn). An illegal move raises :class:`~big2.game.IllegalMove` and
    leaves the game as it was before that move. An agent that says what it weighed (a
    ``last_thought`` attribute, set by every ``act``) has it kept in ``game.log.thoughts``.
    Returns ``game``.

    >>> from big2.players.baselines import GreedyAgent
    >>> game = play(Game(seed=0), GreedyAgent(), until=lambda g: len(g.log.moves) == 3)
    >>> len(game.log.moves), game.is_over
    (3, False)
    """
    by_seat = _by_seat(agents, game.rules.players)
    while game.winner is None and not (until is not None and until(game)):
        seat = game.turn
        agent = by_seat[seat]
        if getattr(agent, "sees_every_hand", False):
            agent.show(game)  # type: ignore[attr-defined]  # a cheat: see the module doc
        move = agent.act(game.view(seat), game.legal_moves())
        thought = getattr(agent, "last_thought", None)
        number = len(game.log.moves)
        game.play(move)
        if thought is not None:
            game.log.thoughts[number] = thought
    return game


def agent_name(agent: object) -> str:
    """An agent's ``name`` (its class's name if it has none), as results and logs show it.

    >>> from big2.players.baselines import GreedyAgent
    >>> agent_name(GreedyAgent()), agent_name(object())
    ('greedy', 'object')
    """
    return str(getattr(agent, "name", type(agent).__name__))


def _by_seat(agents: Agent | Sequence[Agent], seats: int) -> Sequence[Agent]:
    if isinstance(agents, Agent):
        return [agents] * seats
    if len(agents) != seats or not all(isinstance(a, Agent) for a in agents):
        raise ValueError(
            f"play needs one agent or {seats} agents (one per seat), each with act(view, "
            f"legal_moves); got {agents!r}"
        )
    return agents
