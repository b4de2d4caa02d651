"""training.spec: a run's names resolved once, and what takes the resolved spec."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from tianshou.algorithm.modelfree.dqn import DQN
from tianshou.algorithm.modelfree.ppo import PPO

import observers
from big2.rules import CHARLESWORTH
from envs import codecs
from envs.vector import Big2VectorEnv
from training.build import make_algorithm, make_dqn, make_env, make_ppo
from training.config import Config
from training.nets import make_actor
from training.spec import RunSpec, resolve

SMALL = Config(hidden=(8,), envs=2, opponents=("random",))


@pytest.fixture
def made(monkeypatch):
    """Count the codecs and observers constructed, by name."""
    counts: Counter[str] = Counter()
    make_codec, make_observer = codecs.make, observers.make

    def codec(name, *args, **kwargs):
        counts[f"codec {name}"] += 1
        return make_codec(name, *args, **kwargs)

    def observer(name, *args, **kwargs):
        counts[f"observer {name}"] += 1
        return make_observer(name, *args, **kwargs)

    monkeypatch.setattr(codecs, "make", codec)
    monkeypatch.setattr(observers, "make", observer)
    return counts


def test_one_make_algorithm_resolves_the_config_once(made):
    make_algorithm(SMALL)
    # each observer and the codec once (Config.features is handed the spec's observer)
    assert made == {
        "codec catalog": 1,
        "observer simple": 1,
        "observer oracle": 1,
    }


def test_a_resolved_spec_is_not_resolved_again(made):
    spec = resolve(SMALL)
    made.clear()
    make_algorithm(spec)
    make_env(spec, seed=0)
    assert made == {}


def test_the_parts_share_what_they_resolved():
    spec = resolve(Config(observer="simple", actions="hand", critic_observer=""))
    assert spec.env.observer is spec.network.observer and spec.env.codec is spec.network.codec
    assert spec.env.critic is None and spec.network.critic_size == spec.network.obs_size == 161
    assert spec.network.n_actions == spec.network.store_width == 1695
    dqn = resolve(Config(algo="dqn"))  # no critic key in a DQN run's env
    assert dqn.env.critic is None and dqn.network.critic is not None


def test_ppo_and_dqn_are_built_apart():
    assert isinstance(make_ppo(resolve(SMALL)), PPO)
    assert isinstance(make_dqn(resolve(Config(algo="dqn", hidden=(8,)))), DQN)
    assert type(make_algorithm(Config(algo="dqn", hidden=(8,)))) is DQN


def test_a_spec_travels_as_its_config_and_is_resolved_where_it_lands():
    spec = resolve(Config(observer="history", rules="charlesworth", hidden=(8,)))
    back = pickle.loads(pickle.dumps(spec))
    assert back.config == spec.config and back.env.rules == CHARLESWORTH
    assert back.network.observer is not spec.network.observer  # resolved again
    assert back.network.obs_size == spec.network.obs_size
    assert len(pickle.dumps(spec)) < 4000  # not the catalog codec's 17,858 combinations


def test_make_actor_of_a_config_names_its_replacement():
    with pytest.raises(TypeError, match=r"make_actor\(training.spec.resolve\(cfg\).network\)"):
        make_actor(SMALL)


def test_the_env_takes_the_specs_codec_and_refuses_one_of_other_rules():
    spec = resolve(SMALL)
    env = make_env(spec, seed=0, games=3)
    assert env.codec is spec.env.codec and env.observer is spec.env.observer
    assert env.num_envs == 3
    other = codecs.make("catalog", CHARLESWORTH)
    with pytest.raises(ValueError, match="codec was built for charlesworth, not standard"):
        Big2VectorEnv(4, "simple", other, "standard")


def test_a_spec_is_a_runspec_of_its_config():
    spec = RunSpec.of(SMALL)
    assert resolve(spec) is spec and spec.config is SMALL
