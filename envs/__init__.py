"""PettingZoo environments for Big Two; importing registers ``big2/BigTwo-v0``.

>>> import envs, pettingzoo
>>> aec = pettingzoo.make("aec", "big2/BigTwo-v0", observer="card_counting")
>>> aec.reset(seed=0)
>>> aec.agent_selection in aec.agents
True
"""

from __future__ import annotations

import pettingzoo

from envs.big2_env import env, raw_env

__all__ = ["env", "raw_env"]

ENV_ID = "big2/BigTwo-v0"

if ENV_ID not in pettingzoo.env_registry.registration.aec_registry:
    pettingzoo.register("aec", ENV_ID, entry_point="envs.big2_env:env")
