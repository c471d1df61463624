"""One forget: what an explicit "forget X" names, shown before it is taken, and undoable.

A forget command is its own value (`ForgetCommand`), not a memory candidate: the rule and LLM
chains emit candidates with `forget=True`, and `ForgetCommand.from_candidate` turns them into
commands, which the middleware runs on their own path (never through consolidation).

What a command names: the memories of its subject, and the live memories that hold its
distinctive terms as whole words (the command's own words and stop words aside): every identifier
(a term with a digit: "forget the locker code word heron3" names heron3, never heron13) and two
thirds of the other terms. A command with no distinctive term and no subject names nothing. Curated memories and
the raw episodes alike, so X stops being recalled from the next request on. Forgetting a
statement takes every episode of it too (`episodes_stating`): the episodes of the turns a
forgotten fact was extracted from, and the live episodes that hold every distinctive term of the
fact itself (the user's words "my cat is called Momo" for "The user's cat is called Momo"),
whatever words the command used or when it names the fact by id; a question about it ("what is
my cat called?") lacks the value and stays.

`plan` shows what would go; `run` deactivates it (kept for audit, `reactivate` undoes it).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..core.clock import Clock
from ..errors import NotFoundError
from ..lang import Languages, all_on
from ..lang.entities import mentions_of
from ..lang.text import search_tokens
from ..extract.secrets import _MARKER as REDACTION_MARKER
from ..store.ports import RecordStore, StageStore
from ..types import AuditEntry, Candidate, Channel, MemoryRecord, MemoryType, Scope, Status
from .consolidate.records import deactivate

_TABLE = "forget"


# Every function reads the forget table through `langs`, the language packs under the config's
# switches (`rules.disabled`), every rule on when not given.


def _words(entry: str, langs: Languages | None = None) -> frozenset[str]:
    """The word list `entry` of every pack's forget table, together: words of the command itself,
    not of what it names (`command_words`); how a memory's text names the user, not a term an
    episode in the user's own words could hold (`user_words`: its statements are in the third
    person)."""
    return _word_list(entry, langs or all_on())


@functools.lru_cache(maxsize=16)
def _word_list(entry: str, langs: Languages) -> frozenset[str]:
    return frozenset(w for p in langs.all() for w in p.table(_TABLE).entry(entry).wordset)


def _inside(term: str, text: str, ranked: bool = False, langs: Languages | None = None) -> bool:
    """A term held anywhere in the text, where its language says so (`inside_text`: Chinese,
    whose segmenter cuts words differently in context); `ranked`: among other terms, as long as
    the entry asks."""
    entry = (langs or all_on()).of(term).table(_TABLE).entry("inside_text")
    least = entry.setting("min_chars", 1) if ranked else 1
    return entry.on and len(term) >= least and term in text


#: at most this many memories go in one command (a wider match is shown, not taken)
MAX_MATCHES = 20


@dataclass(frozen=True)
class ForgetCommand:
    """An explicit "forget X": the words X, and the slot it names when a rule recognised one."""

    text: str
    subject: str | None = None
    channel: Channel = Channel.EXPLICIT

    @classmethod
    def from_candidate(cls, c: Candidate) -> "ForgetCommand":
        return cls((c.detail or c.summary).strip(), c.subject, c.channel)


@dataclass(frozen=True)
class ForgetPlan:
    """What a command would deactivate, and the terms it matched them by."""

    command: ForgetCommand
    terms: tuple[str, ...]
    matches: tuple[MemoryRecord, ...]
    #: more memories matched than one command takes (MAX_MATCHES): nothing was taken
    too_broad: bool = False

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.matches]


#: the secret filter's `[REDACTED:<kind>]` marker: a redacted secret names nothing
_REDACTED = REDACTION_MARKER


def distinctive_terms(text: str, langs: Languages | None = None) -> tuple[str, ...]:
    """The command's terms that name something: search tokens minus command and stop words."""
    text = _REDACTED.sub(
        " ", text
    )  # a redacted secret names nothing (no secret is stored to match)
    langs = langs or all_on()
    command_words = _words("command_words", langs)
    terms = [
        t
        for t in search_tokens(text)
        if t not in command_words
        and len(t) >= langs.of(t).table(_TABLE).entry("term_length").setting("min_chars", 2)
    ]
    return tuple(dict.fromkeys(terms))


