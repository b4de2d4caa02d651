"""Every seed of a training run, drawn from one ``numpy.random.SeedSequence``.

A run's randomness has a purpose and a moment: the networks' initial weights, the deals
of an epoch, torch's and
numpy's global generators during an epoch (Tianshou draws from them), DQN's exploration
in an epoch, the sampling of a self-play snapshot during an epoch. :func:`seed_of`
derives each one from ``SeedSequence(run seed, spawn_key=(purpose, *keys))``, so it
depends only on the run's seed and the moment, never on how the run got there: a run
resumed at epoch ``e`` draws what an uninterrupted run draws at epoch ``e``.

>>> seed_of(0, "deals", 3) == seed_of(0, "deals", 3) != seed_of(0, "deals", 4)
True
"""

from __future__ import annotations

import numpy as np

# appended only: a purpose's position is part of every seed drawn for it
PURPOSES = ("init", "deals", "globals", "explore", "snapshot")


def seed_of(seed: int, purpose: str, *keys: int) -> int:
    """The 32-bit seed of ``purpose`` at ``keys`` (an epoch, ...) in the run seeded ``seed``."""
    sequence = np.random.SeedSequence(seed, spawn_key=(PURPOSES.index(purpose), *keys))
    return int(sequence.generate_state(1, np.uint32)[0])
