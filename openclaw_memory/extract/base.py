"""The extraction interface and what every extractor shares.

A turn in, candidate memories out; how much a candidate matters (one number in [0, 1]); prompt
files with named variables; JSON read out of LLM replies; and the filter that runs first: hard
rules for contentless turns, and the grammar of a turn that is only a request for help.
"""

from __future__ import annotations

import dataclasses
import re
import json
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


#: the language pack table of fillers (`lang.utterance`), which also says how a memory names
#: its user (`_the_user`)
_FILLER = "contentless"


def _the_user(langs: Languages | None = None) -> tuple[Entry, ...]:
    """How a memory names its user in each language ("The user", 用户), the pack of unmarked
    script first."""
    return tuple(p.table(_FILLER).entry("the_user") for p in reversed((langs or all_on()).all()))


def _name_in(entry: Entry, name: str, text: str) -> str:
    """text with the user named `name`, a possessive ending kept ("the user's" -> "Ann's")."""
    ending = str(entry.setting("possessive") or "")

    def named(m: re.Match[str]) -> str:
        return name + (ending if ending and m.group().endswith(ending) else "")

    return entry.pattern.sub(named, text)


def attribute(
    candidates: Sequence[Candidate], speaker: str | None, langs: Languages | None = None
) -> list[Candidate]:
    """Candidates of a turn by a named speaker (a group chat, a replayed dialogue) speak of that
    person, not of "the user": "Melanie likes pottery", keyed "Melanie/pref/pottery", so two
    people's likes never replace each other (`langs`: the packs that say how a memory names its
    user, every rule on by default)."""
    name = (speaker or "").strip()
    if name.lower() in ANONYMOUS_SPEAKERS:
        return list(candidates)
    users = _the_user(langs)

    def named(text: str | None) -> str | None:
        if not text:
            return text
        for entry in users:
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
