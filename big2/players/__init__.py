"""Players: the :class:`Agent` protocol, the :func:`play` loop, baselines and search.

Everything here sits above the game modules of :mod:`big2` and reads a seat's
:class:`~big2.game.View` only (search deals the unseen cards itself).

>>> from big2.game import Game
>>> agents = [load_agent(spec) for spec in ("heuristic", "greedy", "random:1", "random:2")]
>>> play(Game(seed=0), agents).is_over
True
"""

from big2.players.base import Agent, agent_name, play
from big2.players.baselines import GreedyAgent, RandomAgent
from big2.players.heuristic import HeuristicAgent
from big2.players.search import SearchAgent
from big2.players.specs import AgentSpec, load_agent

__all__ = [
    "Agent",
    "AgentSpec",
    "GreedyAgent",
    "HeuristicAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_name",
    "load_agent",
    "play",
]
