"""Many random masked games per configuration, with invariants checked at every step.

Each configuration (observer x codec x rules preset) plays seeded random games through
one ``raw_env`` (reset between games). At every decision: the legal moves are those
worked out from the hand and the table, a legal action exists, the mask is the codec's
mask of the legal moves and its ones decode to exactly those moves, the observation is
the observer's encoding of the acting seat's view and lies in the space, and the 52
cards are conserved. At the end: zero-sum rewards, every agent terminated, empty masks.
Some finished games are replayed from their JSON log.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import CODECS, OBSERVER_NAMES, PRESETS, random_action

from big2 import cards as C
from big2.game import Game
from big2.hand_ranking import PASS, combinations_in
from big2.log import GameLog
from envs.big2_env import raw_env

# Games per configuration: 24 configurations x 20 games check about 36,000 decisions (100
# a configuration cost make test 78 s summed); the slow run adds other deals (seed 2) of
# two configurations a preset (200 games of them cost 24 s; 1,000, 45 s more).
GAMES = 20
SLOW_GAMES = 50
REPLAY_EVERY = 10  # replay every 10th game from its JSON log
CONFIGS = [(o, a, r) for r in PRESETS for a in CODECS for o in OBSERVER_NAMES]
SLOW_CONFIGS = [(o, a, r) for r in PRESETS for o, a in (("simple", "catalog"),
                                                         ("charlesworth", "hand"))]  # fmt: skip


def check_cards_conserved(game):
    hands, played = game.hands, game.view(0).played
    union = 0
    for mask in (*hands, *played):
        assert not union & mask, "a card is in two places"
        union |= mask
    assert union == C.DECK
    assert [h.bit_count() for h in hands] == list(game.view(0).cards_left)


def expected_legal(game, hand):
    """The legal moves from first principles (both presets: passing never locks out)."""
    assert not game.rules.pass_locks_out
    combos = combinations_in(hand, rules=game.rules)
    if game.table is not None:
        return [c for c in combos if c.beats(game.table)] + [PASS]
    if game.rules.opening == "contains" and not game.log.moves:
        return [c for c in combos if c.cards & 1]
    return combos


def check_decision(aec, space):
    """The invariants of the position where ``aec.agent_selection`` is to act."""
    game, codec = aec.game, aec.codec
    agent, seat = aec.agent_selection, game.turn
    assert agent == f"player_{seat}" and not any(aec.terminations.values())
    legal, hand = game.legal_moves(), game.hand(seat)
    assert list(legal) == expected_legal(game, hand)
    obs = aec.observe(agent)
    mask = obs["action_mask"]
    assert legal and mask.any(), "no legal action"
    assert np.array_equal(mask, codec.mask(legal, hand))
    ones = np.flatnonzero(mask.view(np.bool_))  # 0/1 int8 (checked above); 10x faster
    decoded = [codec.decode(int(a), hand) for a in ones]
    assert len(decoded) == len(legal) and set(decoded) == set(legal)
    assert space.contains(obs)
    expected = aec.observer.observe(game.view(seat), game)
    assert np.array_equal(obs["observation"], expected)
    check_cards_conserved(game)
    return ones


def check_end(aec):
    game = aec.game
    assert game.is_over and game.hand(game.winner) == 0
    assert all(aec.terminations.values()) and not any(aec.truncations.values())
    scores = game.scores()
    assert sum(scores) == 0 and scores[game.winner] > 0
    assert [aec.rewards[a] for a in aec.possible_agents] == list(scores)
    assert sum(aec.rewards.values()) == 0
    for agent in aec.possible_agents:
        assert not aec.observe(agent)["action_mask"].any()
    check_cards_conserved(game)


def check_replay(observer, actions, rules, log, taken):
    """The log survives JSON and ``raw_env.replay`` replays it exactly (any codec)."""
    loaded = GameLog.from_json(log.to_json())
    assert loaded == log
    for codec in {actions, *CODECS}:
        other = raw_env(rules=rules, observer=observer, actions=codec)
        replayed = list(other.replay(loaded))
        if codec == actions:
            assert replayed == taken
        assert other.game.is_over and other.game.log == log
        assert other.game.scores() == Game.replay(log).scores()
        assert all(other.terminations.values())


def run_games(observer, actions, rules, games, seed):
    aec = raw_env(rules=rules, observer=observer, actions=actions)
    space = aec.observation_space("player_0")
    rng = np.random.default_rng(seed)
    winners = set()
    for number in range(games):
        aec.reset(seed=seed * 100_000 + number)
        taken = []
        while not aec.game.is_over:
            ones = check_decision(aec, space)
            action = int(rng.choice(ones))
            aec.step(action)
            taken.append(action)
        check_end(aec)
        winners.add(aec.game.winner)
        if number % REPLAY_EVERY == 0:
            check_replay(observer, actions, rules, aec.game.log, taken)
    assert len(winners) > 1 or games < 20


@pytest.mark.parametrize(("observer", "actions", "rules"), CONFIGS)
def test_random_games(observer, actions, rules):
    run_games(observer, actions, rules, GAMES, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize(("observer", "actions", "rules"), SLOW_CONFIGS)
def test_random_games_long(observer, actions, rules):
    run_games(observer, actions, rules, SLOW_GAMES, seed=2)


@pytest.mark.parametrize("rules", PRESETS)
def test_replay_refuses_a_log_of_other_rules(rules):
    aec = raw_env(rules=rules)
    aec.reset(seed=3)
    log = aec.game.log
    other = raw_env(rules=({*PRESETS} - {rules}).pop())
    with pytest.raises(ValueError, match="rules"):
        next(other.replay(log))


def test_replay_of_an_unfinished_log_stops_where_it_does():
    aec = raw_env(actions="hand")
    aec.reset(seed=4)
    rng = np.random.default_rng(4)
    taken = []
    for _ in range(9):
        taken.append(random_action(aec.observe(aec.agent_selection), rng))
        aec.step(taken[-1])
    other = raw_env(actions="hand")
    assert list(other.replay(GameLog.from_json(aec.game.log.to_json()))) == taken
    assert other.game.log == aec.game.log and other.agent_selection == aec.agent_selection
