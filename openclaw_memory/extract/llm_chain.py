"""The LLM chain: structured fact extraction through a LlamaIndex LLM, with the rules as backstop.

One turn becomes one prompt: `prompts/extract_facts.txt` as a LlamaIndex `PromptTemplate`, filled
with today's date from the clock and the secret-free turn. A LlamaIndex structured-output program
(`LLMTextCompletionProgram`) runs it and parses the reply into the pydantic class `ExtractedFacts`
(an object {"facts": [...]}; a bare array, a code fence or chatter around the JSON are tolerated,
and elements without the required shape are dropped one by one). Explicit commands
(记住/remember, 忘掉/forget, 以后/from now on) always come from the rule chain's explicit channel
and win over whatever the LLM says about the same subject. Malformed output, provider errors and
timeouts log one line and return the rule chain's result.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llama_index.core.llms import LLM
from llama_index.core.output_parsers import PydanticOutputParser
from llama_index.core.program import LLMTextCompletionProgram
from llama_index.core.prompts import PromptTemplate
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..core.clock import Clock, iso_date
from ..errors import ExtractionError
from ..llm import call_with_timeout
from ..core.tokens import truncate_tokens
from ..types import Candidate, Channel, MemoryType, Turn
from .base import DEFAULT_CONFIDENCE, Extractor
from ..lang import Languages, all_on
from ..lang.utterance import is_contentless
from .base import importance_for
from .base import parse_json_value
from .slot import normalize_subject
from ..procedure import stated_procedure
from .base import PromptFile
from .base import load_prompt
from .secrets import SecretFilter

_log = logging.getLogger(__name__)

PROMPT_FILE = "extract_facts.txt"
_TYPES = {
    "profile": MemoryType.PROFILE,
    "preference": MemoryType.PREFERENCE,
    "fact": MemoryType.FACT,
    "event": MemoryType.EVENT,
    "decision": MemoryType.DECISION,
    "task": MemoryType.TASK,
    "user_preference": MemoryType.PREFERENCE,
    "todo": MemoryType.TASK,
    "insight": MemoryType.FACT,
    "identity": MemoryType.PROFILE,
    "plan": MemoryType.TASK,
    "procedure": MemoryType.PROCEDURE,
    "how_to": MemoryType.PROCEDURE,
}


class FactItem(BaseModel):
    """One element of the LLM's JSON array; unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    type: str
    fact: str = Field(min_length=1, max_length=1000)
    subject: str | None = None
    certainty: float = Field(default=DEFAULT_CONFIDENCE, ge=0.0, le=1.0)
    replaces: str | None = None
    tags: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)

    @field_validator("certainty", mode="before")
    @classmethod
    def _percent(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 1 < value <= 100:
            return value / 100  # "certainty": 90 means 0.9
        return value

    @field_validator("tags", "entities", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, list):
            return [str(v) for v in value if v is not None]
        return value

    @property
    def memory_type(self) -> MemoryType | None:
        """The MemoryType this item names, or None for a type extraction does not produce."""
        return _TYPES.get(self.type.strip().lower())


def _valid(element: Any) -> bool:
    try:
        FactItem.model_validate(element)
    except ValidationError:
        return False
    return True


class ExtractedFacts(BaseModel):
    """The structured answer of the extraction prompt: the facts worth remembering (maybe none).

    Lenient where models differ: a bare array stands for {"facts": [...]}, an object holding
    exactly one array under another name is read as that array, and elements without the shape
    of a FactItem are dropped. An answer whose elements all lack it is invalid.
    """

    model_config = ConfigDict(extra="ignore")

    facts: list[FactItem]

    @model_validator(mode="before")
    @classmethod
    def _lenient(cls, value: Any) -> Any:
        if isinstance(value, list):
            value = {"facts": value}
        if isinstance(value, dict) and "facts" not in value:
            lists = [v for v in value.values() if isinstance(v, list)]
            value = {"facts": lists[0]} if len(lists) == 1 else value
        raw = value.get("facts") if isinstance(value, dict) else None
        if isinstance(raw, list):
            kept = [element for element in raw if _valid(element)]
            if raw and not kept:
                raise ValueError(
                    f"expected objects with 'type' and 'fact', found none in {len(raw)} elements"
                )
            value = {**value, "facts": kept}
        return value


class FactsOutputParser(PydanticOutputParser[ExtractedFacts]):
    """LlamaIndex output parser for ExtractedFacts that finds the JSON inside fences or chatter.

    `format` leaves the prompt as written: the prompt file states the answer's shape itself.
    """

    def __init__(self) -> None:
        super().__init__(output_cls=ExtractedFacts)

    def parse(self, text: str) -> ExtractedFacts:
        """The validated answer; ExtractionError when the reply holds no usable JSON."""
        try:
            return ExtractedFacts.model_validate(parse_json_value(text))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ExtractionError(f"LLM reply: {first['msg']}") from exc

    def format(self, query: str) -> str:
        """The prompt unchanged (no JSON schema appended)."""
        return query


def parse_items(reply: str) -> list[FactItem]:
    """Validated items of a reply. Raises ExtractionError when the reply holds no JSON array or
    {"facts": [...]} object, or when none of its elements has the required shape (an empty list
    is a valid "nothing")."""
    return FactsOutputParser().parse(reply).facts


def prompt_template(prompt: PromptFile) -> PromptTemplate:
    """A prompt file as a LlamaIndex PromptTemplate: its {variables} stay variables, every other
    brace (a JSON example) is escaped so LlamaIndex's formatting leaves it as written."""
    escaped = prompt.template.replace("{", "{{").replace("}", "}}")
    for name in prompt.variables:
        escaped = escaped.replace("{{" + name + "}}", "{" + name + "}")
    return PromptTemplate(escaped)


class LLMExtractor:
    """Extraction through an LLM (`Extractor` protocol), falling back to `fallback` on failure.

    `prompts_dir` holds `extract_facts.txt` (see `prompts.DEFAULT_PROMPTS_DIR`); the clock
    supplies {today} when the turn carries no time of its own.
    """

    def __init__(
        self,
        llm: LLM,
        fallback: Extractor,
        prompts_dir: str | Path,
        clock: Clock,
        *,
        timeout_seconds: float | None = 20,
        secrets: SecretFilter | None = None,
        max_assistant_tokens: int = 300,
        langs: Languages | None = None,
    ) -> None:
        self._llm = llm
        self._fallback = fallback
        self._prompt = load_prompt(prompts_dir, PROMPT_FILE)
        self._program: LLMTextCompletionProgram[ExtractedFacts] = (
            LLMTextCompletionProgram.from_defaults(
                output_parser=FactsOutputParser(), prompt=prompt_template(self._prompt), llm=llm
            )
        )
        self._clock = clock
        self._timeout = timeout_seconds
        self._secrets = secrets or SecretFilter()
        self._max_assistant_tokens = max_assistant_tokens
        #: the language packs, some rules maybe switched off (every rule on by default)
        self._langs = langs or all_on()

    @property
    def fallback(self) -> Extractor:
        """The offline chain used on failure (and for warming up without an LLM call)."""
        return self._fallback

    def extract(self, turn: Turn) -> list[Candidate]:
        """LLM candidates merged under the rule chain's explicit ones; rules alone on failure."""
        rules = self._fallback.extract(turn)
        user = self._secrets.strip(turn.user)
        if not user or is_contentless(user, self._langs):
            return rules
        try:
            variables = self._variables(turn, user)
            answer = call_with_timeout(lambda: self._program(None, **variables), self._timeout)
            items = answer.facts
        except Exception as exc:  # noqa: BLE001 - any provider failure degrades to rules (docs/design.md invariant 8)
            message = " ".join(str(exc).split())[:200]
            _log.warning(
                "LLM extraction failed for turn %s (%s: %s); using the rule chain",
                turn.turn_id,
                type(exc).__name__,
                message,
            )
            return rules
        turn_ids = (turn.turn_id,) if turn.turn_id else ()
        extracted = [c for c in (self._candidate(i, turn_ids) for i in items) if c]
        explicit = [c for c in rules if c.channel is Channel.EXPLICIT or c.forget]
        return merge_explicit(explicit, extracted)

    def _variables(self, turn: Turn, user: str) -> dict[str, str]:
        """The prompt's variables for one turn (checked against the file's own placeholders)."""
        lines = [f"User: {user}"]
        assistant = self._secrets.strip(turn.assistant)
        if assistant:
            lines.append(f"Assistant: {truncate_tokens(assistant, self._max_assistant_tokens)}")
        today = iso_date(turn.at if turn.at is not None else self._clock.now())
        values = {"today": today, "conversation": "\n".join(lines)}
        self._prompt.fill(**values)  # raises when the file's variables are not exactly these
        return values

    def _candidate(self, item: FactItem, turn_ids: tuple[str, ...]) -> Candidate | None:
        kind = item.memory_type
        if kind is None:
            _log.debug("dropping LLM item of unknown type %r", item.type)
            return None
        if self._secrets.contains_secret(item.fact):
            return None  # never store a secret, even one the model repeated
        tags = tuple(dict.fromkeys(t.strip().lower() for t in item.tags if t.strip()))[:8]
        replaces = (item.replaces or "").strip() or None
        entities = tuple(
            e.strip() for e in item.entities if e.strip() and not self._secrets.contains_secret(e)
        )
        subject = normalize_subject(item.subject or "") or None
        if kind is MemoryType.PROCEDURE:  # keyed by its kind of task, or kept as a fact
            kind, subject, tags = stated_procedure(subject, item.fact, tags, self._langs)
        return Candidate(
            type=kind,
            summary=item.fact.strip(),
            subject=subject,
            tags=tags,
            entities=entities[:8],
            confidence=item.certainty,
            channel=Channel.IMPLICIT,
            importance=importance_for(kind, Channel.IMPLICIT, tags, item.certainty),
            turn_ids=turn_ids,
            replaces=replaces,
        )


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def merge_explicit(
    explicit: Sequence[Candidate], extracted: Sequence[Candidate]
) -> list[Candidate]:
    """Explicit candidates first; extracted ones that restate an explicit subject or summary are
    dropped, so the explicit channel is never swallowed or contradicted within one turn."""
    subjects = {c.subject for c in explicit if c.subject}
    summaries = {_norm(c.summary) for c in explicit} | {_norm(c.detail or "") for c in explicit}
    summaries.discard("")
    out = list(explicit)
    for c in extracted:
        if (c.subject and c.subject in subjects) or _norm(c.summary) in summaries:
            continue
        out.append(c)
    return out
