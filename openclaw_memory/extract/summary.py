"""Structured session summaries (docs/design.md seed 001 §2.2): goals and constraints, decisions with reasons,
open questions, next steps and the evidence ids they came from.

With an LLM, `prompts/summarize_session.txt` asks for a JSON object; without one, or when the
reply is unusable, an extractive summary picks sentences by cue words. Either way the result is
bounded (items per section, tokens per item) and free of secrets, and `render()` turns it into
plain prose with headings in the content's dominant language, never JSON.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llama_index.core.llms import LLM
from pydantic import BaseModel, ConfigDict, Field

from ..core.clock import Clock, iso_date
from ..errors import ExtractionError
from ..lang import Languages, Table, all_on
from ..llm import complete_text
from ..core.tokens import count_tokens, truncate_tokens
from ..types import Message
from ..lang.utterance import is_contentless
from .base import parse_json_object
from .base import load_prompt
from ..lang.utterance import statement_part
from .secrets import SecretFilter

_log = logging.getLogger(__name__)
PROMPT_FILE = "summarize_session.txt"
_TABLE = "summary"


@dataclass(frozen=True)
class Decision:
    """A decision and the reason given for it (empty when none was stated)."""

    decision: str
    reason: str = ""


@dataclass(frozen=True)
class StructuredSummary:
    """A session summary in fixed fields; render() gives the natural-language form."""

    goals_constraints: tuple[str, ...] = ()
    decisions: tuple[Decision, ...] = ()
    open_questions: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    evidence_ids: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when no section has content (evidence alone is not a summary)."""
        return not (
            self.goals_constraints or self.decisions or self.open_questions or self.next_steps
        )

    @property
    def language(self) -> str:
        """ "zh" or "en": the dominant language of the content."""
        return self.language_in()

    def language_in(self, langs: Languages | None = None) -> str:
        """The dominant language of the content, by the summary tables of `langs` (every rule on
        by default)."""
        texts = [*self.goals_constraints, *self.open_questions, *self.next_steps]
        texts += [f"{d.decision} {d.reason}" for d in self.decisions]
        return dominant_language(texts, langs)

    def render(self, *, with_evidence: bool = True, langs: Languages | None = None) -> str:
        """Headed bullet lists in plain language; empty sections are left out. A stored summary
        renders without the evidence line: its evidence is the record's provenance. `langs`:
        the packs whose summary tables label it (every rule on by default)."""
        langs = langs or all_on()
        table = langs.pack(self.language_in(langs)).table(_TABLE)
        label = table.entry("labels").settings
        blocks: list[str] = []
        for title, items in (
            (label["goals"], self.goals_constraints),
            (label["decisions"], tuple(_render_decision(d, table) for d in self.decisions)),
            (label["questions"], self.open_questions),
            (label["steps"], self.next_steps),
        ):
            if items:
                blocks.append(
                    f"{title}{label['colon']}\n" + "\n".join(f"- {item}" for item in items)
                )
        if with_evidence and self.evidence_ids and blocks:
            ids = label["separator"].join(self.evidence_ids)
            blocks.append(f"{label['evidence']}{label['evidence_colon']}{ids}")
        return "\n".join(blocks)


def _render_decision(d: Decision, table: Table) -> str:
    if not d.reason:
        return d.decision
    template = str(table.entry("decision_reason").setting("template", "{decision}"))
    return template.format(decision=d.decision, reason=d.reason)


def dominant_language(texts: Iterable[str], langs: Languages | None = None) -> str:
    """The code of the language that weighs most in the texts: each pack's `units` (Han
    characters, Latin words) counted and weighed (a Latin word weighs one and a half Han
    characters); the first pack in script order wins a tie, and the pack of unmarked script
    stands when none is counted."""
    langs = langs or all_on()
    joined = " ".join(texts)
    packs = langs.all()
    weights = {}
    for p in packs:
        units = p.table(_TABLE).entry("units")
        weights[p.code] = len(units.pattern.findall(joined)), float(units.setting("weight", 1.0))
    for p in packs:
        count, weight = weights[p.code]
        if count and all(count * weight >= c * w for c, w in weights.values()):
            return p.code
    return langs.of("").code


# --- extractive summary -----------------------------------------------------------------------