def names(record: MemoryRecord, terms: tuple[str, ...], langs: Languages | None = None) -> bool:
    """The memory holds the command's identifiers (terms with a digit: heron3, PRD-223) as whole
    words, every one, and at least two thirds of its other terms (terms of an unspaced language: inside its text), so
    "杭州出差取消了，忘掉那件事吧" still names "下周三去杭州出差" but heron3 never names heron13."""
    if not terms:
        return False
    words = set(search_tokens(record.text))
    text = record.text.lower()
    held = [t in words or _inside(t, text, ranked=True, langs=langs) for t in terms]
    ids = [h for t, h in zip(terms, held) if any(ch.isdigit() for ch in t)]
    if not all(ids):
        return False
    rest = [h for t, h in zip(terms, held) if not any(ch.isdigit() for ch in t)]
    return not rest or sum(rest) * 3 >= 2 * len(rest)


def plan(
    store: StageStore, scope: Scope, command: ForgetCommand, langs: Languages | None = None
) -> ForgetPlan:
    """The live memories the command names (nothing is changed); `langs`: the packs whose forget
    tables read it (every rule on by default)."""
    terms = distinctive_terms(command.text, langs)
    found: dict[str, MemoryRecord] = {}
    if command.subject:
        for r in store.live_by_subject(scope, [command.subject], limit=50):
            found[r.id] = r
    if terms:
        hits = [
            rid
            for rid, _ in store.keyword_search(
                scope, " ".join(terms), statuses=("active",), limit=200
            )
        ]
        for rid, r in store.get_many(scope, hits).items():
            if r.status is Status.ACTIVE and names(r, terms, langs):
                found.setdefault(rid, r)
    for r in episodes_stating(store, scope, list(found.values()), langs):
        found.setdefault(r.id, r)
    # in the order they were written (deterministic whatever order the indexes returned them in)
    matches = tuple(store.in_written_order(scope, list(found)))
    return ForgetPlan(command, terms, matches, too_broad=len(matches) > MAX_MATCHES)


def _holds_all(
    record: MemoryRecord, terms: tuple[str, ...], langs: Languages | None = None
) -> bool:
    """Every term in the record's text (a whole word, or inside it for a term of an unspaced language)."""
    words = set(search_tokens(record.text))
    text = record.text.lower()
    return all(t in words or _inside(t, text, langs=langs) for t in terms)


def episodes_stating(
    store: StageStore, scope: Scope, records: list[MemoryRecord], langs: Languages | None = None
) -> list[MemoryRecord]:
    """The live episodes that state what these (curated) memories say: the episodes of the turns
    each was extracted from, and those that hold every one of its own distinctive terms (a
    question about it lacks the value: "what is my cat called?" stays)."""
    curated = [r for r in records if r.type is not MemoryType.EPISODE]
    turns = sorted({t for r in curated for t in r.source.turn_ids})
    ids = list(store.episodes_of_turns(scope, turns)) if turns else []
    for r in curated:
        user_words = _words("user_words", langs)
        terms = tuple(t for t in distinctive_terms(r.summary, langs) if t not in user_words)
        if len(terms) < 2:  # too little to tell a statement of it from a mention
            continue
        hits = [
            rid
            for rid, _ in store.keyword_search(
                scope, " ".join(terms), statuses=("active",), limit=200
            )
        ]
        ids += [
            rid
            for rid, e in store.get_many(scope, hits).items()
            if e.type is MemoryType.EPISODE and _holds_all(e, terms, langs)
        ]
    live = store.get_many(scope, list(dict.fromkeys(ids)))
    return [e for e in live.values() if e.type is MemoryType.EPISODE and e.status is Status.ACTIVE]


