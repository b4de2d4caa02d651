"""OpenSkill ratings of agents from four-seat games (Plackett-Luce, the ``openskill`` package).

A game's ranking is its winner first, then the losers by score (higher first); losers
with the same score share a rank. Every seat is a player rated as in a four-player
free-for-all (four teams of one), each holding its agent's rating before the game. An
agent with several seats at the table (three copies against one other agent) takes the
mean of its seats' new ratings (``mu`` and ``sigma``): every game counts once for every
agent at the table, and the copies' places among themselves, which say nothing about the
agent, weigh no more than one seat's. An agent whose places match what the ratings
predict still does not move on average, so the mean keeps the ratings the sum would
reach, with steps a third as long for the three copies; and the league plays every pair
both ways, so each agent is the single seat as often as the copies.

The agents do not change while they are rated, so the model's dynamics ``tau`` is 0 (no
drift of skill between games; OpenSkill's default adds some for players who improve).
Updates depend on their order: callers rate games in a fixed order (the league's is in
:mod:`big2.evaluation.league`), so the same games give the same ratings.

>>> ratings = Ratings(["greedy", "random"])
>>> ratings.rate(["greedy", "random", "random", "random"], (30, -10, -8, -12), 0)
>>> ratings.mu("greedy") > 25 > ratings.mu("random")
True
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce


def ranking(scores: Sequence[int], winner: int) -> list[int]:
    """Each seat's place (1 is first): the winner, then the losers by score; equal
    scores share a place.

    >>> ranking((20, -5, -10, -5), 0)
    [1, 2, 4, 2]
    """
    order = [(seat == winner, score) for seat, score in enumerate(scores)]
    return [1 + sum(other > mine for other in order) for mine in order]


class Ratings:
    """The OpenSkill ratings of named agents, all starting from the model's prior."""

    def __init__(self, names: Sequence[str]) -> None:
        self.model = PlackettLuce(tau=0.0)
        prior = self.model.rating()
        self.table = {name: (prior.mu, prior.sigma) for name in names}

    def mu(self, name: str) -> float:
        """The agent's rating (the mean of its skill's estimate)."""
        return self.table[name][0]

    def sigma(self, name: str) -> float:
        """The standard deviation of the agent's skill's estimate."""
        return self.table[name][1]

    def rate(self, seats: Sequence[str], scores: Sequence[int], winner: int) -> None:
        """Update with one game: ``seats[k]`` the agent in seat k, ``scores`` by seat,
        ``winner`` the winning seat (see the module docstring)."""
        teams = [[self.model.rating(*self.table[name])] for name in seats]
        rated = self.model.rate(teams, ranks=[float(r) for r in ranking(scores, winner)])
        for name in dict.fromkeys(seats):
            mine = [team[0] for team, seat in zip(rated, seats, strict=True) if seat == name]
            mu = sum(r.mu for r in mine) / len(mine)
            self.table[name] = (mu, sum(r.sigma for r in mine) / len(mine))
