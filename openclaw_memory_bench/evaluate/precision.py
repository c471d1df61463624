"""Precision instruments: noise (memories injected into unrelated requests) and knowledge updates
(a changed fact: is the new value stated, is the old one still injected as current?).

Recall benchmarks only ask "was the evidence there?". These two ask what else was there:

- noise: after a conversation is stored, every off-topic request of the conversation's language
  (chit-chat, general knowledge, coding, translation; `data/offtopic.json`) is planned as a
  normal request. `rate` is the share of requests whose block shows any retrieved memory;
  `lines_mean` the retrieved lines per request; the profile section (injected on every turn by
  design) is reported apart as `profile_rate`.
- update: each scenario of `data/updates.json` is a fact, a later change in the user's words and
  a question in a new session. `current_ok`: the block states the new value; `stale_as_current`:
  a line states the old value without the new one (a "changed from ..." note does not count).

A system under test provides `plan_for(text) -> Planned` (the block it would inject now) and the
runner's `reset` / `ingest`; `MemorySystem` does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from openclaw_memory.core.clock import DAY
from openclaw_memory.lang.text import has_cjk
from .datasets import Conversation, EvalSession, EvalTurn

DATA = Path(__file__).resolve().parent / "data"
LANGS = ("en", "zh")
#: a day of epoch seconds the synthetic conversations start on (2026-01-05, a Monday)
_START = 1767571200.0
#: conversations above this many get a rotating slice of the bank, not all of it (LongMemEval's
#: hundred haystacks would otherwise cost ten thousand recalls)
_FULL_BANK_UP_TO = 10
_SLICE = 12
_NOTES = (
    re.compile(r"\s*\(changed from “.*?” on [\d-]+\)"),
    re.compile(r"（[\d-]+ 由“.*?”改为此）"),
)


@dataclass(frozen=True)
class Planned:
    """What a request would get: the block, and how many lines each section holds."""

    block: str
    retrieved: int
    profile: int


class PrecisionSystem(Protocol):
    def reset(self, conversation_id: str) -> None: ...

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int: ...

    def plan_for(self, text: str) -> Planned: ...


# ---------------------------------------------------------------------------- data


@lru_cache(maxsize=4)
def _load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def offtopic_bank(lang: str) -> list[tuple[str, str]]:
    """(category, request) pairs of one language, in file order."""
    bank = _load("offtopic.json")[lang]
    return [(cat, text) for cat, texts in bank.items() for text in texts]


def personas(lang: str) -> list[list[str]]:
    return [list(p) for p in _load("offtopic.json")["personas"][lang]]


def scenarios(path: str | Path | None = None) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8")) if path else _load("updates.json")
    return list(data["scenarios"])


def fillers(lang: str, path: str | Path | None = None) -> list[str]:
    data = json.loads(Path(path).read_text(encoding="utf-8")) if path else _load("updates.json")
    return list(data["fillers"][lang])


def conversation_lang(conv: Conversation) -> str:
    """zh when most turns hold Chinese characters, else en."""
    turns = [t.text for s in conv.sessions for t in s.turns]
    cjk = sum(1 for t in turns if has_cjk(t))
    return "zh" if turns and cjk * 2 >= len(turns) else "en"


# ---------------------------------------------------------------------------- noise


@dataclass
class NoiseTally:
    """Running noise counts, per language."""

    rows: dict[str, list[tuple[int, int]]]

    @classmethod
    def empty(cls) -> "NoiseTally":
        return cls({})

    def add(self, lang: str, planned: Planned) -> None:
        self.rows.setdefault(lang, []).append((planned.retrieved, planned.profile))

    def result(self) -> dict[str, Any]:
        by_lang = {lang: _noise_figures(rows) for lang, rows in sorted(self.rows.items())}
        everything = [r for rows in self.rows.values() for r in rows]
        return {**_noise_figures(everything), "by_lang": by_lang}


def _noise_figures(rows: Sequence[tuple[int, int]]) -> dict[str, Any]:
    n = len(rows)
    return {
        "requests": n,
        "rate": _share(sum(1 for r, _ in rows if r > 0), n),
        "lines_mean": round(sum(r for r, _ in rows) / n, 4) if n else 0.0,
        "profile_rate": _share(sum(1 for _, p in rows if p > 0), n),
    }


def _share(hits: int, n: int) -> float:
    return round(hits / n, 4) if n else 0.0


def bank_for(lang: str, index: int, conversations: int) -> list[str]:
    """The off-topic requests asked after conversation `index` of `conversations`: the whole bank
    for small sets, else a rotating slice (every request is used across the set)."""
    bank = [text for _, text in offtopic_bank(lang)]
    if conversations <= _FULL_BANK_UP_TO:
        return bank
    start = (index * _SLICE) % len(bank)
    return [bank[(start + i) % len(bank)] for i in range(_SLICE)]


def ask_offtopic(
    system: PrecisionSystem, lang: str, requests: Iterable[str], tally: NoiseTally
) -> None:
    for text in requests:
        tally.add(lang, system.plan_for(text))


def persona_conversations(lang: str) -> list[Conversation]:
    """Each persona's statements as one user session (a user telling everyday things)."""
    out = []
    for i, lines in enumerate(personas(lang)):
        cid = f"noise-{lang}-{i + 1}"
        turns = tuple(
            EvalTurn(f"{cid}:D1:{j + 1}", "user", "user", text) for j, text in enumerate(lines)
        )
        out.append(Conversation(cid, (EvalSession(f"{cid}-s1", _START + i * DAY, turns),)))
    return out


# ---------------------------------------------------------------------------- updates


