"""Rendering and positioning: memories -> one clearly marked reference block -> messages.

Memories become short natural-language lines in one block, which is put into an OpenAI-style
message list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from ..core.clock import DAY, iso_date
from ..errors import ValidationError
from ..core.policy import POLICY
from ..lang import Languages, all_on, codes, pack
from ..lang.pack import LanguagePack
from ..lang.text import cuts_at_space, majority, pack_for
from ..core.tokens import count_tokens
from ..types import MemoryRecord, MemoryType, ScoredMemory, Status
from .escape import CLOSE_MARKER, OPEN_MARKER, sanitize

# Rendering: memories -> short natural-language lines -> one clearly marked reference block.
#
# Each type has a compressed form (docs/design.md seed 000 §4.2): fact/task/decision as subject + status +
# summary (never the detail), procedures as the kind of task + the steps that worked, the failure
# and its fix, events as date + kind + one-line result, episodes as date + speaker +
# shortened text (a turn with its neighbours as one transcript line; the episodes of one day share
# one date), profile/preference and summaries as their text. A record that replaced another
# recently says so in one note (docs/design.md seed 000 §4.3). The block says it is historical reference data, not
# instructions, and carries no field names or JSON (docs/design.md seed 000 §5.3). All memory text goes through
# `escape.sanitize`, so content cannot close or forge the block.

#: Sections render_block accepts, in the order they appear. "to_confirm" only when asked.
BLOCK_SECTIONS: tuple[str, ...] = ("profile", "summaries", "retrieved", "procedures", "to_confirm")

_TABLE = "render"


def _label(lp: LanguagePack, entry: str) -> Mapping[str, Any]:
    """The render labels `entry` of the pack a line is written in."""
    return lp.table(_TABLE).entry(entry).settings


def _block_label(key: str, entry: str, langs: Languages | None = None) -> Mapping[str, Any]:
    """The render labels `entry` of the pack `key` (a language code render_block accepts)."""
    return (langs or all_on()).pack(key).table(_TABLE).entry(entry).settings


#: a recalled turn is shown up to this many characters (longer ones are cut and then do not count
#: as delivered in the evaluation's injected recall)
_EPISODE_CHARS = 600
#: a neighbouring turn shown as context is cut shorter than the turn that was recalled
_CONTEXT_CHARS = 400
_RESULT_CHARS = 160
#: between the turns of one window, and between the windows of one day
_TURN_SEP = " / "
_OLD_CHARS = 80


def _shorten(text: str, limit: int) -> str:
    """At most limit characters; English is cut at a word boundary when one is near."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit - 20 and cuts_at_space(cut[space:]):
        cut = cut[:space]
    return cut.rstrip() + "…"


def _status_word(record: MemoryRecord, lp: LanguagePack, langs: Languages | None = None) -> str:
    status = _label(lp, "status")
    if record.status is Status.INACTIVE:
        return str(status["inactive"])
    if record.status is Status.ARCHIVED:
        return str(status["archived"])
    if record.type is MemoryType.DECISION:
        return str(status["decided"])
    if record.type is MemoryType.TASK:
        return _task_state(record, lp, langs)
    return str(status["current"])


def _task_state(record: MemoryRecord, lp: LanguagePack, langs: Languages | None = None) -> str:
    """The state a task's status tags name, in any language (`task_*`), shown in the line's
    language; a task with none is open."""
    langs, table = langs or all_on(), lp.table(_TABLE)
    tags = {t.lower().removeprefix("status:") for t in record.tags}
    states = [n for n in langs.names(_TABLE) if n.startswith("task_")]
    for state in states:
        if tags & {w for p in langs.all() for w in p.table(_TABLE).entry(state).wordset}:
            return str(table.entry(state).setting("shown"))
    return str(table.entry("task_open").setting("shown"))


def _date(t: float) -> str:
    return iso_date(t) if t > 0 else ""


def _keyed_line(record: MemoryRecord, lp: LanguagePack, langs: Languages | None = None) -> str:
    head = sanitize(record.subject or "") or str(_label(lp, "nouns")[record.type.value])
    status = _status_word(record, lp, langs)
    summary = sanitize(record.summary)
    return str(_label(lp, "forms")["keyed"]).format(head=head, status=status, summary=summary)


def _event_line(record: MemoryRecord, lp: LanguagePack) -> str:
    kind = sanitize(record.subject or (record.tags[0] if record.tags else "")) or str(
        _label(lp, "nouns")["event"]
    )
    first = next((ln for ln in record.summary.splitlines() if ln.strip()), "")
    result = _shorten(sanitize(first), _RESULT_CHARS)
    date = _date(record.created_at)
    forms = _label(lp, "forms")
    line = str(forms["event" if date else "event_undated"]).format(
        date=date, kind=kind, result=result
    )
    return line.strip() if forms.get("strip_event") else line


