"""Loaders for the retrieval benchmarks: LoCoMo and LongMemEval, as frozen dataclasses.

Both loaders read a file from a path and return the same shapes, so one runner can score either.
Every question names the turns that hold its answer (its evidence), which is all a retrieval
score needs: no LLM, no answer text.

LoCoMo's generated summaries (`observation`, `session_summary`, `event_summary`) are never read:
they would leak the answer structure to a system under test.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from openclaw_memory.errors import ValidationError

#: LoCoMo category numbers kept for scoring; 5 (adversarial, unanswerable) is dropped.
LOCOMO_CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
}
_LOCOMO_ADVERSARIAL = 5

_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTHS = {name: i + 1 for i, name in enumerate(_MONTH_NAMES)}
_LOCOMO_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
_LME_DATE = re.compile(
    r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]+\))?\s*(\d{1,2}):(\d{2})\s*$"
)
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_DIA_ID = re.compile(r"^D:?(\d+):(\d+)$", re.IGNORECASE)
_SESSION_KEY = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class EvalTurn:
    """One dialogue turn. `role` is "user" or "assistant"; `speaker` is the name shown."""

    id: str
    speaker: str
    role: str
    text: str


@dataclass(frozen=True)
class EvalSession:
    """One dated session of a conversation; `date` is UTC epoch seconds."""

    id: str
    date: float
    turns: tuple[EvalTurn, ...]


@dataclass(frozen=True)
class Conversation:
    """A conversation history (a haystack) made of sessions in time order."""

    id: str
    sessions: tuple[EvalSession, ...]

    def turn_ids(self) -> frozenset[str]:
        """Every turn id of the conversation."""
        return frozenset(t.id for s in self.sessions for t in s.turns)

    def session_of(self) -> dict[str, str]:
        """Map from turn id to the id of the session that holds it."""
        return {t.id: s.id for s in self.sessions for t in s.turns}


@dataclass(frozen=True)
class Question:
    """A scorable question: `evidence` are gold turn ids, `evidence_sessions` gold session ids.

    `date` is when the question is asked (UTC epoch seconds), or None when the dataset does
    not say (LoCoMo).
    """

    id: str
    conversation_id: str
    text: str
    category: str
    evidence: tuple[str, ...]
    evidence_sessions: tuple[str, ...]
    date: float | None


def user_turns_only(conversation: Conversation) -> Conversation:
    """The conversation with assistant turns removed (LongMemEval indexes USER turns only).

    Turn ids are kept as they were, so evidence still resolves; sessions left empty stay, with
    no turns, so session ids and dates do not shift.
    """
    sessions = tuple(
        replace(s, turns=tuple(t for t in s.turns if t.role == "user"))
        for s in conversation.sessions
    )
    return replace(conversation, sessions=sessions)


# ---------------------------------------------------------------------------- dates


def _epoch(year: int, month: int, day: int, hour: int, minute: int, where: str) -> float:
    try:
        return datetime(year, month, day, hour, minute, tzinfo=timezone.utc).timestamp()
    except ValueError as exc:
        raise ValidationError(f"{where}: not a real date or time ({exc})") from exc


def parse_locomo_date(text: str | None, *, where: str = "date_time") -> float:
    """Parse LoCoMo's "1:56 pm on 8 May, 2023" as UTC epoch seconds."""
    m = _LOCOMO_DATE.match(text) if isinstance(text, str) else None
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if m is None or month is None or not 1 <= int(m.group(1)) <= 12:
        raise ValidationError(
            f"{where}: expected a date like '1:56 pm on 8 May, 2023', found {text!r}"
        )
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
    return _epoch(int(m.group(6)), month, int(m.group(4)), hour, int(m.group(2)), where)


def format_locomo_date(t: float) -> str:
    """Render UTC epoch seconds the way LoCoMo writes dates: "1:56 pm on 8 May, 2023"."""
    d = datetime.fromtimestamp(t, tz=timezone.utc)
    hour = d.hour % 12 or 12
    ampm = "pm" if d.hour >= 12 else "am"
    return f"{hour}:{d.minute:02d} {ampm} on {d.day} {d.strftime('%B')}, {d.year}"


