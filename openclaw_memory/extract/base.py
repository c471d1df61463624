"""The extraction interface and what every extractor shares.

A turn in, candidate memories out; how much a candidate matters (one number in [0, 1]); prompt
files with named variables; JSON read out of LLM replies; and the filter that runs first: hard
rules for contentless turns, and the grammar of a turn that is only a request for help.
"""

from __future__ import annotations

import dataclasses
import re
import json
import unicodedata
from typing import Protocol, Sequence, runtime_checkable, Any
from ..types import Candidate, Turn, Channel, MemoryType
from collections.abc import Iterable
from ..core.policy import POLICY
from ..errors import ExtractionError, ConfigError, ValidationError
from dataclasses import dataclass
from pathlib import Path
from ..config import default_prompts_dir
from ..lang import Entry, Languages, all_on
from ..config.tuning import tuned

# The extraction interface: a turn in, candidate memories out.


@runtime_checkable
class Extractor(Protocol):
    """Turns one captured turn into candidate memories (consolidation decides what to store).

    Implementations read only the user side for curated memories, never return secrets, and
    return [] for contentless turns. Candidate confidence and importance are in [0, 1].
    """

    def extract(self, turn: Turn) -> list[Candidate]:
        """Candidate memories proposed by this turn, possibly none."""
        ...


ANONYMOUS_SPEAKERS = frozenset({"user", "assistant", ""})


def _the_user() -> tuple[Entry, ...]:
    """How a memory names its user in each language ("The user", 用户), the pack of unmarked
    script first."""
    return tuple(p.table(_FILLER).entry("the_user") for p in reversed(all_on().all()))


def _name_in(entry: Entry, name: str, text: str) -> str:
    """text with the user named `name`, a possessive ending kept ("the user's" -> "Ann's")."""
    ending = str(entry.setting("possessive") or "")

    def named(m: re.Match[str]) -> str:
        return name + (ending if ending and m.group().endswith(ending) else "")

    return entry.pattern.sub(named, text)


def attribute(candidates: Sequence[Candidate], speaker: str | None) -> list[Candidate]:
    """Candidates of a turn by a named speaker (a group chat, a replayed dialogue) speak of that
    person, not of "the user": "Melanie likes pottery", keyed "Melanie/pref/pottery", so two
    people's likes never replace each other."""
    name = (speaker or "").strip()
    if name.lower() in ANONYMOUS_SPEAKERS:
        return list(candidates)

    def named(text: str | None) -> str | None:
        if not text:
            return text
        for entry in _the_user():
            text = _name_in(entry, name, text)
        return text

    return [
        dataclasses.replace(
            c,
            summary=named(c.summary) or c.summary,
            detail=named(c.detail),
            subject=f"{name}/{c.subject}" if c.subject else c.subject,
            entities=tuple(dict.fromkeys((*c.entities, name))),
        )
        for c in candidates
    ]


# How much a candidate memory matters, as one number in [0, 1] (higher keeps it longer).
#
# Scale:
#     0.0-0.2  noise; never promoted to a curated memory
#     0.2-0.4  ephemeral: events and episodes that will age out
#     0.4-0.6  ordinary facts and implicit preferences
#     0.6-0.8  worth injecting often: profile, decisions, standing rules
#     0.8-1.0  must not be lost: explicit commands, prohibitions, health and safety facts
#
# The value is a base per memory type, raised for explicit channels and for prohibition or safety
# tags, lowered for hedged claims; maintenance uses it for cleanup and recall as a ranking feature.

#: the base importance of each type is a column of the policy table
_BASE = {kind: policy.base_importance for kind, policy in POLICY.items()}
_CHANNEL_BONUS = {
    Channel.EXPLICIT: tuned("importance.explicit_bonus"),
    Channel.TOOL: 0.0,
    Channel.IMPLICIT: 0.0,
    Channel.SUMMARY: -tuned("importance.summary_penalty"),
}
#: Tags that raise importance: the user forbade something, or getting it wrong could hurt.
_HIGH_TAGS = frozenset({"prohibition", "allergy", "health", "safety"})
_HIGH_TAG_BONUS = tuned("importance.high_tag_bonus")
_LOW_CONFIDENCE_PENALTY = tuned("importance.low_confidence_penalty")
#: confidence of a candidate whose rule or model states none
DEFAULT_CONFIDENCE = tuned("extract.default_confidence")


