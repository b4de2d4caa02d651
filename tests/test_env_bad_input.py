"""Bad input: illegal, out-of-range and mistyped actions, bad arguments, steps after the end."""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import CODECS, PRESETS, play_out, random_action

import observers
from big2.rules import CHARLESWORTH
from envs.big2_env import env, raw_env

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def snapshot(aec):
    """Everything a failed step must leave alone."""
    agent = aec.agent_selection
    return (
        agent,
        len(aec.game.log.moves),
        aec.game.hands,
        aec.game.table,
        dict(aec._cumulative_rewards),
        dict(aec.terminations),
        {k: v.copy() for k, v in aec.observe(agent).items()},
    )


def assert_unchanged(aec, before):
    after = snapshot(aec)
    assert after[:6] == before[:6]
    assert all(np.array_equal(after[6][k], before[6][k]) for k in before[6])


def check_refused(aec, action, *expected):
    """``action`` raises a ValueError naming it, ``expected`` and the legal count; no change."""
    before = snapshot(aec)
    n_legal = len(aec.game.legal_moves())
    with pytest.raises(ValueError) as info:
        aec.step(action)
    message = str(info.value)
    for text in (*expected, f"{n_legal} legal actions"):
        assert text in message, (text, message)
    assert_unchanged(aec, before)


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("actions", CODECS)
def test_out_of_range_and_mistyped_actions(actions, rules):
    aec = raw_env(rules=rules, actions=actions)
    aec.reset(seed=11)
    rng = np.random.default_rng(11)
    n = aec.codec.n
    for _ in range(3):  # at the start, and after a few moves
        for action in (-1, n, 10**9, np.int64(-1)):
            check_refused(aec, action, f"action {action}", "out of range")
        for action in ("3", 1.5, True, None, [0]):
            check_refused(aec, action, repr(action))
        for _ in range(4):
            aec.step(random_action(aec.observe(aec.agent_selection), rng))
    play_out(aec, rng)  # still playable to the end
    assert sum(aec.game.scores()) == 0


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("actions", CODECS)
def test_masked_actions_are_refused_with_their_meaning(actions, rules):
    aec = raw_env(rules=rules, actions=actions)
    codec = aec.codec
    rng = np.random.default_rng(12)
    kinds = set()
    for seed in range(3):
        aec.reset(seed=seed)
        while not aec.game.is_over:
            hand = aec.game.hand(aec.game.turn)
            mask = aec.observe(aec.agent_selection)["action_mask"]
            masked = np.flatnonzero(mask == 0)
            picks = {int(a) for a in rng.choice(masked, 3)} | {codec.pass_action} & set(masked)
            for action in sorted(picks):
                try:
                    meaning = str(codec.decode(action, hand))
                except ValueError as e:
                    kinds.add("undecodable")
                    detail = "positions" if "positions" in str(e) else "not a combination"
                    check_refused(aec, action, f"action {action}", detail)
                else:
                    kinds.add("pass" if action == codec.pass_action else "combination")
                    check_refused(aec, action, f"action {action}", f"({meaning})")
            aec.step(random_action(aec.observe(aec.agent_selection), rng))
    assert kinds >= {"pass", "combination"} | ({"undecodable"} if actions == "hand" else set())


@pytest.mark.parametrize("actions", CODECS)
def test_wrapped_env_terminates_on_an_illegal_action(actions):
    aec = env(actions=actions)
    aec.reset(seed=13)
    rng = np.random.default_rng(13)
    for _ in range(5):
        aec.step(random_action(aec.last()[0], rng))
    offender = aec.agent_selection
    mask = aec.last()[0]["action_mask"]
    aec.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(aec.terminations.values()) or all(aec.truncations.values())
    assert aec.rewards == {a: (-1 if a == offender else 0) for a in aec.possible_agents}
    seen = {}
    for agent in aec.agent_iter():
        _, reward, terminated, truncated, _ = aec.last()
        assert terminated or truncated
        seen[agent] = reward
        aec.step(None)
    assert seen == {a: (-1.0 if a == offender else 0.0) for a in aec.possible_agents}
    assert aec.agents == []


