"""`openclaw-memory eval` end to end on a tiny LoCoMo file: the real write and read paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openclaw_memory.cli import main
from openclaw_memory_bench.evaluate.memory_system import MANIFEST
from openclaw_memory.store import inspect


pytestmark = pytest.mark.e2e  # `eval` end to end: ingestion and the read path


def _turn(speaker, dia_id, text):
    return {"speaker": speaker, "dia_id": dia_id, "text": text}


@pytest.fixture
def files(tmp_path: Path):
    sample = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("Ann", "D1:1", "I adopted a cat named Miso last week."),
                _turn("Bo", "D1:2", "Cute! I started a pottery class on Tuesdays."),
                _turn("Ann", "D1:3", "Miso sleeps on the piano all day."),
            ],
            "session_2_date_time": "9:00 am on 2 June, 2023",
            "session_2": [
                _turn("Ann", "D2:1", "我在学做陶艺，每周六上课。"),
                _turn("Bo", "D2:2", "Miso knocked over my vase yesterday."),
            ],
        },
        "qa": [
            {
                "question": "What is the name of Ann's cat?",
                "answer": "Miso",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {"question": "谁在学陶艺？", "answer": "Ann", "evidence": ["D2:1"], "category": 4},
            {
                "question": "What did Miso break?",
                "answer": "a vase",
                "evidence": ["D2:2"],
                "category": 1,
            },
        ],
    }
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([sample]), encoding="utf-8")
    cfg = tmp_path / "project.yaml"
    cfg.write_text("storage:\n  embedding_model: hash\n", encoding="utf-8")
    return data, cfg, tmp_path / "store"


def _eval(capsys, data, cfg, store, retriever, *extra):
    assert (
        main(
            [
                "--config",
                str(cfg),
                "eval",
                "locomo",
                str(data),
                "--retriever",
                retriever,
                "--json",
                "--no-progress",
                "--data-dir",
                str(store),
                *extra,
            ]
        )
        == 0
    )
    return json.loads(capsys.readouterr().out)


def test_all_retrievers_side_by_side_over_one_ingestion(capsys, files):
    data, cfg, store = files
    results = _eval(capsys, data, cfg, store, "all")
    assert [r["retriever"] for r in results] == ["hybrid", "keyword", "vector"]
    assert {r["questions"] for r in results} == {3}
    assert (
        len({json.dumps(r["ingest"]) for r in results}) == 1 and results[0]["ingest"]["items"] >= 5
    )
    for r in results:
        assert {
            "dataset",
            "retriever",
            "questions",
            "overall",
            "by_category",
            "injected",
            "latency_ms",
            "ingest",
        } <= set(r)
        assert 0.0 <= r["overall"]["recall_all@10"] <= 1.0
    assert (
        results[0]["overall"]["recall_all@10"] == 1.0
    )  # three questions, five turns: all in the top 10


def test_a_kept_store_is_reused_not_ingested_twice(capsys, files):
    data, cfg, store = files
    first = _eval(capsys, data, cfg, store, "hybrid")
    count = _record_count(store)
    manifest = json.loads((store / MANIFEST).read_text())
    second = _eval(capsys, data, cfg, store, "keyword")
    assert _record_count(store) == count
    assert json.loads((store / MANIFEST).read_text()) == manifest
    assert second["ingest"] == first["ingest"]


def test_a_store_ingested_under_other_extraction_settings_is_ingested_again(capsys, files):
    data, cfg, store = files
    _eval(capsys, data, cfg, store, "hybrid")
    before = json.loads((store / MANIFEST).read_text())
    cfg.write_text(
        "storage:\n  embedding_model: hash\nextraction:\n  store_assistant_episodes: true\n",
        encoding="utf-8",
    )
    _eval(capsys, data, cfg, store, "hybrid")
    after = json.loads((store / MANIFEST).read_text())
    assert [v["fingerprint"] for v in after.values()] != [v["fingerprint"] for v in before.values()]
    episodes = inspect.file_rows(store / "memory.db", "SELECT type, turn_ids FROM records")
    turns = [t for r in episodes if r["type"] == "episode" for t in json.loads(r["turn_ids"])]
    assert len(turns) == len(set(turns))  # started over, not logged twice


def _vectors(store: Path) -> dict[str, bytes]:
    found = inspect.file_rows(store / "memory.db", "SELECT content_hash, vec FROM vectors")
    return {r["content_hash"]: r["vec"] for r in found}


def _record_count(store: Path) -> int:
    return int(inspect.file_rows(store / "memory.db", "SELECT count(*) FROM records")[0][0])


def test_reuse_vectors_rebuilds_the_same_store_without_the_model(capsys, files):
    data, cfg, store = files
    first = _eval(capsys, data, cfg, store, "all", "--no-precision")
    again = store.parent / "again"
    assert (
        main(
            [
                "--config",
                str(cfg),
                "eval",
                "locomo",
                str(data),
                "--retriever",
                "all",
                "--json",
                "--no-progress",
                "--data-dir",
                str(again),
                "--reuse-vectors",
                str(store),
                "--no-precision",
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    second = json.loads(out.out)
    held = _vectors(store)
    assert f"--reuse-vectors: {len(held)} passages reused, 0 embedded" in out.err
    # (recall, not the order inside the top k: the hash embedder makes exact ties, and a vector read
    # back from float32 storage may differ from a fresh one in the last bit)
    recall = lambda r: (
        {k: v for k, v in r["overall"].items() if k.startswith("recall_all")},  # noqa: E731
        r["injected"]["recall_all"],
    )
    assert [recall(a) for a in first] == [recall(b) for b in second]
    rebuilt = _vectors(again)
    assert rebuilt.keys() == held.keys()
    import numpy as np

    for key, vec in held.items():
        assert np.allclose(
            np.frombuffer(vec, np.float32), np.frombuffer(rebuilt[key], np.float32), atol=1e-6
        )


def test_reuse_vectors_refuses_a_store_of_another_embedder(capsys, files):
    data, cfg, store = files
    _eval(capsys, data, cfg, store, "hybrid")
    cfg.write_text("storage:\n  embedding_model: hash:128\n", encoding="utf-8")
    assert (
        main(
            [
                "--config",
                str(cfg),
                "eval",
                "locomo",
                str(data),
                "--no-progress",
                "--data-dir",
                str(store.parent / "other"),
                "--reuse-vectors",
                str(store),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "--reuse-vectors" in err and "hash-embedding@256" in err and "hash-embedding@128" in err
    assert (
        main(
            [
                "--config",
                str(cfg),
                "eval",
                "locomo",
                str(data),
                "--no-progress",
                "--reuse-vectors",
                str(store.parent / "missing"),
            ]
        )
        == 2
    )
    assert "expected an evaluation data dir" in capsys.readouterr().err


def test_write_path_code_digest_follows_extraction_code_not_the_read_path(tmp_path):
    from openclaw_memory_bench.evaluate.memory_system import write_path_code

    for rel in ("extract/rules.py", "recall/rank.py", "consolidate.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    base = write_path_code(tmp_path)
    (tmp_path / "recall/rank.py").write_text("x = 2\n")
    assert write_path_code(tmp_path) == base
    (tmp_path / "extract/rules.py").write_text("x = 2\n")
    assert write_path_code(tmp_path) != base
    assert write_path_code() == write_path_code()  # the installed package: stable


def test_a_kept_store_is_resumed_without_ingesting(capsys, files):
    """Scripts that study a kept store read over it as it was left: the conversation's scope,
    the clock after its last session, nothing written; a conversation it never ingested is not
    resumed."""
    from openclaw_memory.config import config_from_dict, load_config
    from openclaw_memory_bench.evaluate.datasets import load_locomo
    from openclaw_memory_bench.evaluate.memory_system import MemorySystem

    data, cfg, store = files
    _eval(capsys, data, cfg, store, "hybrid")
    manifest = json.loads((store / MANIFEST).read_text())
    count = _record_count(store)
    system = MemorySystem(
        config_from_dict({"storage": {"embedding_model": "hash"}}, base=load_config(None)), store
    )
    try:
        assert not system.resume("conv-1", user_only=True)  # ingested with the assistant turns
        assert not system.resume("conv-2", user_only=False)
        assert system.resume("conv-1", user_only=False)
        assert system.scope.user_id == "conv-1"
        assert system.last_turn_at == manifest["conv-1|user_only=False"]["last"] > 0
        question = next(q for q in load_locomo(data)[1] if q.text.startswith("What is the name"))
        assert any("D1:1" in turns for turns in system.retrieve(question, 10))
    finally:
        system.close()
    after = _record_count(store)
    assert after == count


def test_a_switched_off_rule_keys_the_store_but_a_recall_channel_does_not(tmp_path):
    """A rule switched off may change what ingestion stores, so a store ingested with it on is
    not reused; a recall channel's switch changes only the read path, so it is."""
    from openclaw_memory.config import config_from_dict, load_config
    from openclaw_memory_bench.evaluate.memory_system import MemorySystem

    base = config_from_dict({"storage": {"embedding_model": "hash"}}, base=load_config(None))

    def key(disabled: list[str]) -> str:
        cfg = config_from_dict({"rules": {"disabled": disabled}}, base=base)
        system = MemorySystem(cfg, tmp_path / "-".join(disabled or ["all-on"]))
        try:
            return system._fingerprint
        finally:
            system.close()

    all_on = key([])
    assert key(["channel.kind"]) == all_on
    assert key(["zh.focus"]) != all_on
    assert key(["en.request"]) != key(["zh.focus"])