def importance_for(
    type: MemoryType,
    channel: Channel = Channel.IMPLICIT,
    tags: Iterable[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
) -> float:
    """Importance in [0, 1] from the memory type, its channel, its tags and its confidence."""
    score = _BASE.get(type, 0.5) + _CHANNEL_BONUS.get(channel, 0.0)
    if _HIGH_TAGS.intersection(tags):
        score += _HIGH_TAG_BONUS
    if confidence < 0.5:
        score -= _LOW_CONFIDENCE_PENALTY
    return round(min(1.0, max(0.0, score)), 3)


# Reading JSON out of LLM replies, which wrap it in code fences or chatter more often than not.

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _candidates(text: str, opener: str, closer: str) -> list[str]:
    out = [text]
    fenced = _FENCE.search(text)
    if fenced:
        out.append(fenced.group(1))
    start, end = text.find(opener), text.rfind(closer)
    if 0 <= start < end:
        out.append(text[start : end + 1])
    return out


def parse_json_value(text: str) -> list[Any] | dict[str, Any]:
    """The JSON array or object in an LLM reply (fenced, or among chatter), whichever comes first."""
    stripped = text.strip()
    for opener, closer in sorted((("[", "]"), ("{", "}")), key=lambda p: _position(stripped, p[0])):
        for chunk in _candidates(stripped, opener, closer):
            try:
                value = json.loads(chunk)
            except ValueError:
                continue
            if isinstance(value, (list, dict)):
                return value
    raise ExtractionError(f"LLM reply: expected a JSON array or object, found {_preview(text)}")


def _position(text: str, opener: str) -> int:
    at = text.find(opener)
    return at if at >= 0 else len(text)


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in an LLM reply."""
    for chunk in _candidates(text.strip(), "{", "}"):
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise ExtractionError(f"LLM reply: expected a JSON object, found {_preview(text)}")


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


# Prompt files: plain text under `prompts/` with {named} variables filled at call time.
#
# Only `{identifier}` placeholders are variables, so JSON examples in a prompt need no escaping.
# Filling checks both ways: a missing value and an unexpected key are errors that name the file
# and the variable.

#: The shipped prompt folder (the repository's prompts/, carried by the wheel; resources.py).
DEFAULT_PROMPTS_DIR = default_prompts_dir()
_VARIABLE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass(frozen=True)
class PromptFile:
    """One loaded prompt template."""

    path: Path
    template: str

    @property
    def variables(self) -> frozenset[str]:
        """The names of the {placeholders} in the template."""
        return frozenset(_VARIABLE.findall(self.template))

    def fill(self, **values: str) -> str:
        """The prompt with every variable replaced; all and only its variables must be given."""
        missing = sorted(self.variables - values.keys())
        if missing:
            raise ValidationError(
                f"{self.path.name}: variable {{{missing[0]}}} has no value; expected values for "
                f"{sorted(self.variables)}"
            )
        unknown = sorted(values.keys() - self.variables)
        if unknown:
            raise ValidationError(
                f"{self.path.name}: unknown variable {unknown[0]!r}; the template uses {sorted(self.variables)}"
            )
        return _VARIABLE.sub(lambda m: str(values[m.group(1)]), self.template)


def load_prompt(prompts_dir: str | Path, name: str) -> PromptFile:
    """Read `<prompts_dir>/<name>` as UTF-8; a missing or unreadable file is a ConfigError."""
    path = Path(prompts_dir) / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read prompt file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: expected UTF-8 text, found invalid bytes at {exc.start}"
        ) from exc
    return PromptFile(path=path, template=text)


# Hard filter rules that run before extraction: contentless turns are not logged at all.
#
# A turn is contentless when, once punctuation, emoji and filler particles are gone, nothing is
# left, or every clause is a greeting, a thanks, an acknowledgement or a laugh ("好的，谢谢！",
# "ok thanks 👍", "嗯嗯"). Anything with a fact in it, however short, is kept.

# What a turn says when it says nothing: each language's `contentless` table (greetings, thanks,
# acknowledgements said alone or in several words, laughs, the particles an acknowledgement may
# end on), read from every pack at once: a turn of fillers is mixed freely ("ok 谢谢").
_FILLER = "contentless"
_PHRASES = frozenset(w for p in all_on().all() for w in p.table(_FILLER).entry("phrases").words)
_MULTIWORD = tuple(w for p in all_on().all() for w in p.table(_FILLER).entry("multiword").words)
_CLAUSE = all_on().any_of(_FILLER, "split")
_LAUGH = all_on().any_of(_FILLER, "laugh", "^(?:{})$")
_PARTICLES = "".join(
    str(p.table(_FILLER).entry("particles").setting("chars", "")) for p in all_on().all()
)
_STACKABLE = sorted(_PHRASES, key=len, reverse=True)


def _is_symbolic(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in "PSZC" or cat == "Mn"  # punctuation, symbols (emoji), spaces, controls


def _clause_is_filler(clause: str) -> bool:
    c = clause.strip().lower()
    if not c:
        return True
    stripped = c.rstrip(_PARTICLES) or c
    if c in _PHRASES or stripped in _PHRASES or c in _MULTIWORD or _LAUGH.match(c):
        return True
    # Stacked acknowledgements without punctuation: "好的谢谢", "嗯好的", "ok收到".
    for phrase in _STACKABLE:
        if c.startswith(phrase) and _clause_is_filler(c[len(phrase) :]):
            return True
    return False


def is_contentless(text: str) -> bool:
    """True for greetings, thanks, acknowledgements, laughs, emoji-only and near-empty texts."""
    meaningful = "".join(ch for ch in text if not _is_symbolic(ch))
    if len(meaningful.strip()) < 2:
        return True
    lowered = text.lower().strip()
    for phrase in sorted(_MULTIWORD, key=len, reverse=True):  # they span spaces the split would cut
        lowered = lowered.replace(phrase, " thanks ")
    # the split cuts at white space too, so each piece is one word in any language
    words = [c for c in _CLAUSE.split(lowered) if c]
    clean = ["".join(ch for ch in w if not _is_symbolic(ch)) for w in words]
    return all(_clause_is_filler(w) for w in clean)


# Is a turn only a request for help? The grammar of requests, English and Chinese.
#
# A user of an agent mostly asks it for things: questions to the assistant ("What's the capital
# of Egypt?", 火星离太阳有多远？), small talk ("Hello, how are you today?"), commands addressed to
# it ("Translate 'good luck' into French", 帮我算一下 12 加 30). Such a turn says nothing about the
# user or their world: it is not a memory, is not summarised as one and is not delivered as one.
# A turn that mixes a request with a statement ("I just adopted a puppy, which food is best?",
# 我下周去成都出差，帮我查下天气) is not only a request: its statement is evidence.
#
# The decision reads the turn clause by clause: a clause is a request when it is interrogative
# (a question mark, a question word or particle) or an imperative addressed to the assistant (a
# verb of asking for work at its head, 帮我 / 给我 / 请); fillers (greetings, thanks) are nothing.
# The turn is a request only when every clause is a request or a filler: one declarative clause
# (first person or not) keeps it. The grammar is each language's `request` table (`lang/<code>/
# request.yaml`); a language without one has no requests, so its turns are all kept.

#: the tag of a logged turn that only asked the assistant for something: kept for audit, never
#: delivered as a memory nor as another turn's context (recall/recaller.py)
REQUEST_TAG = "request"


def asked_only(tags: tuple[str, ...] | list[str]) -> bool:
    """Whether a logged turn's tags say it only asked for help (its first tag is its speaker)."""
    return REQUEST_TAG in tags[1:]


#: where a sentence ends, and the commas between its clauses (each language's `request` table)
_CLAUSE_END = all_on().any_of("request", "clause_end")
_COMMA = all_on().any_of("request", "comma")


def _clauses(text: str) -> list[str]:
    """The clauses of a text, in order (a sentence's question mark stays with its last clause)."""
    return [
        c.strip()
        for sentence in _CLAUSE_END.split(text)
        if sentence and sentence.strip()
        for c in _COMMA.split(sentence.strip())
        if c.strip()
    ]


def _is_request(clause: str, langs: Languages) -> bool:
    g = langs.of(clause).table("request")
    body = g.entry("opener").pattern.sub("", clause).strip(" '\"“”‘’")
    if not body:
        return True
    if g.entry("ask_frame").pattern.match(body) or g.entry("command_head").pattern.match(body):
        return True
    if g.entry("ask_end").pattern.search(body):
        return True
    mine = bool(g.entry("first_person").pattern.match(body))
    head = g.entry("ask_head")
    if head.pattern.match(body) and not mine:
        return bool(head.setting("asks_alone", False))
    return bool(g.entry("ask_word").pattern.search(body)) and not mine


def request_only(text: str, langs: Languages | None = None) -> bool:
    """Whether the turn only asks the assistant for something (a question, a command, small
    talk) and states nothing: every clause is a request or a filler, and one at least asks."""
    langs = langs or all_on()
    text = (text or "").strip()
    if not text or is_contentless(text):
        return False
    asked = False
    for clause in _clauses(text):
        if is_contentless(clause):
            continue
        if not _is_request(clause, langs):
            return False
        asked = True
    return asked


def statement_part(text: str, langs: Languages | None = None) -> str:
    """The clauses of a text that state something, its requests left out ("I'm flying to
    Chengdu next week, what's the weather like there?" -> "I'm flying to Chengdu next week");
    "" when it only asks."""
    langs = langs or all_on()
    clauses = _clauses(text)
    kept = [c for c in clauses if not is_contentless(c) and not _is_request(c, langs)]
    if not kept:
        return ""
    if not any(_is_request(c, langs) for c in clauses):
        return text
    return langs.of(text).comma.join(c.rstrip("?？。.!！;；") for c in kept)
