"""Big Two environments; importing registers them.

- ``big2/BigTwo-v0``, the PettingZoo AEC env (:mod:`envs.big2_env`);
- ``big2/Big2-v0``, gymnasium's id of the vector env (:mod:`envs.vector`), for
  ``gymnasium.make_vec`` (``"envs:big2/Big2-v0"`` imports this module first);
- ``big2/Big2Single-v0``, gymnasium's id of the one-seat env (:mod:`envs.single`), for
  ``gymnasium.make``.

>>> import envs, gymnasium, pettingzoo
>>> aec = pettingzoo.make("aec", "big2/BigTwo-v0", observer="card_counting")
>>> aec.reset(seed=0)
>>> aec.agent_selection in aec.agents
True
>>> vec = gymnasium.make_vec("envs:big2/Big2-v0", num_envs=8, opponents=["random"])
>>> vec.observation_space["observation"].shape
(8, 161)
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from envs.big2_env import env, raw_env

__all__ = ["env", "raw_env"]

ENV_ID = "big2/BigTwo-v0"
VECTOR_ID = "big2/Big2-v0"
SINGLE_ID = "big2/Big2Single-v0"

if ENV_ID not in pettingzoo.env_registry.registration.aec_registry:
    pettingzoo.register("aec", ENV_ID, entry_point="envs.big2_env:env")
if VECTOR_ID not in gymnasium.registry:
    gymnasium.register(VECTOR_ID, vector_entry_point="envs.vector:Big2VectorEnv")
if SINGLE_ID not in gymnasium.registry:
    gymnasium.register(SINGLE_ID, entry_point="envs.single:Big2SingleEnv")
