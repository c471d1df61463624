"""Small defects found in review, each pinned by a test."""

from __future__ import annotations

from openclaw_memory.factory import build_middleware
from openclaw_memory.llm import ScriptedLLM


def test_warm_up_in_llm_mode_spends_no_llm_call(tmp_path):
    llm = ScriptedLLM()
    mw = build_middleware(overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"},
                                     "extraction": {"mode": "llm"}}, llm=llm, background=False)
    try:
        mw.flush()  # the factory queued the warm-up on the worker
        assert llm.prompts == []
    finally:
        mw.close()
