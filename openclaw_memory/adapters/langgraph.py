"""A LangGraph store: this package's long-term memory as a `langgraph.store.base.BaseStore`.

    from langgraph.graph import StateGraph
    from openclaw_memory import build_middleware
    from openclaw_memory.adapters.langgraph import OpenClawStore

    store = OpenClawStore(build_middleware())            # namespace ("memories", user_id)
    graph = builder.compile(store=store)                 # nodes take `store: BaseStore`
    store.put(("memories", "alice"), "diet", {"content": "Alice is vegetarian"})
    store.search(("memories", "alice"), query="what does alice eat?", limit=3)

Namespaces are scopes. The store is built with a namespace template, by default
`("memories", "{user_id}")`; `{user_id}` is required, `{agent_id}` and `{workspace}` may appear,
every other label is literal. A namespace of the template's length whose literals match names
one scope (the agent is the store's `agent_id` when the template has no `{agent_id}`);
anything else is an `InvalidNamespaceError` that shows the expected form. A search's
`namespace_prefix` may be shorter (`("alice",)` under a `("{user_id}", "{agent_id}", ...)`
template searches all of Alice's agents) but must name the user: no query crosses users.

Items are memories. A value is `{"content": str}` with optional `"type"` (a curated memory
type: not "episode"; default "fact") and `"subject"`; any other field is refused (nothing is silently dropped). An
item read back holds `content`, `type` and `subject` (when set): what was put, as stored.
- `put` writes on the explicit channel through our write path (secret filter, check before
  write): a value that restates or changes a memory of the scope updates it rather than adding
  a second live copy. A put under an existing key writes a new version of that memory.
  `put(..., None)` and `delete` forget (deactivate, audited, undoable with `restore`).
- Keys: an item's key is the key it was put under, or our memory id for memories that came
  through another door (a conversation, the CLI). A key stays valid across versions: it
  resolves to the newest version of its memory. Keys other than our ids are kept as a
  `key:<key>` tag on the memory; a key not seen before is looked up in one pass over the scope's
  curated records (at most SCAN_LIMIT, newest first), which learns every key it meets.
- `search` with a query is our recall (fusion of vector, keyword and recency channels, the
  relevance gate): items come best first with `score` in [0, 1]. Without a query it lists the
  scope's live curated memories, newest update first, `score` None. `filter` matches the value's
  fields (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`); `offset` and `limit` page.
- `list_namespaces` lists the namespaces of the scopes holding memories (prefix and suffix with
  `*` wildcards, `max_depth`).
- TTLs are not supported (our forgetting jobs age memories by type); `index` is ignored: every
  memory is indexed.

Every call blocks on SQLite and the embedder; `abatch` runs `batch` on a worker thread.
"""

from __future__ import annotations

import asyncio
import operator
import re
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import NotFoundError, ValidationError
from ..types import Candidate, Channel, MemoryRecord, MemoryType, Scope, Status
from ..write.forget import forget_record, reactivate
from . import missing

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:
    raise missing("langgraph", "langgraph", exc) from exc

if TYPE_CHECKING:
    from ..middleware import MemoryMiddleware

__all__ = ["OpenClawStore"]

DEFAULT_NAMESPACE: tuple[str, ...] = ("memories", "{user_id}")
#: the fields a value may carry
VALUE_FIELDS = ("content", "type", "subject")
#: the types a value may name: curated memories (the episodic log is written by capture only)
CURATED = tuple(t for t in MemoryType if t is not MemoryType.EPISODE)
#: how many of a scope's records a key look-up or a filtered listing reads at most
SCAN_LIMIT = 10_000
KEY_TAG = "key:"
_ID = re.compile(r"^mem_\d+_[0-9a-f]{12}$")
_PLACEHOLDERS = {"{user_id}": "user_id", "{agent_id}": "agent_id", "{workspace}": "workspace"}
_OPS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")  # LangGraph's filter operators


