"""Big Two as an OpenSpiel game: importing this module registers ``python_big2`` with pyspiel.

Needs the ``openspiel`` extra (``pip install 'big2[openspiel]'``). The game is built on
:class:`big2.game.Game` (the readable engine), so OpenSpiel's algorithms, bots and
tests run on the same rules as everything else here.

- **Type**: sequential, imperfect information, explicit chance (the deal), terminal
  rewards, two to four players (the game type's range; a game's ``num_players()`` is its
  rules' ``players``), zero-sum: every reward below sums to zero over the seats
  (``Game.scores()``: the losers pay their penalties to the winner).
- **Parameters**: ``rules`` (a preset: ``"standard"``, ``"charlesworth"``,
  ``"three-player"``, ...), ``observer`` (the observation tensor's observer, a registered
  name: ``"simple"`` by default; ``charlesworth`` is for four players only) and ``reward``
  (``"score"``, the game's score, by default; ``"score_normalized"`` or ``"win"``, as in
  the PettingZoo env; ``"shaped"`` is not terminal and is refused).
- **Chance**: the first 52 nodes deal the deck, one card each (the first 13 to seat 0,
  the next 13 to seat 1, ...: ``52 // players`` each; of three players the 52nd card, the
  leftover, goes where the rules send it, to the opening card's holder); action ``c``
  deals card index ``c`` (3♦ is 0).
- **Actions**: the PettingZoo env's ``catalog`` actions: action ``i`` plays
  ``catalog(rules)[i]`` and the last one passes (17,859 under STANDARD, 21,076 under
  CHARLESWORTH); legal actions come in that order. CHARLESWORTH's automatic opening 3♦
  is made by the rules at the end of the deal, not by a player.
- **Tensors**: the observation tensor is the ``observer``'s vector of the seat's view;
  the information-state tensor is ``history``'s with room for every move of a game
  (``k = max_history(players)``), so it recalls the whole game. Their ``dict`` views are the
  observers' named pieces. During the deal both are zeros (nobody acts then).
- **Strings**: the information state is the seat's dealt hand and every public move;
  the observation is :func:`big2.render.render_text` with only the seat's own hand.
- **Resampling**: ``state.resample_from_infostate(player, sampler)`` deals the cards
  ``player`` has not seen at random (each seat keeps its card count) and replays the
  public moves: what OpenSpiel's ISMCTS samples worlds with.

>>> import pyspiel
>>> game = pyspiel.load_game("python_big2", {"rules": "charlesworth"})
>>> game.num_distinct_actions(), game.observation_tensor_size()
(21076, 161)
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(min(state.legal_actions()))
>>> state.current_player(), state.legal_actions()[:2]  # seat 0 got 3D and played it
(1, [13, 14])
>>> state.action_to_string(1, 13)  # seat 1 was dealt cards 13..25
'6C'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from big2 import rules as R
from big2.board import N_SEATS, Board, leftover_seat
from big2.cards import N_CARDS, format_cards
from big2.game import Game, View
from big2.log import GameLog
from big2.players.search import sample_deal
from big2.render import render_text
from envs.codecs import CatalogCodec
from envs.rewards import final_rewards
from observers import REGISTRY
from observers import make as make_observer
from observers.base import Observer
from observers.encoders import HistoryObserver

try:
    import pyspiel
except ImportError as e:  # the optional extra
    raise ImportError(
        "envs.openspiel needs OpenSpiel: pip install 'big2[openspiel]' (open-spiel)"
    ) from e

NAME = "python_big2"
PARAMETERS = {"rules": "standard", "observer": "simple", "reward": "score"}
REWARDS = ("score", "score_normalized", "win")  # the env's terminal, zero-sum rewards


def max_decisions(players: int) -> int:
    """The most decisions of a game: at most ``52 - (players - 1)`` plays (the losers keep
    a card each), each but the last followed by at most ``players - 1`` passes.

    >>> max_decisions(4) == 49 + 3 * 48, max_decisions(2)
    (True, 101)
    """
    plays = N_CARDS - (players - 1)
    return plays + (players - 1) * (plays - 1)


def max_history(players: int) -> int:
    """The most history entries: the decisions and CHARLESWORTH's automatic 3D."""
    return max_decisions(players) + 1


