"""Isolation (docs/design.md invariant 1): one scope's memory never reaches another scope's request.

A hypothesis state machine runs random sequences of writes (turns, explicit memories, tool
events), recalls (before_request, session start, search), restatements and changes, forgets,
purges (purge_user, purge_record), session summaries and compaction, over five users and two
agents (ten scopes), half of the time through the middleware and half through the HTTP service.
Each scope has its own distinctive English and Chinese words; every block, search result and
recalled id is checked against the other scopes' words and against SQLite's owner of the id.
Reads of another scope's ids must fail as not found (there is no unscoped read in the API).
"""

from __future__ import annotations

import inspect
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from reliability_helpers import BASE_TIME, fast_dir, hash_config

from store_helpers import rows

from openclaw_memory.core.clock import FakeClock
from openclaw_memory.runtime.engine import MemoryEngine
from openclaw_memory.errors import NotFoundError
from openclaw_memory.runtime.factory import build_middleware
from openclaw_memory.maintain import compact_events, purge_record, run_maintenance
from openclaw_memory.middleware import ChatRequest, MemoryMiddleware, ToolEvent
from openclaw_memory.service.app import create_app
from openclaw_memory.store.indexer import Indexer
from openclaw_memory.types import Scope
from openclaw_memory.write.consolidate import MemoryWriter
from openclaw_memory.write.forget import (
    forget_record,
    forget_with_episodes,
    reactivate,
    restore_with_episodes,
)
from openclaw_memory.write.forget import plan as forget_plan

USERS = ("ana", "ben", "chen", "dara", "eli")
AGENTS = ("main", "coder")
SCOPES = tuple(Scope(u, a) for u in USERS for a in AGENTS)
EN = tuple(
    "kw" + w
    for w in (
        "marlow",
        "quince",
        "tessel",
        "vorpal",
        "gimble",
        "brillig",
        "slithy",
        "mimsy",
        "borogove",
        "jubjub",
    )
)
ZH = ("翡翠", "琥珀", "珊瑚", "玛瑙", "水晶", "碧玉", "琉璃", "黛石", "紫檀", "沉香")
SESSIONS = ("s1", "s2", "s3")  # the same session ids in every scope, on purpose
TOKEN = "iso-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}

TEMPLATES = (
    "remember that my codeword is {en}{n}",
    "请记住：我的暗号是{zh}{n}号",
    "I prefer {en} tea with my breakfast, 我喜欢{zh}",
    "以后回复我时请提到{zh}和{en}",
    "we talked about {en} and {zh} during the standup {n}",
    "we decided to ship {en}{n} because the {zh} build is stable",
    "下一步要把{zh}{n}部署到{en}环境",
)
QUERIES = (
    "what is my codeword {en}?",
    "我的暗号{zh}是什么",
    "what do you remember about me",
    "tea breakfast preference",
    "我们讨论过什么",
)

#: How often each kind of check really saw data (the property must not pass on empty results).
SEEN: Counter[str] = Counter()


def _scope_json(scope: Scope) -> dict:
    return {"user_id": scope.user_id, "agent_id": scope.agent_id}


def foreign_words(i: int) -> list[str]:
    return [w for j in range(len(SCOPES)) if j != i for w in (EN[j], ZH[j])]


