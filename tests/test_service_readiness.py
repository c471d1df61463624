"""The service is ready before it answers: its warm-up loads what the first recall in either
language would otherwise load inside the plugin's 1.5 s recall budget."""

from __future__ import annotations

from openclaw_memory.embed import embedding as background
from openclaw_memory.embed.embedding import embedder_name
from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.server import warm_up


def test_warm_up_loads_the_background_bank_of_both_languages(tmp_path):
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    try:
        name = embedder_name(mw.engine.embedder)
        for lang in ("en", "zh"):  # as in a fresh process
            background._vectors.pop((name, lang), None)
        warm_up(mw)
        # an English and a Chinese first question find their banks embedded already
        assert (name, "en") in background._vectors
        assert (name, "zh") in background._vectors
    finally:
        mw.close()


def test_health_says_ready(tmp_path):
    from fastapi.testclient import TestClient

    from openclaw_memory.service.app import create_app

    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    try:
        with TestClient(create_app(mw, token="t"), base_url="http://127.0.0.1") as client:
            body = client.get("/health").json()
    finally:
        mw.close()
    assert body["status"] == "ok" and body["ready"] is True