def _cue(name: str, langs: Languages | None = None) -> re.Pattern[str]:
    """The cue words of a section in any language (the summary table of every pack). A question
    the user's work still has to settle ("Should we add sync later?", 要不要支持多币种？) is an
    open question; any other question is a request to the assistant, never one of the session."""
    return (langs or all_on()).any_of(_TABLE, name)


def _split_sentences(text: str, langs: Languages | None = None) -> list[str]:
    parts = _cue("sentence_end", langs).split(text)
    return [p.strip() for p in parts if p and p.strip()]


def _split_reason(sentence: str, langs: Languages | None = None) -> Decision:
    """ "选 A，因为 B" and "因为 B，所以选 A" both become Decision(A, B)."""
    m = _cue("reason", langs).search(sentence)
    if not m:
        return Decision(sentence)
    before = sentence[: m.start()].strip(" ，,。.")
    after = sentence[m.end() :].strip(" ，,:：。.")
    if before and after:
        return Decision(before, after)
    then = _cue("therefore", langs).search(after)
    if then and then.start() > 0:
        return Decision(
            after[then.end() :].strip(" ，,。."), after[: then.start()].strip(" ，,。.")
        )
    return Decision(sentence.strip(" 。."))


class _Collector:
    """Sorts sentences into the four sections, in conversation order."""

    def __init__(self, langs: Languages) -> None:
        self.langs = langs
        self.goals: list[str] = []
        self.decisions: list[Decision] = []
        self.questions: list[str] = []
        self.steps: list[str] = []
        self._last_was_decision = False

    def add(self, sentence: str) -> None:
        """File one sentence under the first section whose cues it matches."""
        was_decision, self._last_was_decision = self._last_was_decision, False
        langs = self.langs
        if _cue("question", langs).search(sentence) or _cue("open", langs).search(sentence):
            self.questions.append(sentence)
            return
        # what a session did, never what the user asked for (lang/utterance.py)
        sentence = statement_part(sentence, langs)
        if not sentence:
            return
        reason = _cue("reason", langs)
        if _cue("decision", langs).search(sentence):
            self.decisions.append(_split_reason(sentence, langs))
            self._last_was_decision = True
        elif reason.match(sentence) and was_decision and not self.decisions[-1].reason:
            last = self.decisions.pop()
            why = reason.sub("", sentence, count=1).strip(" ，,。.")
            self.decisions.append(Decision(last.decision.rstrip(" 。."), why))
        elif _cue("next", langs).search(sentence):
            self.steps.append(sentence)
        elif _cue("constraint", langs).search(sentence):
            self.goals.append(sentence)
        elif reason.search(sentence):
            self.decisions.append(_split_reason(sentence, langs))


def _dedupe(items: Iterable[Any], key: Any = str) -> list[Any]:
    seen: set[str] = set()
    out = []
    for item in items:
        k = "".join(ch for ch in key(item).lower() if ch.isalnum())
        if k and k not in seen:
            seen.add(k)
            out.append(item)
    return out


class _SummaryReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    goals_constraints: list[str] = Field(default_factory=list)
    decisions: list[Any] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    next_steps: list[str] = Field(default_factory=list)