class IsolationMachine(RuleBasedStateMachine):
    base: Path = Path(tempfile.gettempdir())

    @initialize()
    def open_store(self) -> None:
        self.dir = Path(tempfile.mkdtemp(dir=self.base))
        self.clock = FakeClock(BASE_TIME)
        cfg = hash_config(
            self.dir,
            short_term={"summary_threshold": 120, "max_tokens": 400},
            forgetting={"compaction_trigger": 2, "compaction_batch": 2},
        )
        self.mw: MemoryMiddleware = build_middleware(cfg, clock=self.clock)
        self.client = TestClient(create_app(self.mw, token=TOKEN), base_url="http://127.0.0.1")
        self.client.__enter__()
        self.history: dict[tuple[int, str], list[dict]] = {}
        self.nonce = 0
        self.steps_since_purge = 0
        for i, scope in enumerate(SCOPES):  # every scope starts with data of its own to leak
            self.mw.remember(
                scope, f"I prefer {EN[i]} tea, 我喜欢{ZH[i]}", type="preference", subject="tea"
            )
            for n in range(
                3
            ):  # and with more tool events than compaction_trigger, so compaction has work
                self.mw.on_tool_event(
                    scope,
                    "s0",
                    ToolEvent("probe", {"q": EN[i]}, f"probe found {EN[i]}{n} in {ZH[i]}"),
                )

    def teardown(self) -> None:
        if hasattr(self, "mw"):
            self.mw.flush()
            SEEN["summaries"] += rows(
                self.mw.engine, "SELECT COUNT(*) FROM records WHERE type = 'summary'"
            )[0][0]
            self.client.__exit__(None, None, None)
            self.mw.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    # ---- helpers --------------------------------------------------------------------------

    def post(self, path: str, body: dict, status: int = 200) -> dict:
        resp = self.client.post(path, json=body, headers=AUTH)
        assert resp.status_code == status, f"{path}: {resp.status_code} {resp.text[:500]}"
        return resp.json()

    def owner(self, record_id: str) -> Scope | None:
        found = rows(
            self.mw.engine, "SELECT user_id, agent_id FROM records WHERE id = ?", (record_id,)
        )
        return Scope(found[0][0], found[0][1]) if found else None

    def snapshot_outside(self, inside) -> dict:
        """Every record not owned by a scope that inside(user, agent) accepts: id -> state."""
        self.mw.flush()
        found = rows(
            self.mw.engine, "SELECT id, user_id, agent_id, status, version, summary FROM records"
        )
        return {r["id"]: tuple(r) for r in found if not inside(r["user_id"], r["agent_id"])}

    def check(self, i: int, what: str, text: str, ids: list[str]) -> None:
        """text shown to scope i holds no other scope's word; ids are all owned by scope i."""
        leaked = [w for w in foreign_words(i) if w in text]
        assert not leaked, f"{what} for {SCOPES[i]} shows words of other scopes {leaked}:\n{text}"
        for rid in ids:
            assert self.owner(rid) == SCOPES[i], (
                f"{what} for {SCOPES[i]} returned {rid} of {self.owner(rid)}"
            )
        if EN[i] in text or ZH[i] in text:
            SEEN[f"{what} with own data"] += 1

    def text_for(self, i: int, template: str) -> str:
        self.nonce += 1
        return template.format(en=EN[i], zh=ZH[i], n=self.nonce)

    def foreign_ids(self, i: int) -> list[str]:
        s = SCOPES[i]
        found = rows(
            self.mw.engine,
            "SELECT id FROM records WHERE NOT (user_id = ? AND agent_id = ?) ORDER BY rid",
            (s.user_id, s.agent_id),
        )
        return [r[0] for r in found]

    # ---- writes ---------------------------------------------------------------------------

    @rule(
        i=st.integers(0, 9),
        session=st.sampled_from(SESSIONS),
        ts=st.lists(st.integers(0, 6), min_size=1, max_size=3),
        http=st.booleans(),
    )
    def turns(self, i: int, session: str, ts: list[int], http: bool) -> None:
        for t in ts:
            self.turn(i, session, t, http)

    def turn(self, i: int, session: str, t: int, http: bool) -> None:
        scope = SCOPES[i]
        history = self.history.setdefault((i, session), [])
        user = {"role": "user", "content": self.text_for(i, TEMPLATES[t])}
        reply = {"role": "assistant", "content": f"Noted, {EN[i]}."}
        if http:
            self.post(
                "/v1/capture",
                {
                    "scope": _scope_json(scope),
                    "session_id": session,
                    "messages": [*history, user, reply],
                },
                202,
            )
        else:
            self.mw.after_response(
                ChatRequest(scope, session, [SYSTEM, *history, user]), reply["content"]
            )
        history += [user, reply]
        self.clock.advance(600)

    @rule(i=st.integers(0, 9), value=st.integers(0, 3), http=st.booleans())
    def remember(self, i: int, value: int, http: bool) -> None:
        """An explicit memory on a fixed subject: the same value restates, another one changes it."""
        scope = SCOPES[i]
        text = f"my project {EN[i]} is code-named {ZH[i]}{value}"
        before = self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id))
        if http:
            rid = self.post(
                "/v1/memory/remember",
                {"scope": _scope_json(scope), "text": text, "type": "fact", "subject": "codename"},
            )["memory"]["id"]
        else:
            rid = self.mw.remember(scope, text, type="fact", subject="codename").record.id
        assert self.owner(rid) == scope
        assert (
            self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id)) == before
        )

    @rule(
        i=st.integers(0, 9),
        session=st.sampled_from(SESSIONS),
        n=st.integers(1, 3),
        http=st.booleans(),
    )
    def tool_events(self, i: int, session: str, n: int, http: bool) -> None:
        scope = SCOPES[i]
        for _ in range(n):
            outcome = self.text_for(i, "probe found {en}{n} in the {zh} archive")
            if http:
                self.post(
                    "/v1/tool-event",
                    {
                        "scope": _scope_json(scope),
                        "session_id": session,
                        "tool": "probe",
                        "outcome": outcome,
                    },
                    202,
                )
            else:
                self.mw.on_tool_event(scope, session, ToolEvent("probe", {"q": EN[i]}, outcome))

    # ---- reads ----------------------------------------------------------------------------

    @rule(i=st.integers(0, 9), q=st.integers(0, 4), of=st.integers(0, 9), http=st.booleans())
    def recall(self, i: int, q: int, of: int, http: bool) -> None:
        """Ask, sometimes with another scope's words in the prompt (`of`)."""
        scope, prompt = SCOPES[i], QUERIES[q].format(en=EN[of], zh=ZH[of])
        if http:
            plan = self.post(
                "/v1/recall", {"scope": _scope_json(scope), "session_id": "s1", "prompt": prompt}
            )
            block, ids = plan["block"], [m["id"] for m in plan["memories"]]
            text = block + " ".join(m["summary"] for m in plan["memories"])
        else:
            res = self.mw.before_request(
                ChatRequest(scope, "s1", [SYSTEM, {"role": "user", "content": prompt}])
            )
            block, ids = res.plan.block, [c.record.id for c in res.plan.candidates]
            text = block + " ".join(c.record.summary for c in res.plan.candidates)
        self.check(i, "recall", text, ids)

    @rule(i=st.integers(0, 9), q=st.integers(0, 4), of=st.integers(0, 9), http=st.booleans())
    def search(self, i: int, q: int, of: int, http: bool) -> None:
        scope, query = SCOPES[i], QUERIES[q].format(en=EN[of], zh=ZH[of])
        if http:
            found = self.post(
                "/v1/memory/search", {"scope": _scope_json(scope), "query": query, "limit": 20}
            )
            pairs = [(m["id"], m["summary"]) for m in found["memories"]]
        else:
            pairs = [
                (s.record.id, s.record.summary) for s in self.mw.search(scope, query, limit=20)
            ]
        self.check(i, "search", " ".join(p[1] for p in pairs), [p[0] for p in pairs])

    @rule(i=st.integers(0, 9), session=st.sampled_from(SESSIONS), http=st.booleans())
    def session_start(self, i: int, session: str, http: bool) -> None:
        scope = SCOPES[i]
        if http:
            plan = self.post(
                "/v1/session/start", {"scope": _scope_json(scope), "session_id": session}
            )
            block, ids = plan["block"], [m["id"] for m in plan["memories"]]
        else:
            p = self.mw.on_session_start(scope, session)
            block, ids = p.block, [c.record.id for c in p.candidates if c.kept]
        self.check(i, "session start", block, ids)

    @rule(i=st.integers(0, 9), pick=st.integers(0, 10**6), http=st.booleans())
    def read_foreign_id(self, i: int, pick: int, http: bool) -> None:
        """get / forget / purge_record of another scope's id: not found, and nothing changes."""
        others = self.foreign_ids(i)
        if not others:
            return
        rid, scope = others[pick % len(others)], SCOPES[i]
        before = self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id))
        if http:
            self.post("/v1/memory/get", {"scope": _scope_json(scope), "id": rid}, 404)
            self.post("/v1/memory/forget", {"scope": _scope_json(scope), "id": rid}, 404)
        else:
            with pytest.raises(NotFoundError):
                self.mw.get(scope, rid)
            with pytest.raises(NotFoundError):
                self.mw.forget(scope, memory_id=rid)
        with pytest.raises(NotFoundError):
            purge_record(self.mw.maintenance, scope, rid)
        assert (
            self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id)) == before
        )
        SEEN["foreign id refused"] += 1

    # ---- forgetting, summaries, compaction, purge ------------------------------------------

    @rule(i=st.integers(0, 9), of=st.integers(0, 9), http=st.booleans())
    def forget_by_query(self, i: int, of: int, http: bool) -> None:
        scope, query = SCOPES[i], f"my project {EN[of]} is code-named {ZH[of]}1"
        before = self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id))
        if http:
            ids = self.post("/v1/memory/forget", {"scope": _scope_json(scope), "query": query})[
                "forgotten"
            ]
        else:
            ids = self.mw.forget(scope, query=query)
        assert all(self.owner(rid) == scope for rid in ids)
        assert (
            self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id)) == before
        )

    @rule(
        i=st.integers(0, 9),
        session=st.sampled_from(SESSIONS),
        http=st.booleans(),
        compaction=st.booleans(),
    )
    def end_session(self, i: int, session: str, http: bool, compaction: bool) -> None:
        scope = SCOPES[i]
        before = self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id))
        path, hook = (
            ("/v1/session/compact", self.mw.on_compaction)
            if compaction
            else ("/v1/session/end", self.mw.on_session_end)
        )
        if http:
            self.post(path, {"scope": _scope_json(scope), "session_id": session}, 202)
        else:
            hook(scope, session)
        assert (
            self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id)) == before
        )

    @rule(i=st.integers(0, 9), everyone=st.booleans())
    def compact(self, i: int, everyone: bool) -> None:
        scope = SCOPES[i]
        self.mw.flush()
        if everyone:
            run_maintenance(self.mw.maintenance)
        else:
            before = self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id))
            compact_events(self.mw.maintenance, scope)
            assert (
                self.snapshot_outside(lambda u, a: (u, a) == (scope.user_id, scope.agent_id))
                == before
            )
        self.check_links()

    @invariant()
    def count_steps(self) -> None:
        self.steps_since_purge += 1

    # a purge wipes a user: keep it rarer than the other rules (at most one in eight steps)
    @precondition(lambda self: self.steps_since_purge >= 8)
    @rule(u=st.integers(0, 4), one_agent=st.booleans())
    def purge(self, u: int, one_agent: bool) -> None:
        self.steps_since_purge = 0
        user = USERS[u]
        agent = AGENTS[0] if one_agent else None
        hit = lambda uu, aa: uu == user and (agent is None or aa == agent)  # noqa: E731
        before = self.snapshot_outside(hit)
        self.mw.purge_user(user, agent)
        assert self.snapshot_outside(hit) == before
        left = rows(
            self.mw.engine, "SELECT user_id, agent_id FROM records WHERE user_id = ?", (user,)
        )
        assert all(not hit(r[0], r[1]) for r in left)
        for i, scope in enumerate(SCOPES):
            if hit(scope.user_id, scope.agent_id):
                for key in [k for k in self.history if k[0] == i]:
                    del self.history[key]
                ask = {"role": "user", "content": QUERIES[0].format(en=EN[i], zh=ZH[i])}
                res = self.mw.before_request(ChatRequest(scope, "s9", [ask]))
                assert res.plan.block == "", f"{scope} still gets memories after its purge"
        SEEN["purge"] += 1

    def check_links(self) -> None:
        """Summaries made by compaction link only to events of their own scope."""
        for r in rows(
            self.mw.engine,
            "SELECT id, user_id, agent_id, links FROM records WHERE type = 'summary'",
        ):
            for link in json.loads(r["links"]):
                owner = self.owner(link)
                own = Scope(r["user_id"], r["agent_id"])
                assert owner is None or owner == own, f"{r['id']} of {own} links {link} of {owner}"
                SEEN["compaction links checked"] += 1

    @rule()
    def advance_a_day(self) -> None:
        self.clock.advance(86_400)


