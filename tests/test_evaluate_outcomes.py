"""Per-question outcomes (`eval --questions-out`) and the folds protocol (`eval --folds K`)."""

from __future__ import annotations

import json

import pytest

from openclaw_memory.cli import main
from openclaw_memory.errors import ValidationError
from openclaw_memory_bench.evaluate.outcomes import evidence_ranks, fold_figures, fold_of
from openclaw_memory_bench.evaluate.runner import run_locomo, run_longmemeval

import test_evaluate_cli
import test_evaluate_runner
from test_evaluate_runner import ScriptedSystem

# the small data files of the runner's and the CLI's tests, as fixtures here too
locomo_file = test_evaluate_runner.locomo_file
lme_file = test_evaluate_runner.lme_file
files = test_evaluate_cli.files


def test_evidence_ranks_are_the_first_memory_covering_each_turn():
    ranked = [frozenset({"D1:2"}), frozenset({"D1:1", "D2:2"}), frozenset({"D1:1"})]
    assert evidence_ranks(ranked, ["D1:1", "D2:2", "D9:9"]) == {"D1:1": 2, "D2:2": 2, "D9:9": None}


def test_a_run_hands_back_one_outcome_per_question(locomo_file):
    script = {"Cat and vase?": [{"D1:2"}, {"D1:1"}, {"D0:0"}] + [{"x"}] * 8 + [{"D2:2"}]}
    system = ScriptedSystem(script)
    system.last_channels = [["vector"], ["keyword", "entity:Miso"]] + [["vector"]] * 10
    outcomes: list[dict] = []
    result = run_locomo(system, locomo_file, outcomes=outcomes)
    assert len(outcomes) == result["questions"] == 4
    assert [o["conversation"] for o in outcomes] == ["conv-1", "conv-1", "conv-2", "conv-2"]
    cat = next(o for o in outcomes if o["category"] == "multi-hop")
    assert cat["set"] == "locomo:locomo" and cat["conversation"] == "conv-1"
    assert cat["hit"] == {"5": False, "10": False, "20": True}
    assert cat["evidence_ranks"] == {"D1:1": 2, "D2:2": 12}
    assert cat["channels"]["D1:1"] == ["keyword", "entity:Miso"]
    assert cat["injected"] is False  # the block holds the first two memories only
    oracle = next(o for o in outcomes if o["category"] == "temporal")
    assert oracle["hit"] == {"5": True, "10": True, "20": True} and oracle["injected"] is True
    assert json.loads(json.dumps(outcomes)) == outcomes


def test_longmemeval_outcomes_carry_turn_and_session_hits(lme_file):
    outcomes: list[dict] = []
    run_longmemeval(ScriptedSystem(), lme_file, outcomes=outcomes)
    assert len(outcomes) == 2  # the abstention question is not scored
    assert all(o["hit"]["5"] and o["session_hit"]["5"] for o in outcomes)


def test_folds_hold_whole_conversations_whatever_the_file_order():
    ids = ["conv-9", "conv-1", "conv-5", "conv-3"]
    folds = fold_of(ids, 2)
    assert folds == fold_of(list(reversed(ids)), 2)
    assert sorted(folds.values()) == [0, 0, 1, 1]
    with pytest.raises(ValidationError, match="folds"):
        fold_of(ids, 5)
    with pytest.raises(ValidationError, match="folds"):
        fold_of(ids, 1)


def test_fold_figures_score_each_fold_on_its_own_questions():
    def row(conv, hit):
        return {"conversation": conv, "hit": {"10": hit}, "injected": hit}

    outcomes = [row("a", True), row("a", True), row("b", False), row("c", True), row("d", False)]
    figures = fold_figures(outcomes, 2)  # a, c -> fold 0; b, d -> fold 1
    assert [f["conversations"] for f in figures["folds"]] == [["a", "c"], ["b", "d"]]
    assert [f["recall_all@10"] for f in figures["folds"]] == [1.0, 0.0]
    assert figures["spread"]["recall_all@10"] == 1.0
    assert [f["questions"] for f in figures["folds"]] == [3, 2]


@pytest.mark.real_store("the evaluation's store keeps its files in its folder")
def test_eval_cli_writes_outcomes_and_folds_on_the_real_paths(capsys, files, tmp_path):
    data, cfg, store = files
    sample = json.loads(data.read_text(encoding="utf-8"))[0]
    two = tmp_path / "two.json"
    two.write_text(json.dumps([sample, {**sample, "sample_id": "conv-2"}]), encoding="utf-8")
    out = tmp_path / "q.jsonl"
    argv = ["--config", str(cfg), "eval", "locomo", str(two), "--json", "--no-progress"]
    argv += ["--no-precision", "--data-dir", str(store), "--questions-out", str(out)]
    assert main([*argv, "--folds", "2"]) == 0
    result = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == result["questions"] == 6
    assert {"id", "set", "category", "hit", "evidence_ranks", "channels"} <= set(rows[0])
    found = [r for r in rows if any(r["evidence_ranks"].values())]
    assert found and all(
        r["channels"][e] for r in found for e, k in r["evidence_ranks"].items() if k
    )
    assert result["folds"]["k"] == 2
    assert [f["conversations"] for f in result["folds"]["folds"]] == [["conv-1"], ["conv-2"]]
    with pytest.raises(SystemExit):
        main([*argv, "--folds", "1"])
    assert main([*argv, "--folds", "3"]) == 2  # more folds than conversations: named, nothing run


def test_eval_cli_refuses_folds_for_precision(capsys):
    assert main(["eval", "precision", "--folds", "2"]) == 2
    assert "--folds" in capsys.readouterr().err