def _procedure_line(record: MemoryRecord, lp: LanguagePack) -> str:
    """The kind of task, then how it was done (the record's text, written in its language)."""
    kind = sanitize((record.subject or "").replace("+", " "))  # "set+up server"
    summary = sanitize(record.summary)
    if not kind:
        return summary
    return str(_label(lp, "forms")["procedure"]).format(kind=kind, summary=summary)


def _speaker(record: MemoryRecord) -> str:
    for tag in record.tags:
        if tag.lower().startswith("speaker:"):
            return sanitize(tag.split(":", 1)[1])
    return sanitize(record.subject or "")


def _said(record: MemoryRecord, lp: LanguagePack, limit: int = _EPISODE_CHARS) -> str:
    # transcript form ("Name: text"), as the turns themselves are usually stored: quote marks
    # around every turn cost tokens and tell the model nothing the speaker label does not
    text = _shorten(sanitize(record.summary), limit)
    who = _speaker(record)
    if not who:
        return text
    return str(_label(lp, "forms")["said"]).format(who=who, text=text)


def delivered_turns(candidate: ScoredMemory) -> tuple[str, ...]:
    """The turns a kept candidate's line shows in full: its own, and those of the neighbouring
    turns in its window that were not cut short (a cut neighbour does not count as delivered)."""
    r = candidate.record
    own = (
        r.source.turn_ids
        if r.type is not MemoryType.EPISODE or len(sanitize(r.summary)) <= _EPISODE_CHARS
        else ()
    )
    full = [
        t
        for c in candidate.context
        if c.id != candidate.record.id and len(sanitize(c.summary)) <= _CONTEXT_CHARS
        for t in c.source.turn_ids
    ]
    return tuple(dict.fromkeys([*own, *full]))


def _date_prefix(date: str, lp: LanguagePack) -> str:
    if not date:
        return ""
    return str(_label(lp, "forms")["dated"]).format(date=date)


def _episode_line(
    record: MemoryRecord, lp: LanguagePack, window: Sequence[MemoryRecord] = ()
) -> str:
    said = _TURN_SEP.join(
        _said(r, lp, _EPISODE_CHARS if r.id == record.id else _CONTEXT_CHARS)
        for r in (window or (record,))
    )
    return _date_prefix(_date(record.created_at), lp) + said


def _change_note(
    record: MemoryRecord, prev: MemoryRecord, now: float, window_days: float, lp: LanguagePack
) -> str:
    old = _shorten(sanitize(prev.summary), _OLD_CHARS)
    if not old or old == sanitize(record.summary):
        return ""
    when = prev.superseded_at if prev.superseded_at is not None else record.created_at
    if now - when > window_days * DAY:
        return ""
    date = iso_date(when)
    return str(_label(lp, "forms")["changed"]).format(date=date, old=old)


def render_record(
    record: MemoryRecord,
    *,
    now: float,
    prev: MemoryRecord | None = None,
    change_note_days: float = 30,
    window: Sequence[MemoryRecord] = (),
    langs: Languages | None = None,
) -> str:
    """One natural-language line for one memory, compressed by its type.

    prev is the record this one superseded; when the change happened within change_note_days
    of now, the line ends with "(changed from “old” on YYYY-MM-DD)" (Chinese records:
    "（YYYY-MM-DD 由“旧”改为此）"). An episode delivered with its neighbouring turns (window:
    the turns in session order, itself included) becomes one line of who said what, in order.
    The line is sanitized and has no field names. `langs`: the packs whose render tables
    word it (the request's; every rule on by default).
    """
    langs = langs or all_on()
    lp = _lang_of(record, langs)
    form = FORMS.get(POLICY[record.type].render)  # the policy table names each type's form
    line = form(record, lp, window, langs) if form else sanitize(record.summary)
    if prev is not None:
        line += _change_note(record, prev, now, change_note_days, lp)
    return sanitize(line)


#: the policy table's `render` forms that are built from the record's fields; the others
#: ("value", "rule", "summary lines") are the record's text as it is
_Form = Callable[[MemoryRecord, LanguagePack, Sequence[MemoryRecord], Languages], str]
FORMS: Mapping[str, _Form] = {
    "subject status summary": lambda r, lp, _window, langs: _keyed_line(r, lp, langs),
    "time kind result": lambda r, lp, _window, _langs: _event_line(r, lp),
    "turn and neighbours": lambda r, lp, window, _langs: _episode_line(r, lp, window),
    "kind and steps": lambda r, lp, _window, _langs: _procedure_line(r, lp),
}
PLAIN_FORMS = frozenset({"value", "rule", "summary lines"})


