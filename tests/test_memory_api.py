"""Memory and AsyncMemory, driven as a mem0 user drives them: real SQLite and vector index in a
temp dir, the hashing embedder, a fake clock."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from openclaw_memory import AsyncMemory, HashEmbedding, Memory, NotFoundError, ValidationError


@pytest.fixture
def memory(make_config, tmp_path, clock):
    with Memory(config=make_config(tmp_path), clock=clock) as m:
        yield m


def _only(answer: dict, event: str | None = None) -> dict:
    results = answer["results"]
    assert len(results) == 1, results
    if event is not None:
        assert results[0]["event"] == event, results
    return results[0]


# ---- add: the check-before-write outcome -----------------------------------------------------


@pytest.mark.parametrize(
    "first, changed, old_word, new_word, query",
    [
        ("I live in Boston", "I moved to Paris last month", "Boston", "Paris", "where do I live"),
        ("我住在北京", "我搬到上海了", "北京", "上海", "我住在哪里"),
    ],
    ids=["en", "zh"],
)
def test_a_changed_fact_is_an_update_of_the_old_one_and_search_finds_the_new(
    memory, clock, first, changed, old_word, new_word, query
):
    added = _only(memory.add(first, user_id="alice"), "ADD")
    assert old_word in added["memory"]
    clock.advance(60)
    update = _only(memory.add(changed, user_id="alice"), "UPDATE")
    assert new_word in update["memory"]
    assert update["previous_id"] == added["id"]
    assert old_word in update["previous_memory"]
    assert memory.get(added["id"], user_id="alice")["status"] == "inactive"

    found = memory.search(query, user_id="alice", limit=3)["results"]
    assert found and new_word in found[0]["memory"]
    assert all(old_word not in r["memory"] for r in found)
    top = found[0]
    assert 0 < top["score"] <= 1 and top["user_id"] == "alice"
    assert top["reasons"][0].startswith("found by ") and len(top["reasons"]) > 1


@pytest.mark.parametrize(
    "fact, forget",
    [
        ("I live in Boston", "Please forget that I live in Boston"),
        ("我住在北京", "忘掉我住在北京这件事"),
    ],
    ids=["en", "zh"],
)
def test_a_forget_in_the_messages_answers_delete_of_what_it_retired(memory, fact, forget):
    added = _only(memory.add(fact, user_id="alice"), "ADD")
    deleted = _only(memory.add(forget, user_id="alice"), "DELETE")
    assert deleted["id"] == added["id"] and deleted["memory"] == added["memory"]


def test_a_restated_fact_is_none_and_a_chat_with_a_reply_is_captured_from_the_user_turn(memory):
    chat = [
        {"role": "user", "content": "My favourite drink is green tea"},
        {"role": "assistant", "content": "Noted, green tea it is."},
    ]
    added = _only(memory.add(chat, user_id="alice"), "ADD")
    again = _only(memory.add(chat, user_id="alice"), "NONE")
    assert again["id"] == added["id"]
    assert [r["id"] for r in memory.get_all(user_id="alice")["results"]] == [added["id"]]


@pytest.mark.parametrize(
    "text, word",
    [("Remember: I am allergic to peanuts", "peanut"), ("请记住：我对花生过敏", "花生")],
)
def test_infer_false_remembers_the_text_on_the_explicit_channel(memory, text, word):
    added = _only(memory.add(text, user_id="alice", infer=False), "ADD")
    assert word in added["memory"]
    stored = memory.get(added["id"], user_id="alice")
    assert stored["status"] == "active"
    history = memory.history(added["id"], user_id="alice")
    assert history[0]["event"] == "ADD" and history[0]["channel"] == "explicit"
    assert history[0]["actor"] == "memory-tool"


# ---- read: get_all, filters, metadata, scope -------------------------------------------------


def test_metadata_is_kept_and_filters_select_by_it_and_by_type(memory):
    tea = _only(memory.add("I like green tea", user_id="alice", metadata={"topic": "food", "n": 2}))
    memory.add("我在北京工作", user_id="alice", metadata={"topic": "work"})
    assert memory.get(tea["id"], user_id="alice")["metadata"] == {"topic": "food", "n": 2}

    food = memory.get_all(user_id="alice", filters={"topic": "food"})["results"]
    assert [r["id"] for r in food] == [tea["id"]]
    found = memory.search("tea", user_id="alice", filters={"topic": "food"})["results"]
    assert tea["id"] in {r["id"] for r in found}  # beside the turn's episode, which carries it too
    assert all(r["metadata"] == {"topic": "food", "n": 2} for r in found)
    work = memory.search("tea", user_id="alice", filters={"topic": "work"})["results"]
    assert all(r["metadata"] == {"topic": "work"} for r in work)

    curated = memory.get_all(user_id="alice")["results"]
    assert len(curated) == 2 and all(r["type"] != "episode" for r in curated)
    episodes = memory.get_all(user_id="alice", filters={"type": "episode"})["results"]
    assert {r["memory"] for r in episodes} == {"I like green tea", "我在北京工作"}


def test_run_id_is_the_session_of_the_memories_and_filters_them(memory):
    memory.add("I like green tea", user_id="alice", run_id="run-1")
    memory.add("I work at Acme", user_id="alice", run_id="run-2")
    in_run = memory.get_all(user_id="alice", run_id="run-1")["results"]
    assert [r["run_id"] for r in in_run] == ["run-1"] and "tea" in in_run[0]["memory"]


def test_one_users_memory_never_reaches_another_user_or_agent(memory):
    mine = _only(memory.add("I live in Boston", user_id="alice"))
    assert memory.search("where do I live", user_id="bob")["results"] == []
    assert memory.get_all(user_id="alice", agent_id="other")["results"] == []
    for call in (memory.get, memory.delete, memory.history):
        with pytest.raises(NotFoundError, match=mine["id"]):
            call(mine["id"], user_id="bob")


# ---- update, delete, history, purge ------------------------------------------------------------


@pytest.mark.parametrize(
    "text, edited", [("I live in Boston", "I live in Lyon"), ("我住在北京", "我住在杭州")]
)
def test_update_makes_a_new_version_and_history_tells_the_chain(memory, clock, text, edited):
    first = _only(memory.add(text, user_id="alice"))
    clock.advance(60)
    new = memory.update(first["id"], edited, user_id="alice")
    assert new["event"] == "UPDATE" and new["memory"] == edited
    assert new["previous_id"] == first["id"] and new["previous_memory"] == first["memory"]
    assert new["id"] != first["id"] and new["version"] == 2
    assert memory.get(first["id"], user_id="alice")["status"] == "inactive"

    history = memory.history(new["id"], user_id="alice")
    assert [(h["memory_id"], h["event"]) for h in history] == [
        (first["id"], "ADD"),
        (first["id"], "DELETE"),
        (new["id"], "UPDATE"),
    ]
    assert history[-1]["old_memory"] == first["memory"] and history[-1]["new_memory"] == edited
    assert history[-1]["actor"] == "api"
    assert memory.history(first["id"], user_id="alice") == history  # the same chain either way


@pytest.mark.real_store("delete_all's count: the in-memory store counts 6 where SQLite counts 4")
def test_delete_forgets_restore_undoes_and_delete_all_forgets_everything(memory):
    tea = _only(memory.add("I like green tea", user_id="alice"))
    memory.add("我对花生过敏", user_id="alice")
    gone = memory.delete(tea["id"], user_id="alice")
    assert gone == {"id": tea["id"], "memory": tea["memory"], "event": "DELETE"}
    assert memory.get(tea["id"], user_id="alice")["status"] == "inactive"
    assert all(r["id"] != tea["id"] for r in memory.search("tea", user_id="alice")["results"])
    assert memory.history(tea["id"], user_id="alice")[-1]["event"] == "DELETE"

    assert memory.restore(tea["id"], user_id="alice")["status"] == "active"
    assert tea["id"] in {r["id"] for r in memory.search("tea", user_id="alice")["results"]}

    assert memory.delete_all(user_id="alice")["deleted"] == 4  # two memories, two episodes
    assert memory.get_all(user_id="alice")["results"] == []
    assert memory.get(tea["id"], user_id="alice")["status"] == "inactive"  # kept for audit


def test_purge_removes_one_user_and_reset_removes_everyone(memory):
    alice = _only(memory.add("I live in Boston", user_id="alice"))
    bob = _only(memory.add("我住在北京", user_id="bob"))
    assert memory.purge(user_id="alice")["records"] >= 2
    with pytest.raises(NotFoundError):
        memory.get(alice["id"], user_id="alice")
    assert memory.history(bob["id"], user_id="bob")  # bob untouched
    assert memory.reset()["users"] == 1
    with pytest.raises(NotFoundError):
        memory.get(bob["id"], user_id="bob")


# ---- errors name the field -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda m: m.add("I like tea"), "user_id"),
        (lambda m: m.search("tea"), "user_id"),
        (lambda m: m.get_all(), "user_id"),
        (lambda m: m.get("mem_1", agent_id="main"), "user_id"),
        (lambda m: m.delete_all(), "user_id"),
        (lambda m: m.purge(), "user_id"),
        (lambda m: m.add("I like tea", user_id="alice\n"), "user_id"),
        (lambda m: m.add("I like tea", user_id="alice", agent_id="a b"), "agent_id"),
        (lambda m: m.add("I like tea", user_id="alice", run_id=""), "run_id"),
        (lambda m: m.add("  ", user_id="alice"), "messages"),
        (lambda m: m.add([{"role": "robot", "content": "x"}], user_id="alice"), "messages[0].role"),
        (lambda m: m.add([{"role": "assistant", "content": "hi"}], user_id="alice"), "messages"),
        (lambda m: m.add("I like tea", user_id="alice", metadata=["x"]), "metadata"),
        (lambda m: m.add("I like tea", user_id="alice", metadata={"k": [1]}), "metadata.k"),
        (
            lambda m: m.add("my password is hunter2secret!", user_id="alice", infer=False),
            "messages",
        ),
        (lambda m: m.search("", user_id="alice"), "query"),
        (lambda m: m.search("tea", user_id="alice", limit=0), "limit"),
        (lambda m: m.search("tea", user_id="alice", filters={"type": "x"}), "filters.type"),
        (lambda m: m.get_all(user_id="alice", filters="tea"), "filters"),
        (lambda m: m.get_all(user_id="alice", filters={"k": {"a": 1}}), "filters.k"),
        (lambda m: m.add(42, user_id="alice"), "messages"),
        (lambda m: m.get("", user_id="alice"), "memory_id"),
        (lambda m: m.update("mem_1", "", user_id="alice"), "data"),
        (lambda m: m.get_all(user_id="alice", filters={"status": "gone"}), "filters.status"),
    ],
)
def test_bad_input_is_a_validation_error_naming_the_field(memory, call, field):
    with pytest.raises(ValidationError, match=rf"^{re.escape(field)}: "):
        call(memory)
    assert memory.get_all(user_id="alice")["results"] == []  # and nothing was written


def test_update_names_its_arguments_in_the_edits_errors(memory):
    first = _only(memory.add("I like green tea", user_id="alice"))
    with pytest.raises(ValidationError, match="^data: looks like a secret"):
        memory.update(first["id"], "my password is hunter2secret!", user_id="alice")
    memory.delete(first["id"], user_id="alice")
    with pytest.raises(ValidationError, match="^memory_id: memory .* is inactive"):
        memory.update(first["id"], "I like oolong tea", user_id="alice")
    assert memory.get(first["id"], user_id="alice")["memory"] == first["memory"]  # unchanged


@pytest.mark.real_store("the store's files under the data directory")
def test_memory_on_the_defaults_keeps_its_data_under_the_working_directory(
    tmp_path, monkeypatch, clock
):
    monkeypatch.chdir(tmp_path)
    with Memory(embedder=HashEmbedding(), clock=clock) as m:
        added = _only(m.add("我对花生过敏", user_id="alice"), "ADD")
        assert m.middleware.cfg.storage.data_dir == "./data"
    assert (tmp_path / "data" / "memory.db").exists()
    with Memory(embedder=HashEmbedding(), clock=clock) as m:
        assert m.get(added["id"], user_id="alice")["memory"] == added["memory"]


@pytest.mark.real_store("the store's files under the data directory")
def test_config_as_a_mapping_and_as_a_yaml_file(tmp_path, clock):
    yaml_file = tmp_path / "project.yaml"
    yaml_file.write_text("storage:\n  data_dir: ./store\n  embedding_model: hash\n")
    with Memory(config=str(yaml_file), clock=clock) as m:
        m.add("I live in Boston", user_id="alice")
    assert (tmp_path / "store" / "memory.db").exists()
    with Memory(
        config={"storage": {"data_dir": str(tmp_path / "store"), "embedding_model": "hash"}}
    ) as m:
        assert "Boston" in m.get_all(user_id="alice")["results"][0]["memory"]
    with pytest.raises(ValidationError, match="^config: expected"):
        Memory(config=42)  # type: ignore[arg-type]


# ---- AsyncMemory -------------------------------------------------------------------------------


class SlowChannel:
    """A recall channel that takes its time, as a remote index or a big store does."""

    name = "slow"
    uses_vector = False

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def propose(self, scope, query, qvec, pool) -> None:
        time.sleep(self.seconds)


def test_async_recall_does_not_block_the_event_loop(make_config, tmp_path, clock):
    async def scenario() -> tuple[int, dict]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        async with AsyncMemory(
            make_config(tmp_path), clock=clock, recall_channels=[SlowChannel(0.5)]
        ) as m:
            await m.add("I live in Boston", user_id="alice")
            task = asyncio.create_task(ticker())
            await asyncio.sleep(0.05)  # the ticker is running
            before = ticks
            found = await m.search("where do I live", user_id="alice")
            during = ticks - before
            task.cancel()
        return during, found

    during, found = asyncio.run(scenario())
    assert "Boston" in found["results"][0]["memory"]
    assert during >= 10, f"the loop ticked {during} times during a 0.5 s recall"


def test_async_round_trip_in_both_languages(make_config, tmp_path, clock):
    async def scenario() -> None:
        async with AsyncMemory(make_config(tmp_path), clock=clock) as m:
            first = (await m.add("我住在北京", user_id="wang"))["results"][0]
            clock.advance(60)
            moved = (await m.add("我搬到上海了", user_id="wang"))["results"][0]
            assert moved["event"] == "UPDATE" and moved["previous_id"] == first["id"]
            tea = (await m.add("I like green tea", user_id="wang"))["results"][0]
            found = await m.search("我住在哪里", user_id="wang")
            assert "上海" in found["results"][0]["memory"]
            assert len((await m.get_all(user_id="wang"))["results"]) == 2
            assert (await m.get(tea["id"], user_id="wang"))["memory"] == tea["memory"]
            new = await m.update(tea["id"], "I like oolong tea", user_id="wang")
            assert [h["event"] for h in await m.history(new["id"], user_id="wang")] == [
                "ADD",
                "DELETE",
                "UPDATE",
            ]
            assert (await m.delete(new["id"], user_id="wang"))["event"] == "DELETE"
            await m.restore(new["id"], user_id="wang")
            assert (await m.delete_all(user_id="wang"))["deleted"] >= 2
            with pytest.raises(ValidationError, match="^user_id"):
                await m.search("tea")
            await m.purge(user_id="wang")
            with pytest.raises(NotFoundError):
                await m.get(tea["id"], user_id="wang")
            assert (await m.reset())["users"] == 0

    asyncio.run(scenario())


# ---- the documented example runs as written, on the front page and in the API's page -------------


@pytest.mark.real_store("the store's files under the data directory")
@pytest.mark.parametrize(
    ("page", "heading"),
    [("README.md", "A first use in Python"), ("docs/python.md", "Python API (mem0-shaped)")],
)
def test_the_documented_example_runs(page, heading, tmp_path, monkeypatch, capsys):
    text = (Path(__file__).resolve().parents[1] / page).read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) <= 15
    monkeypatch.chdir(tmp_path)
    exec(compile(code, page, "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "UPDATE - The user lives in Boston"
    assert printed[1].startswith("The user lives in Paris ") and "found by " in printed[1]
    assert printed[2] == "['ADD', 'DELETE', 'UPDATE']"
    assert (tmp_path / "memory" / "memory.db").exists()
    with Memory.from_config({"storage": {"data_dir": "memory", "embedding_model": "hash"}}) as m:
        allergy = m.get_all(user_id="alice", filters={"source": "chat"})["results"]
        assert [r["memory"] for r in allergy] == ["用户对花生过敏"]


def test_async_calls_run_concurrently_and_keep_each_users_memory_apart(
    make_config, tmp_path, clock
):
    facts = {
        "u1": "I live in Boston",
        "u2": "我住在北京",
        "u3": "I work at Acme",
        "u4": "我在华为工作",
    }

    async def scenario() -> dict:
        async with AsyncMemory(make_config(tmp_path), clock=clock) as m:
            await asyncio.gather(*(m.add(text, user_id=u) for u, text in facts.items()))
            found = await asyncio.gather(*(m.get_all(user_id=u) for u in facts))
        return {u: [r["memory"] for r in f["results"]] for u, f in zip(facts, found)}

    stored = asyncio.run(scenario())
    for user, memories in stored.items():
        assert len(memories) == 1, stored
        word = {"u1": "Boston", "u2": "北京", "u3": "Acme", "u4": "华为"}[user]
        assert word in memories[0]
