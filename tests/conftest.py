"""Shared fixtures: real SQLite and Chroma in tmp dirs, a fake clock, the hashing embedder."""

from __future__ import annotations

import pytest

from openclaw_memory.clock import FakeClock
from openclaw_memory.config import config_from_dict


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


def make_config(tmp_path, embedder: str = "hash", **sections):
    data = {"storage": {"data_dir": str(tmp_path), "embedding_model": embedder}}
    for key, value in sections.items():
        data.setdefault(key, {}).update(value)
    return config_from_dict(data)


@pytest.fixture(name="make_config")
def make_config_fixture():
    """make_config(tmp_path, embedder="hash", **sections) -> MemoryConfig."""
    return make_config


@pytest.fixture
def config(tmp_path):
    return make_config(tmp_path)


@pytest.fixture
def engine(config, clock):
    from openclaw_memory.engine import MemoryEngine

    eng = MemoryEngine.open(config, clock=clock, background=False)
    yield eng
    eng.close()