def run(
    store: StageStore,
    clock: Clock,
    scope: Scope,
    command: ForgetCommand,
    langs: Languages | None = None,
) -> ForgetPlan:
    """Deactivate what the command names (all of it, or nothing when it names too much). The
    caller wakes the indexer for the outbox entries this queued."""
    p = plan(store, scope, command, langs)
    if p.too_broad:
        return p
    reason = f"forgotten on request: {command.text[:80]}"
    for r in p.matches:
        forget_record(store, clock, scope, r.id, reason, command.channel)
    return p


def forget_record(
    store: StageStore,
    clock: Clock,
    scope: Scope,
    record_id: str,
    reason: str = "forgotten on request",
    channel: Channel = Channel.EXPLICIT,
    writer: str | None = None,
) -> MemoryRecord:
    """Deactivate one memory (audited, kept for `reactivate`); an inactive one is returned as is.
    The caller wakes the indexer for the outbox entry this queued."""
    with store.transaction():
        r = store.get(scope, record_id)
        if r is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        if r.status is Status.INACTIVE:
            return r
        return deactivate(store, r, clock.now(), reason, channel, writer)


def reactivate(
    store: StageStore,
    clock: Clock,
    scope: Scope,
    record_id: str,
    reason: str = "restored on request",
    channel: Channel = Channel.EXPLICIT,
    *,
    model: str,
    langs: Languages | None = None,
) -> MemoryRecord:
    """Undo a forget: the memory is active again (audited); an active one is returned as is.
    model: the embedder the index holds (`store.embedder()`); `langs`: the packs what it names
    is read with again (every rule on by default). The caller wakes the indexer, which
    re-indexes its vector from the outbox."""
    with store.transaction():
        r = store.get(scope, record_id)
        if r is None:
            raise NotFoundError(f"memory {record_id!r} not found for user {scope.user_id!r}")
        if r.status is Status.INACTIVE:
            now = clock.now()
            r = r.replace(status=Status.ACTIVE, superseded_at=None, updated_at=now)
            store.update(r, None, model, reindex=False, mentions=mentions_of(r, langs))
            store.audit(AuditEntry(scope, r.id, "restore", reason, now, channel.value))
        return r


def forget_with_episodes(
    store: StageStore,
    clock: Clock,
    scope: Scope,
    record: MemoryRecord,
    *,
    dry_run: bool = False,
    langs: Languages | None = None,
) -> list[str]:
    """Deactivate a memory named by id and every episode stating it (`episodes_stating`);
    `dry_run`: only say which. The ids, the memory's first. The caller wakes the indexer."""
    episodes = [e.id for e in episodes_stating(store, scope, [record], langs)]
    if dry_run:
        return [record.id, *episodes]
    ids = [forget_record(store, clock, scope, record.id).id]
    reason = f"forgotten with {record.id}"
    return ids + [forget_record(store, clock, scope, e, reason).id for e in episodes]


def restore_with_episodes(
    store: RecordStore,
    clock: Clock,
    scope: Scope,
    memory_id: str,
    *,
    model: str,
    langs: Languages | None = None,
) -> MemoryRecord:
    """Undo a forget by id: the memory, and the episodes that forget took with it, are active
    again (audited), what each names read with `langs`. The caller wakes the indexer."""
    record = reactivate(store, clock, scope, memory_id, model=model, langs=langs)
    turns = sorted(set(record.source.turn_ids))
    episodes = store.episodes_of_turns(scope, turns) if turns else []
    taken = f"forgotten with {record.id}"
    newest: dict[str, str] = {}
    for row in store.audit_of(scope, episodes):
        newest.setdefault(row["record_id"], str(row.get("reason") or ""))
    for episode in (e for e in episodes if newest.get(e) == taken):
        reactivate(
            store, clock, scope, episode, f"restored with {record.id}", model=model, langs=langs
        )
    return record


def _one_line(text: str) -> str:
    """text with each run of white space (line breaks included) made one space."""
    parts = text.split()
    lead = " " if text[:1].isspace() else ""
    tail = " " if parts and text[-1:].isspace() else ""
    return lead + " ".join(parts) + tail


def describe(p: ForgetPlan) -> list[str]:
    """One line per memory the plan takes: id, type, text (what `forget --dry-run` prints)."""
    return [f"{r.id}  [{r.type.value}]  {_one_line(r.summary)[:100]}" for r in p.matches]