@pytest.fixture
def base(tmp_path):
    path, remove = fast_dir(tmp_path, "ocm-iso-")
    IsolationMachine.base = path
    yield path
    if remove:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.slow  # every door over many scopes, about 8 s
def test_no_scope_ever_sees_another_scopes_memory(base, capsys):
    SEEN.clear()
    run_state_machine_as_test(
        IsolationMachine,
        settings=settings(
            max_examples=10,
            stateful_step_count=30,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        ),
    )
    with capsys.disabled():
        print(f"\nisolation checks that saw data: {dict(SEEN)}")
    # the property held on real data, not on empty answers
    for kind in (
        "recall with own data",
        "search with own data",
        "session start with own data",
        "foreign id refused",
        "purge",
        "summaries",
        "compaction links checked",
    ):
        assert SEEN[kind] > 0, f"no {kind} during the run: {dict(SEEN)}"


def test_summaries_and_compaction_of_same_named_sessions_stay_in_their_scope(base):
    """Deterministic companion of the property test: every scope summarizes session "s1" and
    compacts its tool events, then each scope's session start, recall and search are checked."""
    m = IsolationMachine()
    m.open_store()
    try:
        for i in range(len(SCOPES)):
            for t in (5, 6, 1, 5):
                m.turn(i, "s1", t, http=bool(i % 2))
            m.tool_events(i, "s1", 3, http=bool(i % 2))
        for i in range(len(SCOPES)):
            m.end_session(i, "s1", http=bool(i % 2), compaction=False)
            m.compact(i, everyone=False)
        kinds = dict(
            (r[0], r[1])
            for r in rows(
                m.mw.engine,
                "SELECT user_id || '/' || agent_id, COUNT(*) FROM records "
                "WHERE type = 'summary' GROUP BY 1",
            )
        )
        assert len(kinds) == len(SCOPES) and all(n >= 2 for n in kinds.values()), (
            kinds
        )  # session + compaction
        for i, scope in enumerate(SCOPES):
            plan = m.mw.on_session_start(scope, "s2")
            assert EN[i] in plan.block or ZH[i] in plan.block, plan.block
            m.check(i, "session start", plan.block, [c.record.id for c in plan.candidates])
            for http in (False, True):
                m.recall(i, 4, i, http)
                m.search(i, 0, (i + 1) % len(SCOPES), http)
    finally:
        m.teardown()