MAX_DECISIONS = max_decisions(N_SEATS)  # of four players
MAX_HISTORY = max_history(N_SEATS)

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Python Big Two",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=N_SEATS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class BigTwoGame(pyspiel.Game):
    """The ``python_big2`` game; ``pyspiel.load_game(NAME, params)`` makes one."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        given = {**PARAMETERS, **(params or {})}
        if unknown := sorted(set(given) - set(PARAMETERS)):
            raise ValueError(f"unknown parameters {unknown}; expected some of {list(PARAMETERS)}")
        rules = R.get(given["rules"])
        if given["reward"] not in REWARDS:
            raise ValueError(f"unknown reward {given['reward']!r}; expected one of {REWARDS}")
        seat_observer(given["observer"], rules)  # refused before anything is built
        codec = CatalogCodec(rules)
        low, high = utility_range(rules, given["reward"])
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.n,
            max_chance_outcomes=N_CARDS,
            num_players=rules.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0,
            max_game_length=max_decisions(rules.players),
        )
        super().__init__(GAME_TYPE, info, given)
        self.rules, self.codec, self.reward = rules, codec, given["reward"]
        self.observer = given["observer"]

    def __reduce__(self) -> tuple[Any, ...]:
        # pyspiel pickles a game as its C++ part only: rebuild it from its parameters
        return (BigTwoGame, (self.get_parameters(),))

    def new_initial_state(self) -> BigTwoState:
        """A state before the deal."""
        return BigTwoState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> BigTwoObserver:
        """OpenSpiel's observer for ``iig_obs_type`` (perfect recall: the information
        state; else the observation); ``params`` may name another ``observer``."""
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        single = pyspiel.PrivateInfoType.SINGLE_PLAYER
        if not kind.public_info or kind.private_info != single:
            raise ValueError(
                f"python_big2 observes one seat's own cards and the public moves; "
                f"{kind} is not supported"
            )
        if unknown := sorted(set(params or {}) - {"observer"}):
            raise ValueError(f"unknown observer parameters {unknown}; expected 'observer'")
        if kind.perfect_recall:
            recall = HistoryObserver(self.rules, k=max_history(self.rules.players))
            return BigTwoObserver(recall, recall=True)
        name = (params or {}).get("observer", self.observer)
        return BigTwoObserver(seat_observer(name, self.rules), recall=False)


def seat_observer(name: str, rules: R.Rules) -> Observer:
    """The registered observer ``name`` for ``rules``; one that sees every hand is refused.

    >>> seat_observer("oracle", R.STANDARD)
    Traceback (most recent call last):
    ...
    ValueError: observer 'oracle' sees every hand, but an OpenSpiel observation is one ...
    """
    observer = make_observer(name, rules)
    if observer.perfect_information:
        fair = sorted(n for n, cls in REGISTRY.items() if not cls.perfect_information)
        raise ValueError(
            f"observer {name!r} sees every hand, but an OpenSpiel observation is one seat's; "
            f"expected one of {fair}"
        )
    return observer


def utility_range(rules: R.Rules, reward: str) -> tuple[float, float]:
    """The lowest and highest return: a seat that loses holding its whole hand (13 cards
    of four players), a winner whose opponents all do.

    >>> utility_range(R.STANDARD, "score"), utility_range(R.STANDARD, "win")
    ((-39.0, 117.0), (-0.3333333333333333, 1.0))
    >>> utility_range(R.THREE_PLAYER, "score")
    (-54.0, 108.0)
    """
    most, opponents = rules.max_penalty, rules.players - 1
    extremes = final_rewards((opponents * most, *[-most] * opponents), 0, rules, reward)
    return min(extremes), max(extremes)


class Engine:
    """A :class:`big2.game.Game` inside a state. OpenSpiel clones states by deep-copying
    their attributes and serialises them with pickle: this copies with ``Game.copy()``
    and pickles as the deal and the moves, not the rules' whole catalog."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> Engine:
        return Engine(self.game.copy())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replayed, (self.game.log,))


def _replayed(log: GameLog) -> Engine:
    return Engine(Game.replay(log))