def _lang_of(record: MemoryRecord, langs: Languages | None = None) -> LanguagePack:
    """The pack a record's line is written in: its text's, or its subject's when it has none."""
    return pack_for(record.summary or record.subject or "", _TABLE, langs)


def merge_same_day(
    entries: Iterable[tuple[str, MemoryRecord]], langs: Languages | None = None
) -> list[str]:
    """Related-memory lines with the episodes of one day on one line under one date.

    entries: (rendered line, its record) in rank order. The episode lines of the same date (and
    language) become one line at the place of the best-ranked of them: the date once, then each
    line's turns in rank order, one window from the next set apart by " … " (Chinese: "……").
    Other lines, and an episode line alone on its day, are left as they are.
    Only the repeated dates go, so the turns shown (and their cuts) stay the same.
    """
    langs = langs or all_on()
    out: list[str | tuple[str, str]] = []
    days: dict[tuple[str, str], list[str]] = {}
    for line, record in entries:
        lp = _lang_of(record, langs)
        prefix = _date_prefix(_date(record.created_at), lp)
        if record.type is not MemoryType.EPISODE or not prefix or not line.startswith(prefix):
            out.append(line)
            continue
        day = (prefix, lp.code)
        if day not in days:
            days[day] = []
            out.append(day)
        days[day].append(line[len(prefix) :])
    return [
        x
        if isinstance(x, str)
        else x[0] + str(_label(langs.pack(x[1]), "forms")["gap"]).join(days[x])
        for x in out
    ]


def choose_lang(texts: Iterable[str], langs: Languages | None = None) -> str:
    """The code of the language of the block: a language with render labels whose script at
    least half of the non-empty texts are written in, else the language of unmarked text."""
    return majority([t for t in texts if t and t.strip()], _TABLE, ties=True, langs=langs).code


def _lang_key(lang: str) -> str:
    """The code of a language whose pack has render labels ("zh-CN" -> "zh")."""
    known = sorted(c for c in codes() if pack(c).table(_TABLE))
    if isinstance(lang, str):
        base = lang.lower().replace("_", "-").split("-", 1)[0]
        if base in known:
            return base
    expected = " or ".join(repr(c) for c in known)
    raise ValidationError(f"lang: expected {expected} (optionally with a region), found {lang!r}")