def test_mask_is_empty_after_an_illegal_action_ends_the_game():
    # regression: the offender's mask kept its legal actions (fixed in be69f90)
    aec = env()
    aec.reset(seed=0)
    offender = aec.agent_selection
    mask = aec.last()[0]["action_mask"]
    aec.step(int(np.flatnonzero(mask == 0)[0]))
    assert aec.terminations[offender]
    for agent in aec.possible_agents:
        assert not aec.observe(agent)["action_mask"].any(), agent


def test_wrapped_env_asserts_out_of_bounds_actions():
    aec = env()
    aec.reset(seed=14)
    inner = aec.unwrapped
    before = snapshot(inner)
    for action in (-1, inner.codec.n, 1.5, "3"):
        with pytest.raises((AssertionError, ValueError)):
            aec.step(action)
        assert_unchanged(inner, before)


@pytest.mark.parametrize("make", [raw_env, env])
@pytest.mark.parametrize(
    ("kwargs", "choices"),
    [
        ({"observer": "x-ray"}, ["simple", "card_counting", "history", "planes", "oracle"]),
        ({"actions": "relative"}, ["catalog", "hand"]),
        ({"reward": "wins"}, ["score", "score_normalized", "win", "shaped"]),
        ({"render_mode": "rgb_array"}, ["None", "ansi", "human"]),
        ({"rules": "house"}, ["standard", "charlesworth"]),
    ],
)
def test_unknown_arguments_list_the_choices(make, kwargs, choices):
    with pytest.raises(ValueError) as info:
        make(**kwargs)
    message = str(info.value)
    assert repr(next(iter(kwargs.values()))) in message
    for choice in choices:
        assert choice in message, (choice, message)


def test_observer_instances_must_match_the_rules():
    standard = observers.make("simple")
    with pytest.raises(ValueError, match=r"standard.*charlesworth|charlesworth.*standard"):
        raw_env(rules="charlesworth", observer=standard)
    with pytest.raises(ValueError, match="Observer"):
        raw_env(observer=42)
    mine = observers.make("history", CHARLESWORTH, k=2)
    aec = raw_env(rules="charlesworth", observer=mine)
    aec.reset(seed=0)
    assert aec.observer is mine
    assert aec.observe(aec.agent_selection)["observation"].shape == (mine.size,)


def test_observers_make_resolves_a_preset_name():
    # regression: the name was kept as a str, so repr() and the env raised AttributeError
    made = observers.make("simple", "charlesworth")
    assert made.rules is CHARLESWORTH
    assert repr(made) == "SimpleObserver(rules='charlesworth')"
    raw_env(rules="charlesworth", observer=made)


@pytest.mark.parametrize("make", [raw_env, env])
def test_stepping_after_the_end_needs_none(make):
    aec = make(actions="hand")
    aec.reset(seed=15)
    rng = np.random.default_rng(15)
    while not aec.unwrapped.game.is_over:
        aec.step(random_action(aec.observe(aec.agent_selection), rng))
    log = list(aec.unwrapped.game.log.moves)
    assert aec.terminations[aec.agent_selection]
    for action in (0, aec.unwrapped.codec.pass_action):
        with pytest.raises((ValueError, AssertionError)):
            aec.step(action)
    assert aec.unwrapped.game.log.moves == log
    for _ in aec.agent_iter():
        aec.step(None)
    assert aec.agents == []
    if make is raw_env:  # env() follows OrderEnforcingWrapper: a warning, no step
        for action in (None, 0):
            with pytest.raises(ValueError, match="reset"):
                aec.step(action)
    aec.reset(seed=16)
    assert aec.agents == aec.possible_agents and not aec.unwrapped.game.log.moves[1:]


def test_wrapped_env_refuses_steps_before_reset():
    with pytest.raises(Exception, match="reset"):
        env().step(0)


@pytest.mark.parametrize("fixed", ["garbage", ["3D"], 7])
def test_reset_with_fixed_cards_that_are_not_a_mapping(fixed):
    aec = raw_env()
    aec.reset(seed=4)
    aec.step(random_action(aec.observe(aec.agent_selection), np.random.default_rng(0)))
    before = snapshot(aec)
    with pytest.raises(ValueError, match="fixed cards must be a mapping from seat"):
        aec.reset(options={"fixed": fixed})
    assert_unchanged(aec, before)
    play_out(aec, np.random.default_rng(1))  # still playable to the end