# ---- there is no unscoped read ----------------------------------------------------------------


def _v1_routes(app) -> list[str]:
    return sorted(
        p for p, ops in app.openapi()["paths"].items() if p.startswith("/v1/") and "post" in ops
    )


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    mw = build_middleware(hash_config(tmp_path_factory.mktemp("api")), clock=FakeClock(BASE_TIME))
    with TestClient(create_app(mw, token=TOKEN), base_url="http://127.0.0.1") as client:
        yield client
    mw.close()


def test_every_v1_route_requires_a_scope(api):
    routes = _v1_routes(api.app)
    assert len(routes) >= 10, routes
    for path in routes:
        resp = api.post(path, json={}, headers=AUTH)
        assert resp.status_code == 422, path
        assert "scope" in [f["field"] for f in resp.json()["fields"]], (
            f"{path} accepts a body without scope"
        )


@pytest.mark.parametrize(
    "cls,methods",
    [
        (
            MemoryMiddleware,
            (
                "recall",
                "search",
                "get",
                "remember",
                "forget",
                "on_session_start",
                "capture_messages",
                "on_tool_event",
                "on_session_end",
                "on_compaction",
                "record_process_event",
            ),
        ),
        (
            MemoryEngine,
            (
                "get",
                "neighbours",
                "chain",
                "versions",
                "keyword",
                "semantic",
                "audit_log",
                "touch",
            ),
        ),
        (MemoryWriter, ("write",)),
        (Indexer, ("searcher",)),  # recall's vector searches
    ],
)
def test_every_read_and_write_takes_a_scope_first(cls, methods):
    public = {n for n, f in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}
    assert set(methods) <= public
    for name in methods:
        params = list(inspect.signature(getattr(cls, name)).parameters)
        assert params[1] == "scope", f"{cls.__name__}.{name} does not take a scope first: {params}"
    chat = inspect.signature(ChatRequest).parameters["scope"]
    assert chat.default is inspect.Parameter.empty  # before_request/after_response: scope required