def _section_lines(sections: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    unknown = sorted(set(sections) - set(BLOCK_SECTIONS))
    if unknown:
        raise ValidationError(
            f"sections.{unknown[0]}: unknown section; expected {', '.join(BLOCK_SECTIONS)}"
        )
    out: dict[str, list[str]] = {}
    for name in BLOCK_SECTIONS:
        items = sections.get(name, ())
        if isinstance(items, str) or not isinstance(items, (list, tuple)):
            raise ValidationError(
                f"sections.{name}: expected a list of lines, found {type(items).__name__}"
            )
        out[name] = [line for line in (sanitize(str(x)) for x in items) if line]
    return out


def render_block(
    sections: Mapping[str, Sequence[str]], *, lang: str, langs: Languages | None = None
) -> str:
    """Wrap rendered lines in one clearly marked reference block; "" when there is nothing.

    The block opens with OPEN_MARKER and a header saying it is historical reference data, not
    instructions, then one natural-language heading per non-empty section (profile, recent
    summaries, related memories, how this kind of task was done before, and "to_confirm" only
    when given), one "- " line per memory,
    and ends with CLOSE_MARKER. Every line is sanitized here, whatever the caller did.
    """
    key = _lang_key(lang)
    by_section = _section_lines(sections)
    if not any(by_section.values()):
        return ""
    headings = _block_label(key, "headings", langs)
    out = [OPEN_MARKER, str(_block_label(key, "header", langs)["text"])]
    for name in BLOCK_SECTIONS:
        if by_section[name]:
            out.append(str(headings[name]))
            out.extend(f"- {line}" for line in by_section[name])
    out.append(CLOSE_MARKER)
    return "\n".join(out)


def block_overhead(
    *, lang: str, count: Callable[[str], int] = count_tokens, langs: Languages | None = None
) -> int:
    """Tokens the block costs beyond its memory lines (markers, header, the three headings)."""
    key = _lang_key(lang)
    headings = _block_label(key, "headings", langs)
    fixed = [OPEN_MARKER, str(_block_label(key, "header", langs)["text"]), CLOSE_MARKER]
    fixed += [str(headings[s]) for s in ("profile", "summaries", "retrieved")]
    return sum(count(part) + 1 for part in fixed)


def confirm_lines(
    records: Iterable[MemoryRecord], *, now: float, limit: int = 5
) -> tuple[str, ...]:
    """Lines of low-confidence memories to offer for confirmation (the first limit, no repeats)."""
    seen: set[str] = set()
    lines: list[str] = []
    for record in records:
        if record.id in seen or len(lines) >= limit:
            continue
        seen.add(record.id)
        line = render_record(record, now=now)
        if line:
            lines.append(line)
    return tuple(lines)


def candidates_to_confirm(
    records: Iterable[MemoryRecord], *, now: float, lang: str | None = None, limit: int = 5
) -> str:
    """A short "to confirm" list of low-confidence memories, outside the injected block.

    Seed 001 §6.2: low-confidence memories are not injected by default, only offered with a
    request to confirm when the user asks. "" when there are none; lang defaults to the
    language most of the lines are in.
    """
    lines = confirm_lines(records, now=now, limit=limit)
    if not lines:
        return ""
    key = _lang_key(lang) if lang is not None else choose_lang(lines)
    heading = str(_block_label(key, "headings")["to_confirm"])
    return "\n".join([heading, *(f"- {line}" for line in lines)])


# Positioning: put the rendered block into an OpenAI-style message list.
#
# Three positions (config `injection.position`, docs/design.md seed 002 §5.2):
# - "after_system" (default): its own system message right after the leading system message(s),
#   so the system prompt keeps the front place and memory follows it;
# - "before_user_input": its own system message immediately before the last user message;
# - "system_prefix": a template with "{memory_block}" filled and appended to the first system
#   message.
# The input list and its dicts are never modified; a new list is returned.

POSITIONS: tuple[str, ...] = ("after_system", "before_user_input", "system_prefix")
ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool", "developer")
PLACEHOLDER = "{memory_block}"
#: Roles that make up the leading instructions the block goes after.
_LEADING = frozenset({"system", "developer"})


def validate_messages(messages: Any) -> None:
    """Raise ValidationError naming the index and field unless messages is a list of chat dicts."""
    if not isinstance(messages, list):
        raise ValidationError(
            f"messages: expected a list of message dicts, found {type(messages).__name__}"
        )
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise ValidationError(
                f"messages[{i}]: expected a dict with 'role' and 'content', found "
                f"{type(msg).__name__}"
            )
        role = msg.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise ValidationError(
                f"messages[{i}].role: expected one of {', '.join(ROLES)}, found {role!r}"
            )
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            raise ValidationError(
                f"messages[{i}].content: expected a string or null, found {type(content).__name__}"
            )


def validate_system_prefix(template: Any) -> str:
    """Return template if it is a string containing "{memory_block}", else raise ValidationError."""
    if not isinstance(template, str) or PLACEHOLDER not in template:
        raise ValidationError(
            f"system_prefix: expected a template string containing {PLACEHOLDER}, "
            f"found {template!r}"
        )
    return template


def _leading_end(messages: Sequence[dict]) -> int:
    """Index just after the run of system/developer messages at the start (0 when none)."""
    i = 0
    while i < len(messages) and messages[i].get("role") in _LEADING:
        i += 1
    return i


def _last_user(messages: Sequence[dict]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return None


def _append_to_system(out: list[dict], text: str) -> list[dict]:
    for i, msg in enumerate(out):
        if msg.get("role") == "system":
            existing = msg.get("content") or ""
            joined = f"{existing.rstrip()}\n\n{text}" if existing.strip() else text
            out[i] = {**msg, "content": joined}
            return out
    out.insert(0, {"role": "system", "content": text})
    return out


def inject(
    messages: list[dict],
    block: str,
    *,
    position: str,
    system_prefix: str = PLACEHOLDER,
) -> list[dict]:
    """Return a new message list with block placed at position; the input is left untouched.

    An empty (or blank) block returns an equal copy. With no system message, "after_system"
    inserts at index 0 and "system_prefix" creates a system message at index 0; with no user
    message, "before_user_input" falls back to "after_system".
    """
    validate_messages(messages)
    if position not in POSITIONS:
        raise ValidationError(
            f"position: expected one of {', '.join(POSITIONS)}, found {position!r}"
        )
    if position == "system_prefix":
        validate_system_prefix(system_prefix)
    if not isinstance(block, str):
        raise ValidationError(f"block: expected a string, found {type(block).__name__}")
    out = [dict(m) for m in messages]
    if not block.strip():
        return out
    if position == "system_prefix":
        return _append_to_system(out, system_prefix.replace(PLACEHOLDER, block))
    at = _last_user(out) if position == "before_user_input" else None
    if at is None:
        at = _leading_end(out)
    out.insert(at, {"role": "system", "content": block})
    return out