class Summarizer:
    """Builds StructuredSummary values, with an LLM when given one and by extraction otherwise."""

    def __init__(
        self,
        llm: LLM | None,
        prompts_dir: str | Path,
        clock: Clock,
        *,
        max_items: int = 5,
        max_item_tokens: int = 60,
        max_input_tokens: int = 3000,
        timeout_seconds: float | None = 60,
        secrets: SecretFilter | None = None,
        langs: Languages | None = None,
    ) -> None:
        #: the language packs under the config's switches (every rule on by default)
        self.langs = langs or all_on()
        self._llm = llm
        self._prompt = load_prompt(prompts_dir, PROMPT_FILE) if llm is not None else None
        self._clock = clock
        self._max_items = max_items
        self._max_item_tokens = max_item_tokens
        self._max_input_tokens = max_input_tokens
        self._timeout = timeout_seconds
        self._secrets = secrets or SecretFilter()

    def summarize(
        self, messages: Sequence[Message], evidence_ids: Sequence[str]
    ) -> StructuredSummary:
        """The summary of messages; evidence_ids are kept (deduplicated, in order) as given."""
        evidence = tuple(dict.fromkeys(e for e in evidence_ids if e))[:50]
        if self._llm is not None and self._prompt is not None:
            try:
                return self._from_llm(messages, evidence)
            except Exception as exc:  # noqa: BLE001 - bad output or provider failure: fall back
                message = " ".join(str(exc).split())[:200]
                _log.warning(
                    "LLM summary failed (%s: %s); using the extractive summary",
                    type(exc).__name__,
                    message,
                )
        return self.extractive(messages, evidence)

    def extractive(
        self, messages: Sequence[Message], evidence_ids: Sequence[str]
    ) -> StructuredSummary:
        """Rule-based summary: sentences picked by decision, question, next-step and constraint cues."""
        collector = _Collector(self.langs)
        for msg in messages:
            if msg.role not in ("user", "assistant"):
                continue
            text = self._secrets.strip(msg.content)
            for sentence in _split_sentences(text, self.langs):
                if not is_contentless(sentence, self.langs):
                    collector.add(sentence)
        return self._bounded(
            collector.goals, collector.decisions, collector.questions, collector.steps, evidence_ids
        )

    def _from_llm(
        self, messages: Sequence[Message], evidence: tuple[str, ...]
    ) -> StructuredSummary:
        assert self._llm is not None and self._prompt is not None
        prompt = self._prompt.fill(
            today=iso_date(self._clock.now()), conversation=self._conversation(messages)
        )
        data = parse_json_object(complete_text(self._llm, prompt, self._timeout))
        if not set(data) & set(_SummaryReply.model_fields):
            raise ExtractionError(
                f"LLM summary: expected keys {sorted(_SummaryReply.model_fields)}, found {sorted(data)[:6]}"
            )
        reply = _SummaryReply.model_validate(data)
        decisions = [d for d in map(_decision_from, reply.decisions) if d]
        clean = self._secrets.strip
        return self._bounded(
            [clean(x) for x in reply.goals_constraints],
            [Decision(clean(d.decision), clean(d.reason)) for d in decisions],
            [clean(x) for x in reply.open_questions],
            [clean(x) for x in reply.next_steps],
            evidence,
        )

    def _conversation(self, messages: Sequence[Message]) -> str:
        lines = []
        for msg in messages:
            text = self._secrets.strip(msg.content)
            if text and not is_contentless(text, self.langs):
                lines.append(f"{msg.role}: {truncate_tokens(text, 200)}")
        joined = "\n".join(lines)
        while len(lines) > 1 and _too_long(joined, self._max_input_tokens):
            lines.pop(0)  # the oldest lines go first; a summary favours where the session ended
            joined = "\n".join(lines)
        return joined

    def _bounded(
        self,
        goals: Sequence[str],
        decisions: Sequence[Decision],
        questions: Sequence[str],
        steps: Sequence[str],
        evidence: Sequence[str],
    ) -> StructuredSummary:
        n, cut = self._max_items, self._cut
        kept_decisions = _dedupe(decisions, key=lambda d: d.decision)[-n:]
        return StructuredSummary(
            goals_constraints=tuple(cut(x) for x in _dedupe(goals)[:n] if x),
            decisions=tuple(
                Decision(cut(d.decision), cut(d.reason)) for d in kept_decisions if d.decision
            ),
            open_questions=tuple(cut(x) for x in _dedupe(questions)[-n:] if x),
            next_steps=tuple(cut(x) for x in _dedupe(steps)[-n:] if x),
            evidence_ids=tuple(evidence),
        )

    def _cut(self, text: str) -> str:
        return truncate_tokens(" ".join(text.split()), self._max_item_tokens) if text else ""


def _too_long(text: str, limit: int) -> bool:
    return count_tokens(text) > limit


def _decision_from(value: Any) -> Decision | None:
    if isinstance(value, str):
        return Decision(value.strip()) if value.strip() else None
    if isinstance(value, dict):
        what = value.get("decision") or value.get("what") or ""
        why = value.get("reason") or value.get("why") or ""
        if isinstance(what, str) and what.strip():
            return Decision(what.strip(), why.strip() if isinstance(why, str) else "")
    return None