@pytest.mark.parametrize(
    "fn", [forget_record, reactivate, forget_with_episodes, restore_with_episodes, forget_plan]
)
def test_every_forget_and_restore_takes_a_scope_before_what_it_names(fn):
    params = list(inspect.signature(fn).parameters)
    assert "scope" in params
    named = [p for p in ("record_id", "memory_id", "record", "command") if p in params]
    assert named and params.index("scope") < params.index(named[0]), params


def test_same_user_on_another_agent_is_another_scope(api):
    ana_main, ana_coder = _scope_json(Scope("ana", "main")), _scope_json(Scope("ana", "coder"))
    mem = api.post(
        "/v1/memory/remember",
        json={"scope": ana_main, "text": "remember that my codeword is kwmarlow"},
        headers=AUTH,
    ).json()["memory"]
    assert (
        api.post(
            "/v1/memory/get", json={"scope": ana_coder, "id": mem["id"]}, headers=AUTH
        ).status_code
        == 404
    )
    found = api.post(
        "/v1/memory/search", json={"scope": ana_coder, "query": "kwmarlow codeword"}, headers=AUTH
    ).json()
    assert found["memories"] == []
    found = api.post(
        "/v1/memory/search", json={"scope": ana_main, "query": "kwmarlow codeword"}, headers=AUTH
    ).json()
    assert mem["id"] in [m["id"] for m in found["memories"]]