class OpenClawStore(BaseStore):
    """LangGraph's store over a `MemoryMiddleware` (see the module doc for the mapping).

    middleware: built by `build_middleware`; the store does not close it. namespace: the
    template namespaces follow. agent_id: the agent of every scope when the template has no
    `{agent_id}`.
    """

    def __init__(
        self,
        middleware: "MemoryMiddleware",
        *,
        namespace: Sequence[str] = DEFAULT_NAMESPACE,
        agent_id: str = "default",
    ) -> None:
        from ..middleware import MemoryMiddleware

        if not isinstance(middleware, MemoryMiddleware):
            raise ValidationError(
                "middleware: expected a MemoryMiddleware (build_middleware(...)), "
                f"found {type(middleware).__name__}"
            )
        self.mw = middleware
        self.template = _check_template(tuple(namespace))
        self.agent_id = Scope("probe", agent_id).agent_id
        self._keys: dict[tuple[Scope, str], str] = {}

    # ---- BaseStore's two abstract methods -----------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each op in order; results in the same order (None for a put)."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` on a worker thread, so the event loop is not held up."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValidationError(
            f"op: expected GetOp, PutOp, SearchOp or ListNamespacesOp, found {type(op).__name__}"
        )

    # ---- namespaces <-> scopes ----------------------------------------------------------------

    def scope_of(self, namespace: Sequence[str], *, field: str = "namespace") -> Scope:
        """The scope a namespace names; InvalidNamespaceError showing the expected form."""
        ns = tuple(namespace)
        if len(ns) != len(self.template):
            raise InvalidNamespaceError(f"{field}: expected {self.template}, found {ns}")
        parts: dict[str, str] = {"agent_id": self.agent_id}
        for label, value in zip(self.template, ns):
            name = _PLACEHOLDERS.get(label)
            if name:
                parts[name] = value
            elif label != value:
                raise InvalidNamespaceError(f"{field}: expected {self.template}, found {ns}")
        return Scope(parts["user_id"], parts["agent_id"], parts.get("workspace"))

    def namespace_of(self, scope: Scope) -> tuple[str, ...]:
        """The namespace of a scope (the template filled in)."""
        values = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        values["workspace"] = scope.workspace or ""
        return tuple(values[_PLACEHOLDERS[x]] if x in _PLACEHOLDERS else x for x in self.template)

    # ---- the ops ------------------------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        scope = self.scope_of(op.namespace)
        self.mw.jobs.read_your_writes(scope)
        record = self._resolve(scope, op.key)
        return None if record is None else self._item(scope, record, key=op.key)

    def _put(self, op: PutOp) -> None:
        scope = self.scope_of(op.namespace)
        _check_key(op.key)
        self.mw.jobs.read_your_writes(scope)
        current = self._resolve(scope, op.key)
        if op.value is None:
            if current is not None:
                reason = "deleted through the LangGraph store"
                forget_record(self.mw.store, self.mw.clock, scope, current.id, reason)
                self.mw.indexer.notify()
            return None
        content, kind, subject = _parse_value(op.value)
        if current is not None:
            self._update(scope, current, content, kind, subject)
            return None
        self._insert(scope, op.key, content, kind, subject)
        return None

    def _insert(
        self, scope: Scope, key: str, content: str, kind: MemoryType, subject: str | None
    ) -> None:
        self._refuse_secrets(content, subject)
        tags = () if _ID.match(key) else (f"{KEY_TAG}{key}",)
        cand = Candidate(
            kind,
            content,
            subject=subject,
            tags=tags,
            importance=0.8,
            confidence=0.95,
            channel=Channel.EXPLICIT,
        )
        result = self.mw.writer.write(scope, [cand], writer="langgraph-store")[0]
        if result.record is not None:
            self._keys[(scope, key)] = result.record.id

    def _update(
        self,
        scope: Scope,
        current: MemoryRecord,
        content: str,
        kind: MemoryType,
        subject: str | None,
    ) -> None:
        from ..write.edit import edit_memory

        if kind is not current.type:
            raise ValidationError(
                f"value.type: memory {current.id!r} is a {current.type.value}, found "
                f"{kind.value!r}; a memory keeps its type (delete it and put it again)"
            )
        if subject is not None and subject != current.subject:
            raise ValidationError(
                f"value.subject: memory {current.id!r} is about {current.subject!r}, found "
                f"{subject!r}; a memory keeps its subject (delete it and put it again)"
            )
        if content != current.summary:
            edit_memory(
                self.mw.engine,
                scope,
                current.id,
                content,
                writer="langgraph-store",
                secrets=self.mw.secrets,
            )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        offset, limit = _count("offset", op.offset), _count("limit", op.limit)
        check = _matcher(op.filter)
        wanted = SCAN_LIMIT if op.filter else offset + limit
        query = op.query if op.query is not None and op.query.strip() else None
        found: list[tuple[Scope, MemoryRecord, float | None]] = []
        for scope in self._scopes_under(op.namespace_prefix):
            if query is not None:
                found += [(scope, s.record, s.score) for s in self.mw.search(scope, query, wanted)]
            else:
                self.mw.jobs.read_your_writes(scope)
                rows = self.mw.store.listing(
                    scope, status=Status.ACTIVE.value, curated_only=True, limit=wanted
                )
                found += [(scope, r, None) for r in rows]
        # one scope's order as recall or the listing gave it; several merged by score or recency
        found.sort(key=lambda f: -(f[2] if f[2] is not None else f[1].updated_at))
        items = [self._item(scope, r, score=score) for scope, r, score in found]
        kept = [i for i in items if isinstance(i, SearchItem) and check(i.value)]
        return kept[offset : offset + limit]

    def _scopes_under(self, prefix: Sequence[str]) -> list[Scope]:
        """The scopes a search's namespace prefix covers: the one its namespace names, or the
        user's scopes under a shorter prefix that still names the user."""
        ns = tuple(prefix)
        if len(ns) >= len(self.template):
            return [self.scope_of(ns, field="namespace_prefix")]
        at = self.template.index("{user_id}")
        literals_match = all(t in _PLACEHOLDERS or t == n for t, n in zip(self.template, ns))
        if at >= len(ns) or ns[at] == "*" or not literals_match:
            raise InvalidNamespaceError(
                f"namespace_prefix: expected a prefix of {self.template} that names the user, "
                f"found {ns} (no query crosses users)"
            )
        scopes = self.mw.store.scopes(ns[at])
        if "{agent_id}" not in self.template:
            scopes = [s for s in scopes if s.agent_id == self.agent_id]
        return [s for s in scopes if self.namespace_of(s)[: len(ns)] == ns]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        scopes = self.mw.store.scopes()
        if "{agent_id}" not in self.template:
            scopes = [s for s in scopes if s.agent_id == self.agent_id]
        names = {self.namespace_of(s) for s in scopes}
        if op.max_depth is not None:
            names = {n[: op.max_depth] for n in names}
        kept = sorted(n for n in names if all(_matches(n, c) for c in op.match_conditions or ()))
        offset, limit = _count("offset", op.offset), _count("limit", op.limit)
        return kept[offset : offset + limit]

    # ---- keys and items -----------------------------------------------------------------------

    def _resolve(self, scope: Scope, key: str) -> MemoryRecord | None:
        """The newest version of the memory a key names when it is live, else None."""
        record = self._lookup(scope, key)
        record = None if record is None else self._newest(scope, record)
        return record if record is not None and record.status is Status.ACTIVE else None

    def _newest(self, scope: Scope, record: MemoryRecord) -> MemoryRecord:
        """The last version of a memory's chain (an edit or an update replaced the others)."""
        seen = {record.id}
        while (nxt := self.mw.store.latest_successor(scope, record.id)) is not None:
            if nxt.id in seen:
                break
            seen.add(nxt.id)
            record = nxt
        return record

    def _lookup(self, scope: Scope, key: str) -> MemoryRecord | None:
        store = self.mw.store
        known = self._keys.get((scope, key)) or (key if _ID.match(key) else None)
        if known is not None:
            record = store.get(scope, known)
            if record is not None:
                return record
        # one pass over the scope's curated records (newest update first) learns every key
        found: dict[str, MemoryRecord] = {}
        for record in store.listing(scope, curated_only=True, limit=SCAN_LIMIT):
            for tag in record.tags:
                if tag.startswith(KEY_TAG):
                    found.setdefault(tag[len(KEY_TAG) :], record)
        for name, record in found.items():
            self._keys.setdefault((scope, name), record.id)
        return found.get(key)

    def _item(
        self,
        scope: Scope,
        record: MemoryRecord,
        *,
        key: str | None = None,
        score: float | None = None,
    ) -> Item:
        own = next((t[len(KEY_TAG) :] for t in record.tags if t.startswith(KEY_TAG)), None)
        value: dict[str, Any] = {"content": record.summary, "type": record.type.value}
        if record.subject:
            value["subject"] = record.subject
        if score is None and key is not None:
            return Item(
                namespace=self.namespace_of(scope),
                key=key,
                value=value,
                created_at=_when(record.created_at),
                updated_at=_when(record.updated_at),
            )
        return SearchItem(
            namespace=self.namespace_of(scope),
            key=key or own or record.id,
            value=value,
            created_at=_when(record.created_at),
            updated_at=_when(record.updated_at),
            score=score,
        )

    def _refuse_secrets(self, content: str, subject: str | None) -> None:
        for name, text in (("value.content", content), ("value.subject", subject or "")):
            if self.mw.secrets.contains_secret(text):
                raise ValidationError(
                    f"{name}: looks like a secret (password, key, card or ID number); "
                    "secrets are never stored"
                )

    # ---- convenience --------------------------------------------------------------------------

    def restore(self, namespace: Sequence[str], key: str) -> Item:
        """Undo a delete: the memory a key named is live again."""
        scope = self.scope_of(namespace)
        record = self._lookup(scope, key)
        if record is None:
            raise NotFoundError(f"key: no memory {key!r} in namespace {tuple(namespace)}")
        newest = self._newest(scope, record)
        mw = self.mw
        back = reactivate(
            mw.store, mw.clock, scope, newest.id, model=mw.engine.model_name, langs=mw.langs
        )
        mw.indexer.notify()
        return self._item(scope, back, key=key)