class BigTwoState(pyspiel.State):
    """A ``python_big2`` state: the deal so far, then the game (``state.game``)."""

    def __init__(self, game: BigTwoGame) -> None:
        super().__init__(game)
        self.dealt: list[int] = []  # card indices in the order dealt
        self.engine: Engine | None = None

    @property
    def game(self) -> Game:
        """The big2 game being played (after the deal)."""
        if self.engine is None:
            raise ValueError("the cards are still being dealt; there is no game yet")
        return self.engine.game

    def current_player(self) -> int:
        if self.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        game = self.engine.game
        return int(pyspiel.PlayerId.TERMINAL) if game.is_over else game.turn

    def _legal_actions(self, player: int) -> list[int]:
        codec: CatalogCodec = self.get_game().codec
        return [codec.encode(m) for m in self.game.legal_moves()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self.dealt)
        left = [c for c in range(N_CARDS) if c not in dealt]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self.dealt.append(action)
            if len(self.dealt) == N_CARDS:
                rules = self.get_game().rules
                self.engine = Engine(Game.from_board(Board.from_hands(self.hands_dealt(), rules)))
        else:
            self.engine.game.play(self.get_game().codec.decode(action))

    def hands_dealt(self) -> tuple[int, ...]:
        """The cards dealt so far to each seat, as masks (see the module's Chance)."""
        rules = self.get_game().rules
        hands = [0] * rules.players
        for i, card in enumerate(self.dealt):
            seat = i // rules.hand_size
            if seat >= rules.players:  # the leftover
                seat = leftover_seat(hands, rules, 1 << card)
            hands[seat] |= 1 << card
        return tuple(hands)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {format_cards(1 << action)}"
        return str(self.get_game().codec.decode(action))

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.game.is_over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.get_game().rules.players
        game = self.game
        return list(final_rewards(game.scores(), game.winner, game.rules, self.get_game().reward))

    def view(self, player: int) -> View:
        """What seat ``player`` may see now (after the deal)."""
        return self.game.view(player)

    def resample_from_infostate(self, player: int, sampler: object = None) -> BigTwoState:
        """A state ``player`` cannot tell from this one: the cards it has not seen dealt
        at random, the public moves replayed.

        ``sampler`` is a ``random.Random`` to draw with; anything else (OpenSpiel passes
        a ``pyspiel.UniformProbabilitySampler``, which Python cannot call) draws from a
        fresh unseeded one.
        """
        rng = sampler if isinstance(sampler, random.Random) else random.Random()
        if self.engine is None:
            raise ValueError("resampling needs a dealt game; the cards are still being dealt")
        return state_from_view(self.get_game(), self.view(player), rng)

    def __str__(self) -> str:
        hands = "; ".join(f"seat {s}: {format_cards(h)}" for s, h in enumerate(self.hands_dealt()))
        if self.engine is None:
            return f"dealt {hands}"
        moves = "; ".join(str(e) for e in self.engine.game.log.moves)
        return f"dealt {hands}\nmoves {moves}"


def state_from_view(game: BigTwoGame, view: View, rng: random.Random) -> BigTwoState:
    """A state of ``game`` consistent with ``view``: the cards its seat has not seen dealt
    at random (:func:`big2.players.search.sample_deal`), then its public moves.

    >>> import pyspiel
    >>> spiel = pyspiel.load_game(NAME)
    >>> played = Game(seed=3)
    >>> played.play(played.legal_moves()[0])
    >>> state = state_from_view(spiel, played.view(2), random.Random(0))
    >>> state.view(2) == played.view(2), state.game.hands == played.hands
    (True, False)
    """
    if view.rules != game.rules:
        raise ValueError(f"the view is of the {view.rules.name} rules, the game {game.rules.name}")
    state = game.new_initial_state()
    for card in deal_order(sample_deal(view, rng), game.rules):
        state.apply_action(card)
    automatic = len(state.game.log.moves)
    for entry in view.history[automatic:]:
        state.apply_action(game.codec.encode(entry.move))
    return state


def deal_order(hands: tuple[int, ...], rules: R.Rules) -> list[int]:
    """The chance actions that deal ``hands``: each seat's cards in turn, a leftover last.

    A seat holding more than ``52 // players`` cards (of three players, the opening
    card's holder) keeps its highest card back as the leftover, which the deal then sends
    back to it.

    >>> hands = Board(R.THREE_PLAYER, seed=1).hands
    >>> order = deal_order(hands, R.THREE_PLAYER)
    >>> len(order), sorted(order) == list(range(N_CARDS))
    (52, True)
    """
    order, leftover = [], []
    for hand in hands:
        cards = [c for c in range(N_CARDS) if hand >> c & 1]
        leftover += cards[rules.hand_size :]
        order += cards[: rules.hand_size]
    return order + leftover


class BigTwoObserver:
    """OpenSpiel's Python observer: ``tensor`` and its named pieces ``dict`` (views of it)
    from one of our observers; ``set_from(state, player)`` writes the seat's view."""

    def __init__(self, observer: Observer, recall: bool) -> None:
        self.observer, self.recall = observer, recall
        self.tensor = np.zeros(observer.size, np.float32)
        self.dict = observer.split(self.tensor)

    def set_from(self, state: BigTwoState, player: int) -> None:
        """Write what ``player`` sees of ``state`` (zeros during the deal)."""
        if state.engine is None or player < 0:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.observer.observe(state.view(player))

    def string_from(self, state: BigTwoState, player: int) -> str:
        """The information state (``recall``) or the observation of ``player``, as text."""
        if player < 0:
            return ""
        if state.engine is None:
            return f"seat {player} dealt {format_cards(state.hands_dealt()[player])}"
        if not self.recall:
            return render_text(state.game, show=player)
        view = state.view(player)
        moves = "; ".join(str(e) for e in view.history)
        return f"seat {player} dealt {format_cards(view.hand | view.played[player])}\n{moves}"


pyspiel.register_game(GAME_TYPE, BigTwoGame)
