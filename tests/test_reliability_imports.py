"""Imports and exports as hostile doors (RELIABILITY.md, "Imports and exports").

An import is as careful as a conversation: a bad file answers a clear error naming its line and
field and leaves nothing of it behind; fields over `remember`'s cap are refused; secrets never
reach the disk; a workspace's symbolic links are not followed; imported claims go through
check-before-write below explicit memories, and conversation corrects them. An export is private
(0600 / 0700), never written through a link, and never replaces a file it did not write without
`force`. A vector index lost or gone stale is noticed at start and on search and rebuilt in the
background while search keeps answering.
"""

from __future__ import annotations

import contextlib
import io

import json
import logging
import os
import shutil
import stat
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from reliability_helpers import find_in_files, store_files

from openclaw_memory.cli import main
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.errors import ValidationError
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.portability import export_text, export_user, import_path, import_text
from openclaw_memory.service.app import create_app
from openclaw_memory.types import Candidate, Channel, MemoryType, Scope, Status
from store_helpers import writer_of
from middleware_helpers import tell

TOKEN = "imports-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
U = Scope("ivy", "main")


@pytest.fixture
def mw(make_config, tmp_path, clock):
    m = build_middleware(make_config(tmp_path / "store"), clock=clock)
    yield m
    m.close()


def _export(mw, scope: Scope, texts: list[str]) -> list[dict]:
    """An export of `texts` remembered by a scratch user, as line dicts (header first)."""
    for t in texts:
        mw.remember(scope, t)
    lines = [json.loads(x) for x in export_text(mw.engine, scope.user_id).splitlines()]
    # fresh ids: the file is imported into this same store, under another user
    return [{**x, "id": "imp_" + x["id"]} if x["kind"] == "record" else x for x in lines]


def _jsonl(items: list[dict]) -> str:
    return "\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n"


def _records(mw, user: str) -> list:
    return mw.engine.store.user_records(user, None)


# ---- JSON Lines: one transaction, clear errors ------------------------------------------------


def _bad_files(lines: list[dict]) -> dict[str, tuple[list[dict], str]]:
    header, recs = lines[0], [x for x in lines[1:] if x["kind"] == "record"]
    no_summary = {k: v for k, v in recs[1].items() if k != "summary"}
    return {
        "duplicate id": ([header, recs[0], recs[1], {**recs[2], "id": recs[0]["id"]}], "'id'"),
        "missing summary": ([header, recs[0], no_summary], "'summary'"),
        "wrong type": ([header, recs[0], {**recs[1], "importance": "high"}], "'importance'"),
        "wrong source": (
            [header, recs[0], {**recs[1], "source": {"turn_ids": [{"x": 1}]}}],
            "'turn_ids'",
        ),
        "incomplete message row": (
            [header, recs[0], {"kind": "message", "session_id": "s1", "role": "user"}],
            "'agent_id'",
        ),
        "over the cap": ([header, recs[0], {**recs[1], "summary": "x" * 20_000_001}], "'summary'"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "duplicate id",
        "missing summary",
        "wrong type",
        "wrong source",
        "incomplete message row",
        "over the cap",
    ],
)
def test_a_bad_jsonl_file_names_line_and_field_and_imports_nothing(mw, case):
    lines = _export(mw, Scope("src", "main"), ["I like green tea", "我喜欢爬山", "I work at Acme"])
    items, field = _bad_files(lines)[case]
    text = _jsonl(items)
    with pytest.raises(ValidationError) as err:
        import_text(mw.engine, text, U, extractor=mw.extractor, secrets=mw.secrets, name="x.jsonl")
    message = str(err.value)
    assert field in message and f"x.jsonl:{len(items)}" in message, message
    assert "nothing was imported" in message
    assert _records(mw, U.user_id) == []  # the good lines before it are not kept either


def test_the_service_answers_a_bad_import_clearly_with_no_store_path(mw, tmp_path):
    lines = _export(mw, Scope("src", "main"), ["I like green tea", "I work at Acme"])
    recs = [x for x in lines[1:] if x["kind"] == "record"]
    text = _jsonl([lines[0], recs[0], recs[1], {**recs[1], "summary": "dup"}])
    with TestClient(create_app(mw, token=TOKEN), base_url="http://127.0.0.1") as client:
        r = client.post(
            "/v1/memory/import",
            json={"scope": {"user_id": U.user_id, "agent_id": U.agent_id}, "content": text},
            headers=AUTH,
        )
    assert r.status_code == 422, r.text  # the service's answer to every invalid body
    assert "'id'" in r.text and ":4" in r.text
    assert str(tmp_path) not in r.text and "constraint" not in r.text.lower()
    assert _records(mw, U.user_id) == []


def test_a_field_over_remembers_cap_is_refused_and_the_cap_is_remembers():
    from openclaw_memory.service.models import RememberIn
    from openclaw_memory.types import TEXT_MAX_CHARS

    assert RememberIn.model_fields["text"].metadata[-1].max_length == TEXT_MAX_CHARS


def test_the_jsonl_reader_stops_at_its_caps(mw, tmp_path):
    lines = _export(mw, Scope("src", "main"), ["I like green tea", "I work at Acme", "我养猫"])
    path = tmp_path / "e.jsonl"
    path.write_text(_jsonl(lines), encoding="utf-8")
    kw = dict(extractor=mw.extractor, secrets=mw.secrets)
    with pytest.raises(ValidationError, match="import cap of 2 lines"):
        import_path(mw.engine, path, U, max_records=2, **kw)
    with pytest.raises(ValidationError, match="import cap of 100 bytes"):
        import_path(mw.engine, path, U, max_bytes=100, **kw)
    one_line = tmp_path / "one.jsonl"  # one endless line is cut at the cap, not read whole
    one_line.write_text(_jsonl(lines[:1]) + '{"kind": "record", "summary": "' + "y" * 5000)
    with pytest.raises(ValidationError, match="import cap of 1000 bytes"):
        import_path(mw.engine, one_line, U, max_bytes=1000, **kw)
    assert _records(mw, U.user_id) == []
    seen: list[tuple[str, int]] = []
    import_path(mw.engine, path, U, progress=lambda phase, n: seen.append((phase, n)), **kw)
    assert len(_records(mw, U.user_id)) == 3


def test_the_cli_import_prints_progress_and_takes_its_caps(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"storage: {{data_dir: '{tmp_path / 'd'}', embedding_model: hash}}\n")
    rows = [{"kind": "header", "format": "openclaw-memory-export", "version": 1}]
    rows += [
        {"kind": "record", "id": f"r{i}", "type": "fact", "summary": f"fact {i}", "created_at": 1.0}
        for i in range(1001)
    ]
    src = tmp_path / "big.jsonl"
    src.write_text(_jsonl(rows))
    assert main(["--config", str(cfg), "import", str(src), "--user", "u", "--max-records", "5"])
    assert "import cap of 5 lines" in capsys.readouterr().err
    terminal = _Terminal()
    with contextlib.redirect_stderr(terminal):  # progress is drawn where a person watches
        assert main(["--config", str(cfg), "import", str(src), "--user", "u"]) == 0
    drawn = terminal.getvalue()
    assert "import read: 1000 lines" in drawn and "import written: 1000 records" in drawn


class _Terminal(io.StringIO):
    """A stream that says it is a terminal, as stderr does in an interactive shell."""

    def isatty(self) -> bool:
        return True


def test_secrets_in_an_imported_file_never_reach_the_disk(mw):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    password = "Tr0ub4dor&3xyz"
    key = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
    rows = [
        {"kind": "header", "format": "openclaw-memory-export", "version": 1},
        {
            "kind": "record",
            "id": "sec1",
            "type": "fact",
            "summary": "deploy notes",
            "subject": f"token {token}",
            "detail": f"password: {password}",
            "tags": [f"key {key}"],
            "source": {"channel": "explicit", "writer": f"bot {token}"},
            "created_at": 1.0,
        },
        {
            "kind": "message",
            "session_id": "s1",
            "agent_id": "main",
            "role": "user",
            "content": f"use {key} for the API",
            "tokens": 5,
            "created_at": 1.0,
        },
        {
            "kind": "audit",
            "agent_id": "main",
            "at": 1.0,
            "action": "insert",
            "reason": f"password: {password}",
        },
    ]
    report = import_text(mw.engine, _jsonl(rows), U, extractor=mw.extractor, secrets=mw.secrets)
    assert report["added"]["record"] == 1 and report["secrets_redacted"] >= 4
    mw.engine.sync_index()
    found = find_in_files(store_files(mw.engine.config), [token, password, key])
    assert not any(found.values()), found


def test_secrets_in_a_workspace_file_and_its_annotations_never_reach_the_disk(mw, tmp_path):
    token = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
    password = "Sup3rS3cret!pw"
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(
        f"- The deploy runs on Fridays <!-- subject: token {token} -->\n\n"
        f"- I like green tea <!-- trigger: password: {password} -->\n\n"
        f"- my password is {password}\n",
        encoding="utf-8",
    )
    import_path(mw.engine, ws, U, extractor=mw.extractor, secrets=mw.secrets)
    assert _records(mw, U.user_id)
    mw.engine.sync_index()
    found = find_in_files(store_files(mw.engine.config), [token, password])
    assert not any(found.values()), found


# ---- workspace import: no link followed, capped ----------------------------------------------


def _outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text("- root:x:0:0:outsidecanary:/root:/bin/bash\n")
    return secret


@pytest.mark.parametrize("linked", ["MEMORY.md", "memory/2026-01-01.md", "memory"])
def test_a_workspace_link_is_not_followed(mw, tmp_path, linked):
    secret = _outside(tmp_path)
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-01-02.md").write_text("- I like green tea\n")
    if linked == "memory":
        shutil.rmtree(ws / "memory")
        (secret.parent / "2026-01-01.md").write_text("- outsidecanary lives here\n")
        (ws / "memory").symlink_to(secret.parent, target_is_directory=True)
        (ws / "MEMORY.md").write_text("- I work at Acme\n")
    else:
        (ws / linked).symlink_to(secret)
    report = import_path(mw.engine, ws, U, extractor=mw.extractor, secrets=mw.secrets)
    texts = " ".join(r.summary for r in _records(mw, U.user_id))
    assert "outsidecanary" not in texts and texts
    assert any(linked in s and "symbolic link" in s for s in report["skipped"]), report


def test_a_linked_memory_file_given_alone_is_refused(mw, tmp_path):
    link = tmp_path / "MEMORY.md"
    link.symlink_to(_outside(tmp_path))
    with pytest.raises(ValidationError, match="symbolic link"):
        import_path(mw.engine, link, U, extractor=mw.extractor, secrets=mw.secrets)


def test_a_workspace_file_over_its_cap_is_refused_by_name(mw, tmp_path, monkeypatch):
    from openclaw_memory.portability import openclaw as openclaw_read

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("- I like green tea\n" * 100)
    with pytest.raises(ValidationError, match=r"MEMORY\.md: larger than the cap of 1000 bytes"):
        openclaw_read.load_workspace(ws, file_cap=1000)
    with pytest.raises(ValidationError, match="cap of 1000 bytes together"):
        openclaw_read.load_workspace(ws, total_cap=1000)


# ---- exports: private, no link, no foreign overwrite -------------------------------------------


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.parametrize("fmt", ["jsonl", "markdown", "openclaw"])
def test_exports_are_private_under_umask_022(mw, tmp_path, umask_022, fmt):
    mw.remember(U, "I like green tea")
    mw.engine.sync_index()
    out = tmp_path / "out" / ("ws" if fmt == "openclaw" else f"e.{fmt}")
    export_user(mw.engine, U.user_id, fmt, out)
    written = [p for p in (out.parent).rglob("*")]
    assert written
    for p in written:
        mode = stat.S_IMODE(p.lstat().st_mode)
        assert mode == (0o700 if p.is_dir() else 0o600), (p, oct(mode))


@pytest.mark.parametrize("where", ["MEMORY.md", "memory"])
def test_a_workspace_export_refuses_a_link_in_its_folder(mw, tmp_path, where):
    mw.remember(U, "I like green tea")
    tell(mw, U, ["today I fixed the build"])
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "MEMORY.md").write_text("precious\n")
    out = tmp_path / "ws"
    out.mkdir()
    (out / where).symlink_to(victim / "MEMORY.md" if where == "MEMORY.md" else victim)
    with pytest.raises(ValidationError, match="symbolic link"):
        export_user(mw.engine, U.user_id, "openclaw", out)
    assert (victim / "MEMORY.md").read_text() == "precious\n"
    assert sorted(p.name for p in victim.iterdir()) == ["MEMORY.md"]


def test_an_export_never_overwrites_a_file_it_did_not_write_without_force(mw, tmp_path):
    mw.remember(U, "I like green tea")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("precious\n")
    with pytest.raises(ValidationError, match="--force"):
        export_user(mw.engine, U.user_id, "jsonl", foreign)
    assert foreign.read_text() == "precious\n"
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("my own notes\n")
    with pytest.raises(ValidationError, match="--force"):
        export_user(mw.engine, U.user_id, "openclaw", ws)
    assert (ws / "MEMORY.md").read_text() == "my own notes\n"
    # what an export wrote, it may write again; anything else takes --force
    mine = tmp_path / "mine.jsonl"
    export_user(mw.engine, U.user_id, "jsonl", mine)
    export_user(mw.engine, U.user_id, "jsonl", mine)
    export_user(mw.engine, U.user_id, "openclaw", ws, force=True)
    export_user(mw.engine, U.user_id, "openclaw", ws)
    assert "green tea" in (ws / "MEMORY.md").read_text()
    export_user(mw.engine, U.user_id, "jsonl", foreign, force=True)
    assert "green tea" in foreign.read_text()


def test_the_cli_export_takes_force(mw, tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"storage: {{data_dir: '{tmp_path / 'd'}', embedding_model: hash}}\n")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("precious\n")
    run = lambda *a: main(["--config", str(cfg), "export", "--user", "u", "--out", *a])  # noqa: E731
    assert run(str(foreign)) != 0 and "--force" in capsys.readouterr().err
    assert foreign.read_text() == "precious\n"
    assert run(str(foreign), "--force") == 0 and "openclaw-memory-export" in foreign.read_text()


# ---- imported claims: check-before-write and the source priority -----------------------------


def _workspace(tmp_path: Path, line: str) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "MEMORY.md").write_text(f"# Memory\n\n- {line}\n", encoding="utf-8")
    return ws


def _live_values(mw, scope: Scope, subject: str) -> list:
    return [
        r
        for r in _records(mw, scope.user_id)
        if r.subject == subject and r.status is Status.ACTIVE and r.doubt_of is None
    ]


@pytest.mark.parametrize(
    "stated,imported",
    [("I live in Kyoto.", "I live in Tokyo."), ("我住在京都。", "我住在东京。")],
)
def test_an_imported_line_never_beats_an_explicit_memory(mw, tmp_path, stated, imported):
    explicit = mw.remember(U, stated).record
    report = import_path(
        mw.engine, _workspace(tmp_path, imported), U, extractor=mw.extractor, secrets=mw.secrets
    )
    assert report["consolidated"] == {"doubt": 1}, report
    live = [r for r in _records(mw, U.user_id) if r.status is Status.ACTIVE]
    assert [r.id for r in live] == [explicit.id]  # one live value of the subject, the stated one
    kept = next(r for r in _records(mw, U.user_id) if r.id != explicit.id)
    assert kept.source.channel is Channel.IMPORTED and kept.source.turn_ids == ("MEMORY.md:3",)


@pytest.mark.parametrize(
    "imported,said,new_city",
    [
        ("I live in Tokyo.", "I moved to Osaka.", "Osaka"),
        ("我住在东京。", "我搬到大阪了。", "大阪"),
    ],
)
def test_conversation_supersedes_an_imported_home(mw, tmp_path, clock, imported, said, new_city):
    import_path(
        mw.engine, _workspace(tmp_path, imported), U, extractor=mw.extractor, secrets=mw.secrets
    )
    home = next(r for r in _records(mw, U.user_id) if r.source.channel is Channel.IMPORTED)
    assert home.subject and home.status is Status.ACTIVE
    clock.advance(86400)
    tell(mw, U, [said], clock)
    live = _live_values(mw, U, home.subject)
    assert len(live) == 1 and new_city in live[0].summary, live
    assert mw.engine.get(U, home.id).status is Status.INACTIVE


def test_the_import_keeps_its_provenance_and_show_prints_it(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"storage: {{data_dir: '{tmp_path / 'd'}', embedding_model: hash}}\n")
    ws = _workspace(tmp_path, "I live in Tokyo.")
    assert main(["--config", str(cfg), "import", str(ws), "--user", "u"]) == 0
    capsys.readouterr()
    assert main(["--config", str(cfg), "list", "--user", "u"]) == 0
    out = capsys.readouterr().out
    assert "source: imported by cli-import" in out and "turns MEMORY.md:3" in out


@pytest.mark.parametrize(
    "first,later", [("I live in Tokyo.", "I live in Kyoto."), ("我住在东京。", "我住在京都。")]
)
def test_one_file_naming_two_homes_leaves_one_live_value(mw, tmp_path, first, later):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(f"- {first}\n\n- {later}\n", encoding="utf-8")
    import_path(mw.engine, ws, U, extractor=mw.extractor, secrets=mw.secrets)
    live = [r for r in _records(mw, U.user_id) if r.status is Status.ACTIVE]
    assert len(live) == 1 and live[0].summary == later, live


# ---- the vector index: lost or stale, noticed and rebuilt ------------------------------------


def _big_scope(make_config, tmp_path, clock, n: int = 12, exact_below: int = 4):
    cfg = make_config(tmp_path / "vec", storage={"vector_store": {"exact_below": exact_below}})
    eng = MemoryEngine.open(cfg, clock=clock, background=False)
    cands = [Candidate(MemoryType.EVENT, f"built release number {i} of the app") for i in range(n)]
    writer_of(eng).write(U, cands)
    eng.sync_index()
    assert eng.index.chroma.count(U, "hot") >= n
    return cfg, eng


def test_a_deleted_vector_folder_is_noticed_at_start_and_rebuilt(
    make_config, tmp_path, clock, caplog
):
    if os.environ.get("OPENCLAW_MEMORY_TEST_BACKEND") == "postgres":
        pytest.skip("the embedded folder")
    cfg, eng = _big_scope(make_config, tmp_path, clock)
    eng.close()
    shutil.rmtree(cfg.chroma_dir)
    with caplog.at_level(logging.WARNING):
        eng = MemoryEngine.open(cfg, clock=clock, background=False)
    try:
        assert any("was missing at start" in r.getMessage() for r in caplog.records)
        eng.index.watch.wait()
        assert eng.index.chroma.count(U, "hot") >= 12
    finally:
        eng.close()


@pytest.mark.parametrize("exact_below", [4, 0])
def test_a_missing_or_stale_collection_is_noticed_on_search_and_search_answers(
    make_config, tmp_path, clock, caplog, exact_below
):
    _, eng = _big_scope(make_config, tmp_path, clock, exact_below=exact_below)
    try:
        chroma = eng.index.chroma
        chroma.drop_collection(chroma.collection_name(U, "hot"))
        from openclaw_memory.embed.embedding import embed_query

        vec = embed_query(eng.embedder, "release number 3")
        with caplog.at_level(logging.WARNING):
            hits = eng.index.query(U, vec, 5)
        assert hits, "search answers from the store while the index is rebuilt"
        assert any("has no collection" in r.getMessage() for r in caplog.records)
        eng.index.watch.wait()
        assert chroma.count(U, "hot") >= 12
        # stale: most vectors gone from the collection
        ids = sorted(chroma.ids(U, "hot"))[:10]
        chroma.delete(U, ids, tiers=("hot",))
        caplog.clear()
        eng.index.watch._checked.clear()  # the recheck interval has passed
        with caplog.at_level(logging.WARNING):
            assert eng.index.query(U, vec, 5) is not None
        assert any("vectors for 12 live records" in r.getMessage() for r in caplog.records)
        eng.index.watch.wait()
        assert len(chroma.ids(U, "hot")) == 12
    finally:
        eng.close()
