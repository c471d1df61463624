"""Typed config from YAML with clear errors, and the docs/design.md seed 002 §5.2 middleware listing."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from openclaw_memory.runtime.factory import load_chain
from openclaw_memory.config import DEFAULT_CONFIG_PATH, load_config
from openclaw_memory.config.schema import RecallConfig
from openclaw_memory.errors import ConfigError
from openclaw_memory.middleware import ChatRequest
from openclaw_memory.types import Scope


def write(tmp_path, text, name="project.yaml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_every_default_key_is_in_the_yaml_with_a_comment():
    text = DEFAULT_CONFIG_PATH.read_text(encoding="utf-8")
    for key in (
        "max_tokens",
        "window_size",
        "summary_threshold",
        "top_k",
        "max_facts_per_user",
        "sqlite_path",
        "vector_store",
        "embedding_model",
        "query_runtime",
    ):
        line = next(line for line in text.splitlines() if line.strip().startswith(f"{key}:"))
        assert "#" in line or key == "vector_store", key


def test_project_yaml_overrides_defaults_and_resolves_paths(tmp_path):
    cfg = load_config(write(tmp_path, "long_term:\n  top_k: 3\nstorage:\n  data_dir: mem\n"))
    assert cfg.long_term.top_k == 3 and cfg.short_term.max_tokens == 4000
    assert cfg.data_dir == tmp_path / "mem"


@pytest.mark.parametrize(
    "yaml_text,semantic,recency",
    [
        (
            "recall:\n  weights_unspaced:\n    recency: 0.0\n",
            0.6,
            0.0,
        ),  # the other keys keep their defaults
        ("recall:\n  weights_unspaced:\n    semantic: 0.7\n", 0.7, 0.02),
    ],
)
def test_partial_override_of_an_optional_section_keeps_its_other_keys(
    tmp_path, yaml_text, semantic, recency
):
    unspaced = load_config(write(tmp_path, yaml_text)).recall.weights_unspaced
    assert (unspaced.semantic, unspaced.keyword, unspaced.recency) == (semantic, 0.15, recency)


@pytest.mark.parametrize(
    "old,new,value,read",
    [
        (
            "weights_cjk",
            "weights_unspaced",
            "\n    semantic: 0.7",
            lambda r: r.weights_unspaced.semantic,
        ),
        (
            "unheld_margin_cjk",
            "unheld_margin_unspaced",
            " 0.03",
            lambda r: r.unheld_margin_unspaced,
        ),
        (
            "personal_margin_cjk",
            "personal_margin_unspaced",
            " null",
            lambda r: r.personal_margin_unspaced,
        ),
    ],
)
def test_a_renamed_key_still_loads_under_its_new_name_with_a_warning(
    tmp_path, old, new, value, read
):
    """A project YAML written before the rename keeps its setting; it is told the new name."""
    expected = read(load_config(write(tmp_path, f"recall:\n  {new}:{value}\n")).recall)
    with pytest.warns(FutureWarning, match=f"recall.{old}' is now 'recall.{new}'"):
        cfg = load_config(write(tmp_path, f"recall:\n  {old}:{value}\n"))
    assert read(cfg.recall) == expected and read(cfg.recall) != read(RecallConfig())
    with pytest.raises(
        ConfigError, match=f"'recall.{old}' and 'recall.{new}' are the same setting"
    ):
        load_config(write(tmp_path, f"recall:\n  {old}:{value}\n  {new}:{value}\n"))


def test_optional_section_can_be_switched_off(tmp_path):
    assert (
        load_config(write(tmp_path, "recall:\n  weights_unspaced: null\n")).recall.weights_unspaced
        is None
    )


@pytest.mark.parametrize(
    "yaml_text,key,expected",
    [
        ("long_term:\n  top_kk: 3\n", "long_term.top_kk", "unknown key"),
        ("short_term:\n  max_tokens: lots\n", "short_term.max_tokens", "expects an integer"),
        ("injection:\n  position: sideways\n", "injection.position", "expects one of"),
        (
            "storage:\n  vector_store:\n    kind: cloud\n",
            "storage.vector_store.kind",
            "expects one of",
        ),
        ("storage:\n  query_runtime: gpu\n", "storage.query_runtime", "expects one of"),
        ("recall: [1, 2]\n", "recall", "expects a mapping"),
        ("bogus_section: {}\n", "bogus_section", "unknown key"),
    ],
)
def test_bad_yaml_names_file_key_and_expected_form(tmp_path, yaml_text, key, expected):
    path = write(tmp_path, yaml_text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(path) in str(err.value) and key in str(err.value) and expected in str(err.value)


@pytest.mark.parametrize(
    "raw", [b"short_term: [unclosed\n", b"\xff\xfe\x00bad", b"- just\n- a list\n"]
)
def test_broken_yaml_is_a_config_error(tmp_path, raw):
    p = tmp_path / "broken.yaml"
    p.write_bytes(raw)
    with pytest.raises(ConfigError, match="broken.yaml"):
        load_config(p)


def test_chain_loads_from_an_openclaw_config_listing(tmp_path):
    write(tmp_path, "storage:\n  data_dir: store\n  embedding_model: hash\n", "memory.yaml")
    listing = write(
        tmp_path,
        (
            "middlewares:\n"
            "  - name: memory_middleware\n"
            "    module: openclaw_memory.middleware\n"
            "    config:\n"
            "      config_file: memory.yaml\n"
            "      long_term_top_k: 4\n"
            "      working_memory_budget: 900\n"
            "context:\n"
            "  inject_memory: true\n"
            "  memory_position: before_user_input\n"
            '  system_prefix: "【历史记忆】\\n{memory_block}"\n'
        ),
        "openclaw_config.yaml",
    )
    chain = load_chain(listing)
    try:
        mw = chain.middlewares[0]
        assert chain.names == ["memory_middleware"]
        assert mw.cfg.long_term.top_k == 4 and mw.cfg.injection.budgets.retrieved == 900
        assert mw.cfg.injection.position == "before_user_input"
        alice = Scope("alice")
        req = ChatRequest(
            alice,
            "s1",
            [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "请记住：我对花生过敏"},
            ],
        )
        chain.before_request(req)
        chain.after_response(req, "好的")
        mw.flush()
        res = chain.before_request(
            ChatRequest(
                alice,
                "s2",
                [{"role": "system", "content": "sys"}, {"role": "user", "content": "推荐几道菜"}],
            )
        )
        assert res.messages[-2]["content"].startswith("【历史记忆】\n<memory-context>")
    finally:
        chain.close()


def test_chain_unknown_key_names_it(tmp_path):
    listing = write(
        tmp_path,
        "middlewares:\n  - module: openclaw_memory.middleware\n    config:\n      top_kay: 3\n",
    )
    with pytest.raises(ConfigError, match="top_kay"):
        load_chain(listing)


@pytest.mark.slow  # the demo in a fresh interpreter, about 9 s
def test_demo_exits_zero_without_network(tmp_path):
    if not shutil.which("unshare") or subprocess.run(["unshare", "-n", "true"]).returncode != 0:
        pytest.skip("unshare -n is not available here")
    exe = [sys.executable, "-m", "openclaw_memory", "demo"]
    out = subprocess.run(
        ["unshare", "-n", *exe],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "用户更喜欢喝绿茶" in out.stdout and "杭州" not in out.stdout.split("exact messages")[1]
