"""Fitted fusion: the fits find known weights, folds keep conversations apart, the fusion table
loads with clear errors, the ranker fuses with it per language, and `fit-fusion` writes one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from openclaw_memory.cli import main
from openclaw_memory.config import RecallConfig, config_from_dict
from openclaw_memory.errors import ConfigError, ValidationError
from openclaw_memory.recall.rank import FUSED
from openclaw_memory.lang import detect
from openclaw_memory.recall.rank import fitted_weights
from openclaw_memory.recall.rank import load_table
from openclaw_memory.recall.rank import parse_table
from openclaw_memory.recall.query import RecallQuery
from openclaw_memory.recall.rank import COMPONENTS, Calibration, score_pool
from openclaw_memory_bench.evaluate.features import read_features
from openclaw_memory_bench.evaluate.fit import (
    fit,
    mean_recall,
    out_of_fold,
    questions_of,
    recall_all,
)
from openclaw_memory_bench.evaluate.fusion_table import oof_tables, table_text

import test_evaluate_cli
from test_recall_fusion import episode, pool_of

TRUE = {"semantic": 0.5, "keyword": 0.3, "structure": 0.2}


def weights_of(partial: dict[str, float]) -> np.ndarray:
    return np.array([partial.get(n, 0.0) for n in FUSED])


def synthetic_rows(
    truth: dict[str, float],
    *,
    conversations: int = 6,
    questions: int = 40,
    candidates: int = 30,
    lang: str = "en",
    set_name: str = "synthetic",
    seed: int = 0,
    scale: float = 12.0,
    pointwise: bool = False,
) -> list[dict]:
    """Questions whose evidence candidate is drawn from a softmax over the true weighted score
    (`pointwise`: each candidate is evidence with the sigmoid of its score, less a bias)."""
    rng = np.random.default_rng(seed)
    w = weights_of(truth)
    rows = []
    for c in range(conversations):
        for q in range(questions):
            x = rng.random((candidates, len(FUSED)))
            if pointwise:
                chance = 1.0 / (1.0 + np.exp(-(scale * (x @ w) - 0.75 * scale)))
                golds = set(np.flatnonzero(rng.random(candidates) < chance).tolist())
            else:
                p = np.exp(scale * (x @ w))
                golds = {int(rng.choice(candidates, p=p / p.sum()))}
            rows.append(
                {
                    "set": set_name,
                    "conversation": f"{set_name}-c{c}",
                    "question": f"{set_name}-c{c}-q{q}",
                    "lang": lang,
                    "category": "single-hop",
                    "evidence": [f"t{g}" for g in sorted(golds)],
                    "features": list(FUSED),
                    "candidates": [
                        {
                            "rank": i + 1,
                            "label": int(i in golds),
                            "covers": [f"t{i}"] if i in golds else [],
                            "x": [float(v) for v in x[i]],
                        }
                        for i in range(candidates)
                    ],
                }
            )
    return rows


def test_the_fused_components_are_the_rankers():
    assert FUSED == COMPONENTS


@pytest.mark.parametrize("model", ["listwise", "logistic"])
def test_the_fit_finds_the_weights_the_labels_were_drawn_with(model):
    rows = synthetic_rows(TRUE, conversations=8, questions=60, pointwise=model == "logistic")
    found = fit(questions_of(rows), model)
    assert sum(found.values()) == pytest.approx(1.0, abs=1e-3)
    for name in FUSED:
        assert found[name] == pytest.approx(TRUE.get(name, 0.0), abs=0.08), (name, found)
    assert min(found.values()) >= 0.0


@pytest.mark.slow  # an evaluation and a fit, about 10 s
def test_fitted_weights_rank_better_than_wrong_ones_and_recall_counts_every_evidence_turn():
    qs = questions_of(synthetic_rows(TRUE, seed=1))
    wrong = {n: 1.0 / len(FUSED) for n in FUSED}
    assert mean_recall(qs, lambda q: fit(qs)) > mean_recall(qs, lambda q: wrong) + 0.1
    q = qs[0]
    two = type(q)(
        q.key, q.lang, q.set_name, q.x, q.y, q.covers, q.evidence | {"elsewhere"}, q.ranks
    )
    assert recall_all(two, None, k=len(q.y)) == 0.0  # one evidence turn no candidate delivers
    assert recall_all(q, None, k=len(q.y)) == 1.0


def test_out_of_fold_weights_never_see_the_conversation_they_score():
    """Conversation a's evidence follows the cosine, b's the keywords: with two folds, a is
    ranked by weights fitted on b alone, and b by weights fitted on a alone."""
    rows = synthetic_rows({"semantic": 1.0}, conversations=1, set_name="a", seed=2)
    rows += synthetic_rows({"keyword": 1.0}, conversations=1, set_name="b", seed=3)
    for row in rows:
        row["set"] = "one"
    qs = questions_of(rows)
    oof = out_of_fold(qs, 2, "listwise")
    assert set(oof) == {"one|a-c0", "one|b-c0"}
    assert oof["one|a-c0"]["en"]["keyword"] > 0.8  # fitted on b
    assert oof["one|b-c0"]["en"]["semantic"] > 0.8  # fitted on a


def test_eval_tables_of_a_fold_are_fitted_without_its_conversations(tmp_path):
    rows = synthetic_rows(TRUE, conversations=4, questions=10, set_name="locomo:x")
    rows += synthetic_rows(TRUE, conversations=2, questions=10, set_name="locomo:y", lang="zh")
    path = tmp_path / "f.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    tables = oof_tables([str(path)], "locomo:x", 2, tmp_path)
    assert sorted(tables) == [f"locomo:x-c{i}" for i in range(4)]
    assert tables["locomo:x-c0"] == tables["locomo:x-c2"] != tables["locomo:x-c1"]
    table = load_table(tables["locomo:x-c0"])
    # 20 English questions of the other fold, and every Chinese question (other conversations)
    assert "fitted on 20 questions of 2 conversations" in table.sources["en"]
    assert "fitted on 20 questions of 2 conversations" in table.sources["zh"]
    assert oof_tables([str(path)], "locomo:absent", 2, tmp_path) == {}


GOOD = {
    "model": "listwise",
    "languages": {
        "en": {"weights": {n: 1.0 for n in FUSED}, "source": "fitted on test data"},
    },
}


@pytest.mark.parametrize(
    "change, field",
    [
        ({"model": None}, "'model'"),
        ({"languages": {}}, "'languages'"),
        ({"languages": {"en": {"weights": {}}}}, "'languages.en'"),
        (
            {"languages": {"en": {"weights": {n: 1.0 for n in FUSED}, "source": ""}}},
            "'languages.en.source'",
        ),
        (
            {"languages": {"en": {"weights": {"semantic": 1.0}, "source": "x"}}},
            "'languages.en.weights'",
        ),
        (
            {
                "languages": {
                    "en": {"weights": {**{n: 1.0 for n in FUSED}, "keyword": -1}, "source": "x"}
                }
            },
            "'languages.en.weights.keyword'",
        ),
        (
            {"languages": {"zh": {"weights": {n: 0.0 for n in FUSED}, "source": "x"}}},
            "'languages.zh.weights'",
        ),
    ],
)
def test_a_malformed_fusion_table_names_the_field_and_the_expected_form(change, field):
    with pytest.raises(ConfigError, match="expected") as err:
        parse_table({**GOOD, **change}, "fusion.yaml")
    assert field in str(err.value) and "fusion.yaml" in str(err.value)


def test_the_table_is_read_from_its_file_and_an_unreadable_one_is_named(tmp_path):
    path = tmp_path / "fusion.yaml"
    path.write_text(table_text({"en": {n: 0.5 for n in FUSED}}, "listwise", {"en": "x"}))
    assert load_table(path).for_language("en") == {n: 0.5 for n in FUSED}
    assert load_table(path).for_language("zh") is None
    with pytest.raises(ConfigError, match="missing.yaml"):
        load_table(tmp_path / "missing.yaml")
    path.write_text("model: [")
    with pytest.raises(ConfigError, match="cannot read the fusion table"):
        load_table(path)


def test_config_chooses_the_fusion_and_refuses_another_word():
    assert RecallConfig().fusion in ("hand", "fitted")
    cfg = config_from_dict({"recall": {"fusion": "fitted", "fusion_file": "/x.yaml"}})
    assert cfg.recall.fusion == "fitted" and cfg.recall.fusion_file == "/x.yaml"
    with pytest.raises(ConfigError, match="recall.fusion"):
        config_from_dict({"recall": {"fusion": "learned"}})


def test_the_packaged_table_holds_both_languages():
    cfg = config_from_dict({"recall": {"fusion": "fitted"}}).recall
    assert fitted_weights(cfg, detect("What did I adopt?")) is not None
    assert fitted_weights(cfg, detect("我养了什么宠物？")) is not None
    hand = config_from_dict({"recall": {"fusion": "hand"}}).recall
    assert fitted_weights(hand, detect("What did I adopt?")) is None


@pytest.fixture
def split_table(tmp_path: Path) -> str:
    """English requests fused on keywords alone, Chinese ones on the cosine alone."""
    only = {n: 0.0 for n in FUSED}
    path = tmp_path / "fusion.yaml"
    text = table_text(
        {"en": {**only, "keyword": 1.0}, "zh": {**only, "semantic": 1.0}},
        "listwise",
        {"en": "test", "zh": "test"},
    )
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "query, first",
    [
        (RecallQuery("where did we go hiking", ("hiking",), None, frozenset(), False), "worded"),
        (RecallQuery("我们去哪里徒步", ("徒步",), None, frozenset(), False), "near"),
    ],
)
def test_the_ranker_fuses_with_the_weights_of_the_requests_language(split_table, query, first):
    words = "hiking" if query.text.isascii() else "徒步"
    pool = pool_of(
        (episode("near", "s1", "a walk somewhere"), 0.9, ("vector",)),
        (episode("worded", "s2", f"{words} trip"), 0.3, ("keyword",)),
    )
    fitted = config_from_dict({"recall": {"fusion": "fitted", "fusion_file": split_table}}).recall
    hand = config_from_dict({"recall": {"fusion": "hand"}}).recall
    cal = Calibration(0.0, 1.0, 0.0)
    order = [s.record.id for s in score_pool(pool, query, 10.0, fitted, cal)]
    assert order[0] == first
    by_hand = [s.record.id for s in score_pool(pool, query, 10.0, hand, cal)]
    assert by_hand[0] == "near"  # the hand weights: the cosine leads in both languages


def test_fit_fusion_writes_a_table_the_ranker_reads(tmp_path, capsys):
    rows = synthetic_rows(TRUE, conversations=4, questions=30)
    rows += synthetic_rows(
        {"semantic": 1.0}, conversations=2, questions=30, lang="zh", set_name="zh"
    )
    features = tmp_path / "f.jsonl"
    features.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    out = tmp_path / "fusion.yaml"
    assert main(["fit-fusion", str(features), "--out", str(out), "--folds", "2"]) == 0
    printed = capsys.readouterr().out
    assert "fitted out of fold" in printed and "all zh" in printed
    table = load_table(out)
    assert table.weights["zh"]["semantic"] > 0.7
    assert table.weights["en"]["semantic"] == pytest.approx(0.5, abs=0.12)
    assert "fitted on 120 questions of 4 conversations" in table.sources["en"]
    assert main(["fit-fusion", str(features), "--out", str(out), "--pooled"]) == 0
    assert load_table(out).weights["en"] == load_table(out).weights["zh"]


def test_fit_fusion_names_a_malformed_features_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"conversation": "c", "lang": "en", "features": ["x"], "candidates": []}) + "\n"
    )
    with pytest.raises(ValidationError, match="bad.jsonl:1.*'features'"):
        read_features([bad])
    assert main(["fit-fusion", str(bad), "--out", str(tmp_path / "o.yaml")]) != 0


files = test_evaluate_cli.files


@pytest.mark.e2e
def test_eval_writes_features_and_ranks_out_of_fold_on_the_real_paths(capsys, files, tmp_path):
    data, cfg, store = files
    sample = json.loads(data.read_text(encoding="utf-8"))[0]
    two = tmp_path / "two.json"
    two.write_text(json.dumps([sample, {**sample, "sample_id": "conv-2"}]), encoding="utf-8")
    feats = tmp_path / "f.jsonl"
    argv = ["--config", str(cfg), "eval", "locomo", str(two), "--json", "--no-progress"]
    argv += ["--no-precision", "--data-dir", str(store)]
    assert main([*argv, "--features-out", str(feats)]) == 0
    plain = json.loads(capsys.readouterr().out)
    rows = read_features([feats])
    assert len(rows) == plain["questions"] == 6
    assert {r["lang"] for r in rows} == {"en", "zh"}  # the pack's code of each question
    assert {r["set"] for r in rows} == {"locomo:two"}
    labelled = [c for r in rows for c in r["candidates"] if c["label"]]
    assert labelled and all(c["covers"] for c in labelled)
    assert all(len(c["x"]) == len(FUSED) for r in rows for c in r["candidates"])
    assert main([*argv, "--fusion-oof", str(feats), "--folds", "2"]) == 0
    oof = json.loads(capsys.readouterr().out)
    assert oof["questions"] == 6 and oof["folds"]["k"] == 2
    assert main([*argv, "--fusion-oof", str(feats)]) == 2  # no folds to fit without
    assert "--folds" in capsys.readouterr().err
    assert main(["eval", "precision", "--features-out", str(feats)]) == 2
