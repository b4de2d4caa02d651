"""Fixtures shared by the training tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def one_thread() -> Iterator[None]:
    """One torch thread for a test module (restored after it), so tests do not contend."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """This session's temporary folder that every xdist worker shares (gwN's folders sit
    side by side in it); without xdist, the session's own: for locks and work done once."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent
