"""Procedural memory: how a kind of task was done, from the tool calls of a session.

A task that failed and then worked is recalled for a request of the same kind in a new session,
never for an unrelated one; a working procedure supersedes a failed one of the same kind; the
console lists, edits and forgets it. English and Chinese side by side.
"""

from __future__ import annotations

import httpx
import pytest
from console_helpers import ALICE, TOKEN, console_app

from openclaw_memory.console import LiveServer
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.middleware import ChatRequest, ToolEvent
from openclaw_memory.procedure import TaskKind
from openclaw_memory.procedure import task_kind
from openclaw_memory.types import MemoryType, Scope, Status

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
HEADING = {"en": "How this kind of task was done before:", "zh": "以前做这类任务的方法："}
#: per language: the request that starts the task, a request of the same kind in other words,
#: an unrelated request
CASES = {
    "en": (
        "Deploy the site to production",
        "Can you deploy the site again?",
        "What should I have for lunch today?",
    ),
    "zh": ("帮我把网站部署到服务器上", "再帮我部署一下网站", "中午吃什么好呢"),
}
LANGS = sorted(CASES)

FAIL = ToolEvent("deploy", {"env": "prod"}, "Error: permission denied on /var/www", ok=False)
FIX = ToolEvent("chmod", {"path": "/var/www", "mode": "775"}, "mode changed", ok=True)
DEPLOYED = ToolEvent("deploy", {"env": "prod"}, "deployed v42", ok=True)
BUILD = ToolEvent("run_build", {"target": "prod"}, "built", ok=True)


@pytest.fixture
def mw(make_config, tmp_path, clock):
    m = build_middleware(make_config(tmp_path), clock=clock)
    yield m
    m.close()


def ask(mw, session: str, text: str, scope: Scope = ALICE):
    """The plan a request gets."""
    msgs = [SYSTEM, {"role": "user", "content": text}]
    return mw.before_request(ChatRequest(scope, session, msgs)).plan


def run_task(mw, session: str, request: str, events, scope: Scope = ALICE) -> None:
    """A session: the request, its tool calls, its end."""
    ask(mw, session, request, scope)
    for event in events:
        mw.on_tool_event(scope, session, event)
    mw.on_session_end(scope, session)
    mw.flush()


def procedures(mw, scope: Scope = ALICE, status: str | None = None):
    return mw.engine.store.listing(scope, type_=MemoryType.PROCEDURE.value, status=status)


@pytest.mark.parametrize("lang", LANGS)
def test_a_fix_is_recalled_for_the_same_kind_of_task_and_never_for_lunch(mw, lang):
    request, again, lunch = CASES[lang]
    run_task(mw, f"{lang}-1", request, [BUILD, FAIL, FIX, DEPLOYED])

    plan = ask(mw, f"{lang}-2", again)
    assert HEADING[lang] in plan.block
    section = plan.block.split(HEADING[lang], 1)[1]
    # the steps that worked, the step that failed and why, and the fix
    for part in ("run_build", "chmod", "mode=775", "permission denied", "deploy"):
        assert part in section
    assert plan.sections.get("procedures", 0) > 0

    other = ask(mw, f"{lang}-3", lunch)
    assert HEADING[lang] not in other.block
    assert not [c for c in other.candidates if c.kept and c.record.type is MemoryType.PROCEDURE]


@pytest.mark.parametrize(
    "lang,question",
    [
        ("en", "What does permission denied on /var/www mean?"),
        ("zh", "权限 permission denied 是什么意思？"),
    ],
)
def test_a_request_sharing_its_words_but_asking_for_no_task_gets_no_procedure(mw, lang, question):
    request, _, _ = CASES[lang]
    run_task(mw, f"{lang}-1", request, [FAIL, FIX, DEPLOYED])
    plan = ask(mw, f"{lang}-2", question)
    assert HEADING[lang] not in plan.block and HEADING["en"] not in plan.block
    found = [c for c in plan.candidates if c.record.type is MemoryType.PROCEDURE]
    assert found and not any(c.kept for c in found)  # the channels found it; it is left out


@pytest.mark.parametrize("lang", LANGS)
def test_another_users_request_of_that_kind_gets_no_procedure(mw, lang):
    request, again, _ = CASES[lang]
    run_task(mw, f"{lang}-1", request, [FAIL, FIX, DEPLOYED])
    assert HEADING[lang] not in ask(mw, f"{lang}-2", again, Scope("bob", "main")).block


@pytest.mark.parametrize("lang", LANGS)
def test_a_working_procedure_supersedes_the_failed_one(mw, lang):
    request, again, _ = CASES[lang]
    run_task(mw, f"{lang}-1", request, [BUILD, FAIL])
    (failed,) = procedures(mw)
    assert "failed" in failed.tags and failed.status is Status.ACTIVE

    run_task(mw, f"{lang}-2", again, [FAIL, FIX, DEPLOYED])
    live = procedures(mw, status="active")
    assert len(live) == 1, [r.summary for r in live]  # never two live ones for one kind
    (working,) = live
    assert "worked" in working.tags and working.prev_id == failed.id
    assert working.subject == failed.subject
    assert mw.engine.get(ALICE, failed.id).status is Status.INACTIVE

    # restated: the same record, a new version; a later failure does not replace it
    run_task(mw, f"{lang}-3", request, [BUILD, DEPLOYED])
    run_task(mw, f"{lang}-4", again, [FAIL])
    (now,) = procedures(mw, status="active")
    assert now.id == working.id and now.version == working.version + 1
    assert "worked" in now.tags


def test_a_success_after_failures_is_written_before_the_session_ends(mw):
    ask(mw, "s1", "Deploy the site to production")
    for event in (FAIL, FIX):
        mw.on_tool_event(ALICE, "s1", event)
    mw.flush()
    (written,) = procedures(mw)
    assert "worked" in written.tags and "chmod" in written.summary


def test_a_secret_in_the_arguments_never_reaches_the_procedure(mw):
    key = "sk-" + "abcdefghijklmnopqrstuvwxyz123456"
    leaky = ToolEvent("deploy", {"env": "prod", "token": key}, f"denied for {key}", ok=False)
    run_task(mw, "s1", "Deploy the site to production", [leaky, FIX, DEPLOYED])
    (proc,) = procedures(mw)
    assert key not in proc.summary + (proc.detail or "")
    assert "token=" not in proc.summary  # a redacted value is left out, not shown as a marker


def test_a_purge_lets_go_of_the_open_task(mw):
    ask(mw, "s1", "Deploy the site to production")
    mw.on_tool_event(ALICE, "s1", FAIL)
    mw.purge_user("alice")
    mw.on_tool_event(ALICE, "s1", DEPLOYED)
    mw.on_session_end(ALICE, "s1")
    mw.flush()
    assert procedures(mw) == []


@pytest.mark.parametrize(
    "request_,kind",
    [
        ("Deploy the site to production", TaskKind("deploy", "site")),
        ("Can you deploy the site again?", TaskKind("deploy", "site")),
        ("How do I deploy the staging site?", TaskKind("deploy", "site")),
        ("I need you to publish the new release", TaskKind("publish", "release")),
        ("Let's back up the database", TaskKind("back+up", "database")),
        ("please deploy it again", TaskKind("deploy", "")),
        ("[Mon 2026-12-07 09:00 UTC] Deploy the site", TaskKind("deploy", "site")),
        ("It failed again, try with sudo", None),
        ("The site is down", None),
        ("What should I have for lunch today?", None),
        ("Where did I park?", None),
        ("帮我把网站部署到服务器上", TaskKind("部署", "网站")),
        ("再帮我部署一下网站", TaskKind("部署", "网站")),
        ("你能帮我发布新版本吗", TaskKind("发布", "版本")),
        ("把代码推送到远程仓库", TaskKind("推送", "代码")),
        ("再部署一次", TaskKind("部署", "")),
        ("中午吃什么好呢", None),
        ("今天中午吃点啥", None),
    ],
)
def test_the_kind_of_task_follows_the_grammar_of_the_request(request_, kind):
    assert task_kind(request_) == kind


def test_the_console_lists_edits_and_forgets_a_procedure(make_config, tmp_path):
    app, mw, _ = console_app(make_config(tmp_path))
    try:
        run_task(mw, "s9", "Deploy the site to production", [FAIL, FIX, DEPLOYED])
        (proc,) = procedures(mw)
        who = "user=alice&agent=main"
        with (
            LiveServer(app) as url,
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}) as ui,
        ):
            listing = ui.get(f"/ui/memories?{who}&type=procedure").text
            assert "How a task was done" in listing and "deploy site" in listing
            assert "Fix: chmod" in listing
            page = ui.get(f"/ui/memory/{proc.id}?{who}").text
            assert "How a task was done" in page and "the step that failed" in page
            r = ui.post(
                f"/ui/memory/{proc.id}/edit",
                data={"user": "alice", "agent": "main", "text": "Run chmod 775 first, then deploy"},
            )
            assert r.status_code in (200, 303)
            (edited,) = procedures(mw, status="active")
            assert edited.prev_id == proc.id and edited.summary.startswith("Run chmod 775")
            r = ui.post(f"/ui/memory/{edited.id}/forget", data={"user": "alice", "agent": "main"})
            assert r.status_code in (200, 303)
        assert procedures(mw, status="active") == []
        assert HEADING["en"] not in ask(mw, "s10", "Deploy the site again").block
    finally:
        mw.close()


def test_the_documented_example_runs(capsys):
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "python.md").read_text(encoding="utf-8")
    section = page.split("## Procedural memory", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/python.md", "exec"), {})
    assert "Fix: chmod" in capsys.readouterr().out


@pytest.mark.parametrize(
    "subject,fact,key",
    [
        ("deploy site", "To deploy the site, run chmod 775 on /var/www first", "deploy site"),
        ("部署 网站", "部署网站前要先给 /var/www 加写权限", "部署 网站"),
        (None, "部署网站前先给 /var/www 加写权限", "部署 网站"),
    ],
)
def test_the_llm_chain_keys_a_stated_procedure_by_its_kind_of_task(subject, fact, key):
    import json

    from openclaw_memory.core.clock import FakeClock
    from openclaw_memory.extract.llm_chain import LLMExtractor
    from openclaw_memory.extract.base import DEFAULT_PROMPTS_DIR
    from openclaw_memory.extract.rules import RuleExtractor
    from openclaw_memory.llm import ScriptedLLM
    from openclaw_memory.types import Turn

    item = {"type": "procedure", "fact": fact, "certainty": 0.9}
    if subject:
        item["subject"] = subject
    reply = json.dumps([item, {"type": "procedure", "fact": "Likes it quiet"}], ensure_ascii=False)
    clock = FakeClock(1_709_510_400.0)
    extractor = LLMExtractor(
        ScriptedLLM([reply]), RuleExtractor(clock), DEFAULT_PROMPTS_DIR, clock, timeout_seconds=2.0
    )
    found = extractor.extract(Turn(ALICE, "s1", fact, turn_id="t1"))
    (proc,) = [c for c in found if c.type is MemoryType.PROCEDURE]
    assert proc.subject == key and "worked" in proc.tags
    # an item the model called a procedure that names no task is kept as a fact
    assert [c.type for c in found if c.summary == "Likes it quiet"] == [MemoryType.FACT]


def test_a_markdown_export_carries_the_procedure(mw):
    from openclaw_memory.portability.files import export_markdown

    run_task(mw, "s1", "再帮我部署一下网站", [FAIL, FIX, DEPLOYED])
    text = export_markdown(mw.store, mw.clock, "alice", "main")
    assert "## Procedures" in text and "**部署 网站**" in text and "解决：chmod" in text


@pytest.mark.parametrize(
    "lang,start,follow_up,next_task,next_key",
    [
        (
            "en",
            "Deploy the site to production",
            "It failed again, try with sudo",
            "Now run the tests",
            "run tests",
        ),
        ("zh", "帮我把网站部署到服务器上", "又失败了，再试一次", "再帮我跑一下测试", "跑 测试"),
    ],
)
def test_a_follow_up_continues_the_task_and_a_new_kind_starts_another(
    mw, lang, start, follow_up, next_task, next_key
):
    ask(mw, "s1", start)
    mw.on_tool_event(ALICE, "s1", FAIL)
    ask(mw, "s1", follow_up)  # the same task: its failure and fix stay together
    mw.on_tool_event(ALICE, "s1", FIX)
    mw.on_tool_event(ALICE, "s1", DEPLOYED)
    ask(mw, "s1", next_task)  # another kind of task: the deploy task is closed
    mw.on_tool_event(ALICE, "s1", ToolEvent("pytest", {"path": "tests"}, "3 failed", ok=False))
    mw.on_tool_event(ALICE, "s1", ToolEvent("pytest", {"path": "tests", "x": "1"}, "ok", ok=True))
    mw.on_session_end(ALICE, "s1")
    mw.flush()
    by_kind = {r.subject: r for r in procedures(mw)}
    assert set(by_kind) == {
        TaskKind("deploy", "site").key if lang == "en" else "部署 网站",
        next_key,
    }
    deploy = by_kind["deploy site" if lang == "en" else "部署 网站"]
    assert "chmod" in deploy.summary and "pytest" not in deploy.summary
    assert "chmod" not in by_kind[next_key].summary


def test_a_chain_that_injects_no_memory_injects_no_procedure_either():
    from openclaw_memory.runtime.factory import _context_overrides

    budgets = _context_overrides({"inject_memory": False}, "chain.yaml")["injection"]["budgets"]
    assert budgets["procedures"] == 0 and not any(budgets.values())


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        (
            "To deploy the site, run chmod 775 on /var/www first",
            "To back up the database, stop the writer first",
            "deploy site",
        ),
        ("帮我部署网站之前先运行 chmod 775", "帮我备份数据库之前先停掉写入", "部署 网站"),
    ],
)
def test_a_procedure_remembered_by_hand_is_keyed_by_the_task_it_names(
    tmp_path, first, second, kind
):
    """`remember(type="procedure")` (the CLI, MCP's memory_store, the service) keys the text by
    the kind of task it names, so two procedures for two tasks stay two memories."""
    mw = build_middleware(
        overrides={"storage": {"data_dir": str(tmp_path / "s"), "embedding_model": "hash"}}
    )
    try:
        scope = Scope("alice", "main")
        one = mw.remember(scope, first, type="procedure")
        two = mw.remember(scope, second, type="procedure")
        assert one.record.type is MemoryType.PROCEDURE and one.record.subject == kind
        assert two.action == "insert" and two.record.subject != one.record.subject
        plain = mw.remember(
            scope, "Slowly and carefully" if kind.isascii() else "小心点", type="procedure"
        )
        assert plain.record.type is MemoryType.FACT  # names no task: kept as a fact
    finally:
        mw.close()
