"""The block-quality instrument (evaluate/block.py): assistant-style sessions from a grammar."""

from __future__ import annotations

import pytest

from openclaw_memory.config import config_from_dict, load_config
from openclaw_memory_bench.evaluate.block import generate, run_block
from openclaw_memory_bench.evaluate.memory_system import MemorySystem
from openclaw_memory_bench.evaluate.report import format_block
from openclaw_memory.lang.utterance import request_only


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sessions_are_drawn_from_the_grammar_with_a_seed(lang):
    first, again, other = generate(lang, 0, 7), generate(lang, 0, 7), generate(lang, 0, 8)
    assert first.sessions == again.sessions and first.sessions != other.sessions
    turns = [t for s in first.sessions for t, _ in s]
    asked = [t for t in turns if t in first.requests]
    assert len(asked) > len(turns) / 2  # mostly requests for help
    kinds = {kind for kind, _, _ in first.probes}
    assert kinds == {"fact", "cross", "request"}
    assert all(request_only(t) for t in first.requests)


def test_the_block_holds_no_request_no_question_list_and_no_other_persons_profile(tmp_path):
    cfg = config_from_dict({"storage": {"embedding_model": "hash"}}, base=load_config(None))
    system = MemorySystem(cfg, tmp_path)
    try:
        result = run_block(system, seed=0, users=1)
    finally:
        system.close()
    assert set(result["by_lang"]) == {"en", "zh"}
    for lang, t in result["by_lang"].items():
        assert t["blocks"] > 0 and t["lines"] > 0, lang
        assert t["echoed"] == 0 and t["question_lists"] == 0 and t["others_as_user"] == 0, lang
        assert t["fact_recall"] >= 0.9, lang
    assert "noise_share" in format_block(result)