def scenario_conversation(sc: Mapping[str, Any], filler_lines: Sequence[str]) -> Conversation:
    """A scenario as dated sessions: the fact, `gap` unrelated turns, then the change (in a later
    session when `later_session`); the question is asked a day after the last session."""
    cid = f"update-{sc['id']}"
    gap = [
        filler_lines[(k + len(sc["id"])) % len(filler_lines)] for k in range(int(sc.get("gap", 0)))
    ]
    first = [sc["fact"], *gap]
    sessions = [first, [sc["change"]]] if sc.get("later_session") else [[*first, sc["change"]]]
    out = []
    for s, texts in enumerate(sessions):
        turns = tuple(
            EvalTurn(f"{cid}:D{s + 1}:{j + 1}", "user", "user", t) for j, t in enumerate(texts)
        )
        out.append(EvalSession(f"{cid}-s{s + 1}", _START + s * 3 * DAY, turns))
    return Conversation(cid, tuple(out))


def _mentions(line: str, value: str) -> bool:
    value = value.strip().lower()
    if not value:
        return False
    if has_cjk(value) or not re.match(r"^\w", value):
        return value in line
    return re.search(r"(?<![a-z0-9])" + re.escape(value) + r"(?![a-z0-9])", line) is not None


#: a line that says the old value stopped states no current value ("no longer takes the bus",
#: 不再坐公交了); written for the judge, apart from the package's own change grammar
_STOPPED = re.compile(
    r"\bno longer\b|\bany ?more\b|\bstopped\b|\bquit\b|\bgave up\b|\bgiven up\b|"
    r"不再|再也不|已经不|戒|不[\u4e00-\u9fff]{0,8}了"
)


def judge_block(block: str, old: Sequence[str], new: Sequence[str]) -> tuple[bool, bool]:
    """(states the new value, states the old value as current) for one injected block.

    A line that names both values states the change itself ("left Acme, joined Globex"); a
    "changed from ..." note is removed before the line is read; a line that says the old value
    stopped ("The user no longer takes the bus") does not state it as current."""
    current_ok = stale = False
    for raw in block.lower().splitlines():
        line = raw
        for note in _NOTES:
            line = note.sub("", line)
        has_new = any(_mentions(line, v) for v in new)
        has_old = any(_mentions(line, v) for v in old)
        current_ok = current_ok or has_new
        stale = stale or (has_old and not has_new and not _STOPPED.search(line))
    return current_ok, stale


@dataclass
class UpdateTally:
    rows: list[tuple[str, str, bool, bool, str]]

    @classmethod
    def empty(cls) -> "UpdateTally":
        return cls([])

    def add(self, sc: Mapping[str, Any], ok: bool, stale: bool) -> None:
        self.rows.append((sc["lang"], sc.get("split", "dev"), ok, stale, sc["id"]))

    def result(self) -> dict[str, Any]:
        def figures(rows: Sequence[tuple[str, str, bool, bool, str]]) -> dict[str, Any]:
            n = len(rows)
            return {
                "scenarios": n,
                "current_ok": _share(sum(r[2] for r in rows), n),
                "stale_as_current": _share(sum(r[3] for r in rows), n),
            }

        by_lang = {
            lang: figures([r for r in self.rows if r[0] == lang])
            for lang in sorted({r[0] for r in self.rows})
        }
        by_split = {
            sp: {
                lang: figures([r for r in self.rows if r[0] == lang and r[1] == sp])
                for lang in sorted({r[0] for r in self.rows if r[1] == sp})
            }
            for sp in sorted({r[1] for r in self.rows})
        }
        failures = [
            {"id": r[4], "current_ok": r[2], "stale_as_current": r[3]}
            for r in self.rows
            if not r[2] or r[3]
        ]
        return {
            **figures(self.rows),
            "by_lang": by_lang,
            "by_split": by_split,
            "failures": failures,
        }


def run_updates(
    system: PrecisionSystem,
    *,
    langs: Sequence[str] = LANGS,
    path: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Store each scenario in its own scope, then ask its question in a new session."""
    chosen = [sc for sc in scenarios(path) if sc["lang"] in langs]
    tally = UpdateTally.empty()
    for i, sc in enumerate(chosen):
        conv = scenario_conversation(sc, fillers(sc["lang"], path))
        system.reset(conv.id)
        system.ingest(conv, user_only=True)
        ok, stale = judge_block(system.plan_for(sc["question"]).block, sc["old"], sc["new"])
        tally.add(sc, ok, stale)
        if progress is not None:
            progress(i + 1, len(chosen))
    return tally.result()


def run_noise(system: PrecisionSystem, *, langs: Sequence[str] = LANGS) -> dict[str, Any]:
    """The package's own noise set: each persona's statements stored, then the whole off-topic
    bank of its language asked."""
    return ask_personas(system, lambda conv, lang: bank_for(lang, 0, 1), langs)


def ask_personas(
    system: PrecisionSystem,
    requests: Callable[[Conversation, str], Iterable[str]],
    langs: Sequence[str] = LANGS,
) -> dict[str, Any]:
    """Each persona's statements stored in a scope of its own, then `requests(conv, lang)` asked
    there; the tally of what their blocks showed."""
    tally = NoiseTally.empty()
    for lang in langs:
        for conv in persona_conversations(lang):
            system.reset(conv.id)
            system.ingest(conv, user_only=True)
            ask_offtopic(system, lang, requests(conv, lang), tally)
    return tally.result()


def run_precision(
    system: PrecisionSystem,
    *,
    path: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """`openclaw-memory eval precision`: noise and absent topics (evaluate/absent.py) on the
    personas, updates on the scenario set."""
    from .absent import run_absent  # absent.py builds on this module

    return {
        "dataset": "precision",
        "retriever": getattr(system, "name", "hybrid"),
        "noise": run_noise(system),
        "absent": run_absent(system),
        "update": run_updates(system, path=path, progress=progress),
    }