def _check_template(template: tuple[str, ...]) -> tuple[str, ...]:
    if "{user_id}" not in template or any(not isinstance(x, str) or not x for x in template):
        raise ValidationError(
            'namespace: expected a tuple of labels holding "{user_id}" (and optionally '
            f'"{{agent_id}}", "{{workspace}}"), found {template!r}'
        )
    if len(set(x for x in template if x in _PLACEHOLDERS)) != sum(
        1 for x in template if x in _PLACEHOLDERS
    ):
        raise ValidationError(f"namespace: each placeholder at most once, found {template!r}")
    return template


def _check_key(key: Any) -> None:
    if not isinstance(key, str) or not key.strip():
        raise ValidationError(f"key: expected a non-empty string, found {key!r}")


def _parse_value(value: Mapping[str, Any]) -> tuple[str, MemoryType, str | None]:
    if not isinstance(value, Mapping):
        raise ValidationError(
            f'value: expected a mapping like {{"content": "..."}}, found {type(value).__name__}'
        )
    extra = sorted(str(k) for k in value if k not in VALUE_FIELDS)
    if extra:
        raise ValidationError(
            f"value.{extra[0]}: unknown field; a value holds {', '.join(VALUE_FIELDS)}"
        )
    content = value.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ValidationError(f"value.content: expected a non-empty string, found {content!r}")
    kind_name = value.get("type", MemoryType.FACT.value)
    kind = next((t for t in CURATED if t.value == kind_name), None)
    if kind is None:
        kinds = ", ".join(t.value for t in CURATED)
        raise ValidationError(f"value.type: expected one of {kinds}, found {kind_name!r}")
    subject = value.get("subject")
    if subject is not None and (not isinstance(subject, str) or not subject.strip()):
        raise ValidationError(f"value.subject: expected a non-empty string, found {subject!r}")
    return content.strip(), kind, subject


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(f"{name}: expected an integer >= 0, found {value!r}")
    return value


def _when(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=timezone.utc)


def _matcher(filter: Mapping[str, Any] | None) -> Any:
    """A predicate over item values for a LangGraph filter (exact values or operators)."""
    conditions = []
    for field, want in (filter or {}).items():
        ops = want if isinstance(want, Mapping) else {"$eq": want}
        for op, operand in ops.items():
            if op not in _OPS:
                raise ValidationError(
                    f"filter.{field}: unknown operator {op!r}; expected one of {', '.join(_OPS)}"
                )
            conditions.append((field, op, operand))
    return lambda value: all(_holds(value.get(f), op, x) for f, op, x in conditions)


def _holds(found: Any, op: str, operand: Any) -> bool:
    try:
        return bool(_COMPARE[op](found, operand))
    except TypeError:  # None, or a value of another kind: no order, no match
        return False


_COMPARE = {
    "$eq": operator.eq,
    "$ne": operator.ne,
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def _matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    if not path:
        return True
    return all(p == "*" or p == n for p, n in zip(path, part))