def parse_longmemeval_date(text: str | None, *, where: str = "date") -> float:
    """Parse LongMemEval's "2023/05/20 (Sat) 02:21" as UTC epoch seconds."""
    m = _LME_DATE.match(text) if isinstance(text, str) else None
    if m is None:
        raise ValidationError(
            f"{where}: expected a date like '2023/05/20 (Sat) 02:21', found {text!r}"
        )
    y, mo, d, h, mi = (int(g) for g in m.groups())
    return _epoch(y, mo, d, h, mi, where)


# ---------------------------------------------------------------------------- LoCoMo


def normalize_dia_id(raw: str) -> str | None:
    """One LoCoMo dialogue id in canonical form ("D:11:26" -> "D11:26", "D30:05" -> "D30:5")."""
    m = _DIA_ID.match(raw.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def normalize_evidence(raw: Iterable[str]) -> list[str]:
    """Split evidence strings on ';', ',' and spaces, canonicalise each id, drop junk, dedupe."""
    out: list[str] = []
    for item in raw:
        for part in _EVIDENCE_SPLIT.split(str(item)):
            norm = normalize_dia_id(part) if part else None
            if norm and norm not in out:
                out.append(norm)
    return out


def _turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = str(turn.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def _locomo_session(conv: dict[str, Any], number: int, where: str) -> EvalSession:
    key = f"session_{number}"
    date_raw = conv.get(f"{key}_date_time")
    date = parse_locomo_date(date_raw, where=f"{where}.{key}_date_time")
    turns = []
    for i, turn in enumerate(conv[key]):
        tid = normalize_dia_id(str(turn.get("dia_id", "")))
        if tid is None:
            raise ValidationError(
                f"{where}.{key}[{i}].dia_id: expected 'D<session>:<turn>', "
                f"found {turn.get('dia_id')!r}"
            )
        speaker = str(turn.get("speaker", ""))
        # Both LoCoMo speakers are people; neither is an assistant, so both count as users.
        turns.append(EvalTurn(id=tid, speaker=speaker, role="user", text=_turn_text(turn)))
    return EvalSession(id=key, date=date, turns=tuple(turns))


def _locomo_conversation(sample: dict[str, Any], where: str) -> Conversation:
    conv = sample.get("conversation")
    if not isinstance(conv, dict):
        raise ValidationError(
            f"{where}.conversation: expected an object of sessions, found {conv!r}"
        )
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
    sessions = tuple(_locomo_session(conv, n, f"{where}.conversation") for n in numbers)
    return Conversation(id=str(sample.get("sample_id", where)), sessions=sessions)


def _locomo_questions(sample: dict[str, Any], conv: Conversation) -> list[Question]:
    known = conv.session_of()
    out: list[Question] = []
    for i, qa in enumerate(sample.get("qa", [])):
        category = qa.get("category")
        if category == _LOCOMO_ADVERSARIAL:
            continue
        if category not in LOCOMO_CATEGORIES:
            raise ValidationError(f"{conv.id}.qa[{i}].category: expected 1-5, found {category!r}")
        evidence = [e for e in normalize_evidence(qa.get("evidence") or []) if e in known]
        if not evidence:
            continue
        sessions = tuple(dict.fromkeys(known[e] for e in evidence))
        out.append(
            Question(
                id=f"{conv.id}/q{i}",
                conversation_id=conv.id,
                text=str(qa.get("question", "")),
                category=LOCOMO_CATEGORIES[category],
                evidence=tuple(evidence),
                evidence_sessions=sessions,
                date=None,
            )
        )
    return out


def load_locomo(path: str | Path) -> tuple[list[Conversation], list[Question]]:
    """Load a LoCoMo file: its conversations and its scorable questions (categories 1-4).

    Evidence ids are normalised (see `normalize_evidence`); ids that name no real turn are
    dropped, and a question left with no evidence is dropped too.
    """
    data = _read_json(path)
    if not isinstance(data, list):
        raise ValidationError(
            f"{path}: expected a JSON list of LoCoMo samples, found {type(data).__name__}"
        )
    conversations: list[Conversation] = []
    questions: list[Question] = []
    for n, sample in enumerate(data):
        conv = _locomo_conversation(sample, f"{path}[{n}]")
        conversations.append(conv)
        questions.extend(_locomo_questions(sample, conv))
    return conversations, questions


# ---------------------------------------------------------------------------- LongMemEval


def _lme_session(sid: str, date: float, raw: list[dict[str, Any]], where: str) -> EvalSession:
    turns = []
    for i, turn in enumerate(raw):
        role = turn.get("role")
        if role not in ("user", "assistant"):
            raise ValidationError(
                f"{where}[{i}].role: expected 'user' or 'assistant', found {role!r}"
            )
        # 1-based, counting every turn, as the official retrieval code numbers them.
        turns.append(
            EvalTurn(
                id=f"{sid}#{i + 1}", speaker=role, role=role, text=str(turn.get("content", ""))
            )
        )
    return EvalSession(id=sid, date=date, turns=tuple(turns))


def _lme_gold(entry: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Gold turns and sessions: user turns with has_answer in sessions whose id holds 'answer'."""
    turns: list[str] = []
    sessions: list[str] = []
    for sid, raw in zip(entry["haystack_session_ids"], entry["haystack_sessions"]):
        if "answer" not in sid:
            continue
        hits = [
            f"{sid}#{i + 1}"
            for i, t in enumerate(raw)
            if t.get("role") == "user" and t.get("has_answer")
        ]
        turns.extend(hits)
        if hits:
            sessions.append(sid)
    return turns, sessions


def _lme_item(entry: dict[str, Any], where: str) -> tuple[Conversation, Question] | None:
    qid = str(entry.get("question_id", ""))
    if not qid or qid.endswith("_abs"):
        return None
    gold_turns, gold_sessions = _lme_gold(entry)
    if not gold_turns:
        return None
    ids, dates, raws = (
        entry["haystack_session_ids"],
        entry["haystack_dates"],
        entry["haystack_sessions"],
    )
    if not len(ids) == len(dates) == len(raws):
        raise ValidationError(
            f"{where}: expected haystack_session_ids, haystack_dates and haystack_sessions "
            f"of equal length, found {len(ids)}, {len(dates)} and {len(raws)}"
        )
    sessions = tuple(
        _lme_session(
            sid,
            parse_longmemeval_date(d, where=f"{where}.haystack_dates[{i}]"),
            raw,
            f"{where}.haystack_sessions[{i}]",
        )
        for i, (sid, d, raw) in enumerate(zip(ids, dates, raws))
    )
    date = entry.get("question_date")
    question = Question(
        id=qid,
        conversation_id=qid,
        text=str(entry.get("question", "")),
        category=str(entry.get("question_type", "unknown")),
        evidence=tuple(gold_turns),
        evidence_sessions=tuple(gold_sessions),
        date=parse_longmemeval_date(date, where=f"{where}.question_date") if date else None,
    )
    return Conversation(id=qid, sessions=sessions), question


def load_longmemeval(path: str | Path) -> list[tuple[Conversation, Question]]:
    """Load a LongMemEval file (.json or .json.gz): one (haystack, question) pair per question.

    Abstention questions (`_abs`) and questions with no user-side evidence are skipped, as the
    official retrieval protocol does. Turn ids are "<session_id>#<n>", n counting every turn of
    the session from 1; gold turns are user turns marked has_answer, gold sessions the sessions
    whose id contains "answer" and that hold such a turn. Systems should index user turns only
    (see `user_turns_only`); the runner asks for that with `user_only=True`.
    """
    data = _read_json(path)
    if not isinstance(data, list):
        raise ValidationError(
            f"{path}: expected a JSON list of LongMemEval entries, found {type(data).__name__}"
        )
    out: list[tuple[Conversation, Question]] = []
    for n, entry in enumerate(data):
        where = f"{path}[{n}]"
        try:
            item = _lme_item(entry, where)
        except KeyError as exc:
            raise ValidationError(f"{where}: missing field {exc.args[0]!r}") from exc
        if item is not None:
            out.append(item)
    return out


def _read_json(path: str | Path) -> Any:
    p = Path(path)
    if not p.is_file():
        raise ValidationError(
            f"path: expected an existing .json or .json.gz file, found {str(p)!r}"
        )
    opener = gzip.open if p.name.endswith(".gz") else open
    try:
        with opener(p, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValidationError(f"{p}: expected JSON, could not read it ({exc})") from exc
