"""Fusion, rerank and what is kept: every component in [0, 1], weights from config.

Which ranked memories are kept and why each other one is not, and the explanations of why each
memory was (or was not) injected. Over 600 lines: one decision and its reasons.

The weights: with `recall.fusion: hand` the configuration's hand-set ones (`recall.weights` and
their variant for languages that do not set words apart by spaces); with `fitted` they come from
a fusion table, per language of the request (the language pack's code, `lang.detect`), and a
language the table does not hold keeps the configuration's weights. The table is the package's
`config/fusion.yaml` unless `recall.fusion_file` names another (one `openclaw-memory fit-fusion`
wrote from a user's own labelled data). Its shape:

    model: listwise                  (how the weights were fitted)
    languages:
      en:
        weights: {semantic: 0.4, keyword: 0.3, ...}     (every component, each >= 0, sum > 0)
        source: where the weights came from (data, folds, out-of-fold figures)

A malformed table is a ConfigError naming the file, the field and the expected form. A table is
read once per path and modification time.
"""

from __future__ import annotations

import functools
import math
import yaml
import numpy as np
import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional
from ..errors import ConfigError
from ..config import RecallConfig
from ..core.policy import POLICY, types_where, CHANNEL_TRUST
from ..lang.text import STOPWORDS, sentence_parts, search_tokens
from ..types import MemoryRecord, MemoryType, ScoredMemory, Status, InjectionPlan
from .pool import Pool
from .gate import (
    Signals,
    anchored,
    bars,
    digest,
    gives_way,
    holder_note,
    level,
    level_note,
    names_person,
    relative,
    relative_bar,
    relevant,
    signals,
    unheld_margin,
    unheld_note,
    WORDS,
)
from .query import RecallQuery, window_start, dated_stretch
from itertools import repeat
from operator import mul
from ..core.clock import DAY
from ..config.tuning import tuned
from .channels import TYPES_WITHOUT_DECAY, subject_matches
from .reference import asks_about
from .timeref import states_duration
from collections.abc import Sequence

# Fitted fusion: the ranker's weights per language, read from a fusion table (YAML data).
#
# The ranker fuses each candidate's components (`rank.COMPONENTS`, each in [0, 1]) by a weighted
# mean. With `recall.fusion: hand` the weights are the configuration's hand-set ones
# (`recall.weights` and their variant for Chinese); with `fitted` they come from a fusion table,
# per language of the request (the language pack's code, `lang.detect`), and a language the table
# does not hold keeps the configuration's weights. The table is the package's `config/fusion.yaml` unless
# `recall.fusion_file` names another (one `openclaw-memory fit-fusion` wrote from a user's own
# labelled data). Its shape:
#
#     model: listwise                  (how the weights were fitted)
#     languages:
#       en:
#         weights: {semantic: 0.4, keyword: 0.3, ...}     (every component, each >= 0, sum > 0)
#         source: where the weights came from (data, folds, out-of-fold figures)
#
# A malformed table is a ConfigError naming the file, the field and the expected form. A table is
# read once per path and modification time.

#: the components a fusion table weighs, in the ranker's order (`rank.COMPONENTS`)
FUSED = ("semantic", "keyword", "structure", "recency", "importance", "trust", "session")
#: the table shipped with the package
PACKAGED = Path(__file__).resolve().parent.parent / "config" / "fusion.yaml"
#: the choices of `recall.fusion`
MODES = ("hand", "fitted")


@dataclass(frozen=True)
class FusionTable:
    """Fitted weights per language code, and where each set came from."""

    model: str
    weights: Mapping[str, Mapping[str, float]]
    sources: Mapping[str, str]

    def for_language(self, code: str) -> Optional[Mapping[str, float]]:
        """The weights for requests in language `code` (None: the table has none for it)."""
        return self.weights.get(code)


def fitted_weights(cfg: Any, code: str) -> Optional[dict[str, float]]:
    """The weights a request in language `code` (`lang.detect`) is fused with under `cfg` (a
    RecallConfig): the fitted ones of that language when `cfg.fusion` is "fitted" and the table
    holds it, else None (the configuration's hand-set weights apply)."""
    if getattr(cfg, "fusion", "hand") != "fitted":
        return None
    table = load_table(cfg.fusion_file or PACKAGED)
    found = table.for_language(code)
    return dict(found) if found is not None else None


def load_table(path: str | Path) -> FusionTable:
    """The fusion table at `path` (read again only when the file changed)."""
    p = Path(path)
    try:
        stamp = p.stat().st_mtime_ns
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the fusion table ({exc})") from exc
    return _load(str(p), stamp)


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: int) -> FusionTable:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the fusion table ({exc})") from exc
    return parse_table(data, path)


def parse_table(data: Any, where: str) -> FusionTable:
    """A FusionTable from the YAML's data; a ConfigError names the field and the expected form."""
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{where}: expected a mapping with 'model' and 'languages', found {data!r}"
        )
    model = data.get("model")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"{where}: 'model': expected a string naming the fit, found {model!r}")
    langs = data.get("languages")
    if not isinstance(langs, Mapping) or not langs:
        raise ConfigError(
            f"{where}: 'languages': expected a mapping of language codes to weights, found {langs!r}"
        )
    weights: dict[str, dict[str, float]] = {}
    sources: dict[str, str] = {}
    for code, entry in langs.items():
        key = f"languages.{code}"
        if not isinstance(entry, Mapping) or set(entry) != {"weights", "source"}:
            raise ConfigError(
                f"{where}: '{key}': expected exactly the keys ['source', 'weights'], found {entry!r}"
            )
        if not isinstance(entry["source"], str) or not entry["source"].strip():
            raise ConfigError(
                f"{where}: '{key}.source': expected a string saying where the weights came from, "
                f"found {entry['source']!r}"
            )
        weights[str(code)] = _weights(entry["weights"], f"{where}: '{key}.weights'")
        sources[str(code)] = entry["source"]
    return FusionTable(model, weights, sources)


def _weights(raw: Any, where: str) -> dict[str, float]:
    if not isinstance(raw, Mapping) or set(raw) != set(FUSED):
        found = sorted(raw) if isinstance(raw, Mapping) else raw
        raise ConfigError(
            f"{where}: expected exactly the components {list(FUSED)}, found {found!r}"
        )
    out: dict[str, float] = {}
    for name in FUSED:
        value = raw[name]
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value < 0
        ):
            raise ConfigError(f"{where[:-1]}.{name}': expected a number >= 0, found {value!r}")
        out[name] = float(value)
    if sum(out.values()) <= 0:
        raise ConfigError(f"{where}: expected at least one weight above 0, found all 0")
    return out


# Fusion, rerank and what is kept: every component in [0, 1], weights from config.
#
# Which ranked memories are kept and why each other one is not, and the explanations of why each
# memory was (or was not) injected. Over 600 lines: one decision and its reasons.

# Which ranked memories are kept, and why each other one is not (every drop has a reason that
# `search --explain` shows): its status, expiry or confidence, the request's time window, relevance
# gating (`gate.py`), one version per subject, near-duplicates, or an episode that a curated memory
# ranked above it says in fewer words.

#: the reason a kept memory carries when it is older than the request's time window, which was
#: relaxed because nothing relevant fell inside it ("what did I write yesterday" when the user
#: last wrote about it a week ago: the dated line is better than nothing)
OUTSIDE_WINDOW_NOTE = "older than the time window the request names (nothing relevant inside it)"
#: a kept memory whose nearest sentence, not its whole text, matched the request
SENTENCE_NOTE = "matched by its sentence"
WINDOWED_TYPES = types_where(windowed=True)  # the policy table


def keep(
    scored: list[ScoredMemory],
    pool: Pool,
    query: RecallQuery,
    now: float,
    cfg: RecallConfig,
    cal: Calibration,
) -> list[ScoredMemory]:
    """`scored` (in rank order) with each memory's rank, whether it is kept, and why not."""
    out: list[ScoredMemory] = []
    kept: list[ScoredMemory] = []
    window = window_start(query, now)
    sig = signals(pool, query) if level(pool) is not None else None
    if sig is not None and relative(pool, cfg, sig):
        sig = anchored(sig, scored, pool)
    # the window is relaxed when no live memory inside it is relevant
    relaxed = window is not None and not any(
        s.record.type in WINDOWED_TYPES
        and s.record.created_at >= window
        and s.record.status is Status.ACTIVE
        and relevant(s, pool, cal.min_semantic, cfg, sig)
        for s in scored
    )
    start = None if relaxed else window
    covered: dict[str, str] = {}
    similar = _Similarity(pool.vectors)
    for rank, s in enumerate(scored, start=1):
        reason = _drop_reason(
            s, pool, query, now, start, cfg, cal, kept, similar, sig
        ) or _covered_reason(s, covered, pool.retired)
        note = ""
        if (
            not reason
            and relaxed
            and s.record.type in WINDOWED_TYPES
            and s.record.created_at < (window or 0.0)
        ):
            note = OUTSIDE_WINDOW_NOTE
        elif not reason and s.record.id in pool.sentence:
            note = sentence_note(s.record, *pool.sentence[s.record.id])
        s = ScoredMemory(
            s.record, s.score, s.components, s.channels, rank, reason == "", reason or note
        )
        if s.kept:
            kept.append(s)
            similar.keep(s.record.id)
            _cover(covered, s.record)
        out.append(s)
    return out


def sentence_note(r: MemoryRecord, index: int, count: int) -> str:
    """The explanation of a memory that one of its sentences brought in (`search --explain`)."""
    parts = sentence_parts(r.text, count)
    return f"{SENTENCE_NOTE}: {parts[index]}" if index < len(parts) else SENTENCE_NOTE


def _cover(covered: dict[str, str], r: MemoryRecord) -> None:
    """Record the turns a kept live curated memory was distilled from: an episode of those turns
    ranked below it says the same thing in more words (one ranked above it stays: the raw turn
    matched the request better than its distillate)."""
    if POLICY[r.type].distilled and r.status is Status.ACTIVE:
        for t in r.source.turn_ids:
            covered.setdefault(t, r.id)


def _covered_reason(s: ScoredMemory, covered: dict[str, str], retired: dict[str, str]) -> str:
    """An episode is not injected when a curated memory says the same (it outranks the raw turn)
    or when the memory distilled from it was superseded or forgotten (only the newest version)."""
    r = s.record
    turns = r.source.turn_ids
    if r.type is not MemoryType.EPISODE or not turns:
        return ""
    if all(t in covered for t in turns):
        return f"covered by curated memory {covered[turns[0]]}"
    if not query_is_deep(s) and all(t in retired or t in covered for t in turns):
        old = next(retired[t] for t in turns if t in retired)
        return f"outdated: the memory distilled from this turn was replaced or forgotten ({old})"
    return ""


def query_is_deep(s: ScoredMemory) -> bool:
    return s.record.status is Status.ARCHIVED


def _drop_reason(
    s: ScoredMemory,
    pool: Pool,
    query: RecallQuery,
    now: float,
    start: float | None,
    cfg: RecallConfig,
    cal: Calibration,
    kept: list[ScoredMemory],
    similar: "_Similarity",
    sig: Signals | None = None,
) -> str:
    r = s.record
    if r.status is Status.INACTIVE or (r.status is Status.ARCHIVED and not query.deep):
        return f"status {r.status.value}"
    if r.expires_at is not None and r.expires_at <= now and not query.deep:
        return "expired"
    if r.doubt_of or r.confidence < cfg.min_confidence:
        return f"low confidence ({r.confidence:.2f}): offered to confirm, not injected"
    if start is not None and r.type in WINDOWED_TYPES and r.created_at < start:
        return "outside the time window the request names"
    if not relevant(s, pool, cal.min_semantic, cfg, sig):
        if sig is not None and relative(pool, cfg, sig):
            another = not names_person(r, sig)
            if gives_way(r, sig, another):
                return holder_note(r, another)
        if pool.unheld and not pool.asks_nothing and s.components["structure"] < 1.0:
            return unheld_note(pool, unheld_margin(cfg, query))
        c = s.components
        bar = bars(pool, cal.min_semantic, cfg).alone
        if sig is not None and relative(pool, cfg, sig):
            bar = relative_bar(r, pool, bars(pool, cal.min_semantic, cfg), cfg, sig)
        if sig is not None and sig.digests and digest(r) and pool.cosine.get(r.id, 0.0) >= bar:
            return (
                "below relevance threshold (a session's summary with no evidence of its own: "
                f"cosine {pool.cosine.get(r.id, 0.0):.2f} is no evidence{level_note(pool)})"
            )
        return (
            f"below relevance threshold (cosine {pool.cosine.get(r.id, 0.0):.2f} < {bar:.2f}"
            f"{level_note(pool)}, keyword {c['keyword']:.2f}, structure {c['structure']:.1f})"
        )
    return _duplicate_reason(s, kept, cfg, similar, pool.tokens)


class _Similarity:
    """The kept record each pooled record is most similar to, kept up to date as records are kept.

    Elementwise products summed per row, not a matrix product: a BLAS product of this size runs
    on OpenBLAS's threads, which then spin-wait and cost about as much CPU again as the whole
    request (measured at 100k memories: 36 ms of a second core per request). A kept record's
    cosines with every pooled record are computed once, when it is kept (the same float32
    products, summed in the same order, as a pooled record's with it); each pooled record keeps
    the first kept record of the highest cosine, so asking costs a lookup, not a pass over the
    kept ones."""

    def __init__(self, vectors: Mapping[str, np.ndarray]) -> None:
        self.row = {rid: i for i, rid in enumerate(vectors)}
        self.matrix = (
            np.stack(list(vectors.values())) if vectors else np.zeros((0, 0), dtype=np.float32)
        )
        self.ids = list(vectors)
        self._best = np.full(len(self.ids), -np.inf, dtype=self.matrix.dtype)
        self._nearest = np.full(len(self.ids), -1)

    def keep(self, rid: str) -> None:
        """rid is kept: from now on a pooled record may be most similar to it."""
        k = self.row.get(rid)
        if k is None:
            return
        sims = (self.matrix * self.matrix[k]).sum(axis=1)
        higher = sims > self._best  # strictly: of equal cosines the first kept stays
        self._best[higher] = sims[higher]
        self._nearest[higher] = k

    def nearest_kept(self, rid: str) -> tuple[str, float] | None:
        """The first kept record most similar to rid, and the cosine (None: no vectors, or no
        kept record has one)."""
        i = self.row.get(rid)
        if i is None or self._nearest[i] < 0:
            return None
        return self.ids[int(self._nearest[i])], float(self._best[i])


def _duplicate_reason(
    s: ScoredMemory,
    kept: list[ScoredMemory],
    cfg: RecallConfig,
    similar: _Similarity,
    tokens: Mapping[str, frozenset[str]],
) -> str:
    r = s.record
    for k in kept:
        o = k.record
        if (
            r.subject
            and o.subject == r.subject
            and o.type == r.type
            and r.type is not MemoryType.EVENT
        ):
            return f"same subject as {o.id}: only one version is injected"
    nearest = similar.nearest_kept(r.id)
    if (
        nearest is not None
        and nearest[1] >= cfg.dedup_similarity
        and not says_more(tokens.get(r.id), tokens.get(nearest[0]))
    ):
        return f"near-duplicate of {nearest[0]}"
    return ""


def says_more(words: frozenset[str] | None, than: frozenset[str] | None) -> bool:
    """Whether a memory of these search tokens says more than one of `than`: most of its
    content words are not the other's. Two turns about one topic may stand as near in meaning
    as two wordings of one fact ("my old sneakers are under my bed" and, days later, "… in a
    shoe rack in my closet"), and only the first is a duplicate: a restatement repeats the
    words of what it restates (or their stems), a new statement brings its own. Unknown tokens:
    no (the cosine decides)."""
    if not words or than is None:
        return False
    content = words - STOPWORDS
    return len(content - than) * 2 > len(content)


# Fusion and rerank: every component in [0, 1], weights from config, reasons for every drop.
#
# Components
# - semantic:   query/passage cosine mapped linearly from [semantic_floor, semantic_ceiling] to [0, 1]
#               (multilingual-e5 scores unrelated pairs around 0.75-0.85, so raw cosine is useless)
# - keyword:    share of the query's content terms found in the memory (each language's tokens)
# - structure:  1 when the query names the memory's subject, 0.5 when it asks for its type (or
#               asks how long and the memory states a length of time: recall/timeref.py)
# - recency:    type-aware decay: events, episodes, tasks and summaries halve every half-life;
#               active profile, preference, fact and decision memories do not age
# - importance: stored importance, reinforced by access (log of access count)
# - trust:      the source channel (explicit > admin > tool > summary/implicit)
# - session:    the best other candidate of the memory's session, against the pool's best (a
#               session that matches strongly lifts its other turns); computed in a second pass
# A request that names a kind (recall/kinds.py) counts a member the memory names as the kind's
# words for `keyword` and as half of `structure`; `keyword_words` (no weight) is then the keyword
# component of the memory's own words, the keyword evidence relevance gating reads.

COMPONENTS = ("semantic", "keyword", "structure", "recency", "importance", "trust", "session")
TRUST = {c.value: t for c, t in CHANNEL_TRUST.items()}  # the policy table's trust order
#: the trust of a source channel the policy table does not rank
UNKNOWN_TRUST = tuned("rank.unknown_trust")
#: importance a memory gains per natural log of (1 + the times it was injected)
ACCESS_BOOST = tuned("rank.access_boost")


@dataclass(frozen=True)
class Calibration:
    """Where the embedder's cosine scores mean 'unrelated' and 'same thing'."""

    floor: float = tuned("rank.calibration.floor")
    ceiling: float = tuned("rank.calibration.ceiling")
    min_semantic: float = tuned("rank.calibration.min_semantic")

    @classmethod
    def resolve(cls, cfg: RecallConfig, defaults: tuple[float, float, float]) -> "Calibration":
        floor, ceiling, minimum = defaults
        return cls(
            cfg.semantic_floor if cfg.semantic_floor is not None else floor,
            cfg.semantic_ceiling if cfg.semantic_ceiling is not None else ceiling,
            cfg.min_semantic if cfg.min_semantic is not None else minimum,
        )


def recency(r: MemoryRecord, now: float, half_life_days: float) -> float:
    if r.type in TYPES_WITHOUT_DECAY and r.status is Status.ACTIVE:
        return 1.0
    age_days = max(0.0, now - r.created_at) / DAY
    return 0.5 ** (age_days / half_life_days) if half_life_days > 0 else 1.0


def importance(r: MemoryRecord) -> float:
    return min(1.0, r.importance + ACCESS_BOOST * math.log1p(r.access_count))


def keyword_hits(
    query: RecallQuery, r: MemoryRecord, tokens: frozenset[str] | None = None
) -> tuple[int, int]:
    """How many of the query's terms the memory holds as its own words: as tokens (`tokens`: the
    record's search tokens when the caller has them) or, for terms of two characters or more, as
    substrings; and how many more only by naming a member of a kind the term names ("martial
    arts" held by "taekwondo": recall/kinds.py). (Relevance gating reads its keyword evidence by
    word instead: `gate.term_hits`.)"""
    terms = query.terms
    if not terms:
        return 0, 0
    if tokens is None:
        tokens = frozenset(search_tokens(r.text))
    text = r.text.lower()
    own = by_member = 0
    for t in terms:
        if t in tokens or (len(t) >= 2 and t in text):
            own += 1
        elif any(t in k.terms and k.named_in(tokens, text) for k in query.kinds):
            by_member += 1
    return own, by_member


def components(
    r: MemoryRecord,
    cos: float,
    query: RecallQuery,
    now: float,
    cfg: RecallConfig,
    cal: Calibration,
    bm25: float = 0.0,
    tokens: frozenset[str] | None = None,
    *,
    asked: tuple[str, set[str]] | None = None,
) -> dict[str, float]:
    """The memory's components for the query (`asked`: the query's lower-cased text and set of
    terms, when the caller scores many memories for one query)."""
    sem = (cos - cal.floor) / (cal.ceiling - cal.floor) if cal.ceiling > cal.floor else cos
    structure = 0.0
    low, terms = asked or (query.analysis.lower, set(query.terms))
    if query.kinds and tokens is None:  # read once: the keyword and structure parts both ask
        tokens = frozenset(search_tokens(r.text))
    if r.subject and (
        subject_matches(r.subject, low, terms)
        or (
            r.type is MemoryType.PROFILE
            and asks_about(r.subject, query.analysis.lower_vocabularies, query.analysis.langs)
        )
    ):
        structure = 1.0
    elif on_named_date(r, query):
        structure = 1.0
    elif (
        r.type in query.types
        or (tokens is not None and any(k.named_in(tokens, r.text.lower()) for k in query.kinds))
        or (query.duration and states_duration(r.text, query.analysis.langs))
    ):
        # it asks for the memory's type, for a kind the memory names one of, or for a length of
        # time the memory states
        structure = 0.5
    own, by_member = keyword_hits(query, r, tokens)
    n = len(query.terms) or 1
    out = {
        "semantic": float(min(1.0, max(0.0, sem))),
        # half: which share of the query's terms the memory holds; half: BM25 against the best
        # keyword hit of this query (rare terms count more than common ones).
        "keyword": 0.5 * (own + by_member) / n + 0.5 * bm25,
        "structure": structure,
        "recency": recency(r, now, cfg.event_half_life_days),
        "importance": importance(r),
        "trust": TRUST.get(r.source.channel.value, UNKNOWN_TRUST),
    }
    if query.kinds:  # the keyword evidence of its own words, what relevance gating reads
        out[WORDS] = 0.5 * own / n + 0.5 * bm25
    return out


def on_named_date(r: MemoryRecord, query: RecallQuery) -> bool:
    """The memory dates from a day or month the request names (`query.dated_stretch`)."""
    return any(a <= r.created_at < b for a, b in (dated_stretch(*d) for d in query.dates))


#: the session component's share of its weight for a list question (recall/kinds.py): its
#: answers are one mention in each of several sessions, not the turns around the best one
LIST_SESSION_SHARE = tuned("rank.list_session_share")


def session_of(r: MemoryRecord) -> str | None:
    return r.session_id or r.source.session_id


def session_evidence(
    scored: list[ScoredMemory], weights: Mapping[str, float]
) -> list[ScoredMemory]:
    """Second pass: each memory's "session" component is the best first-pass score among the
    other memories of its session, over the best first-pass score of the pool."""
    top = max((s.score for s in scored), default=0.0)
    best: dict[str, list[float]] = {}
    for s in scored:
        key = session_of(s.record)
        if key is not None:
            pair = best.setdefault(key, [0.0, 0.0])  # the two best scores of the session
            if s.score > pair[0]:
                pair[0], pair[1] = s.score, pair[0]
            elif s.score > pair[1]:
                pair[1] = s.score
    out = []
    for s in scored:
        key = session_of(s.record)
        sibling = 0.0
        if key is not None and top > 0:
            first, second = best[key]
            sibling = (second if s.score >= first else first) / top
        comp = {**s.components, "session": sibling}
        out.append(ScoredMemory(s.record, fuse(comp, weights), comp, s.channels))
    return out


def fuse(comp: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The weighted mean of the components (a weight missing from weights is 0): each
    component times its weight, summed in the components' order."""
    total = sum(weights.values()) or 1.0
    return sum(map(mul, map(weights.get, comp, repeat(0.0)), comp.values())) / total


def score_pool(
    pool: Pool, query: RecallQuery, now: float, cfg: RecallConfig, cal: Calibration
) -> list[ScoredMemory]:
    """Score every record in the pool, rank, then apply filters and thresholds in order."""
    if query.dates and not pool.personal:
        # a request about nothing of the user's ("Is the bank open on December 25?") names a
        # date of the world, not of the user's life: no memory is lifted or let through for it
        query = dataclasses.replace(query, dates=())
    read = query.analysis
    chosen = (
        cfg.weights_unspaced if cfg.weights_unspaced is not None and read.unspaced else cfg.weights
    )
    weights = fitted_weights(cfg, read.code) or {k: getattr(chosen, k) for k in COMPONENTS}
    if query.several:
        weights["session"] *= LIST_SESSION_SHARE
    scored = []
    best_bm25 = max(pool.bm25.values(), default=0.0)
    asked = (read.lower, set(query.terms))
    for rid, r in pool.records.items():
        bm25 = pool.bm25.get(rid, 0.0) / best_bm25 if best_bm25 > 0 else 0.0
        channels = tuple(pool.channels.get(rid, ()))
        comp = components(
            r,
            pool.cosine.get(rid, 0.0),
            query,
            now,
            cfg,
            cal,
            bm25,
            pool.tokens.get(rid),
            asked=asked,
        )
        scored.append(ScoredMemory(r, fuse(comp, weights), comp, channels))
    if weights["session"] > 0:
        scored = session_evidence(scored, weights)
    # exact ties (common with the hash embedder) go to the newer memory, then by id: the ranking
    # does not depend on the order the channels or SQLite returned the candidates in
    scored.sort(key=lambda s: (-s.score, -s.record.updated_at, s.record.id))
    return keep(scored, pool, query, now, cfg, cal)


# Explanations: why each memory was (or was not) injected.
#
# Seed 000 §6: to debug a wrong answer you need to see why this memory and not that one. Two
# views of one InjectionPlan: a fixed-width table for a terminal (wide characters count two columns,
# so the columns line up) and a JSON-safe dict for logs and the HTTP bridge.

SUMMARY_WIDTH = 40
_SPACE = re.compile(r"\s+")


def display_width(text: str) -> int:
    """Columns text takes in a terminal: wide and fullwidth characters 2, combining marks 0."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Cc", "Cf", "Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _clip(text: str, width: int) -> str:
    """One line of at most width columns, with an ellipsis when cut."""
    text = _SPACE.sub(" ", text)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf")).strip()
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _num(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.4f}"


def _component_keys(candidates: Sequence[ScoredMemory]) -> list[str]:
    return sorted({k for c in candidates for k in c.components})


def _row(c: ScoredMemory, keys: Sequence[str]) -> list[str]:
    return [
        str(c.rank),
        "kept" if c.kept else "dropped",
        _num(c.score),
        *(_num(c.components.get(k)) for k in keys),
        ",".join(c.channels) or "-",
        c.record.type.value,
        _clip(c.record.summary, SUMMARY_WIDTH),
        _clip(c.reason, 200) or "-",
    ]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(display_width(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        padded = [_pad(cell, w) for cell, w in zip(cells[:-1], widths, strict=False)]
        return "  ".join([*padded, cells[-1]]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [fmt(header), rule, *(fmt(r) for r in rows)]


def explain_table(plan: InjectionPlan) -> str:
    """A fixed-width table, one row per candidate, in rank order.

    Columns: rank, kept/dropped, final score, one column per component score (the union of
    component names, sorted; "-" where a candidate has none), channels, type, short summary,
    reason. A first line names the query, position and tokens per section.
    """
    candidates = sorted(plan.candidates, key=lambda c: (c.rank <= 0, c.rank))
    keys = _component_keys(candidates)
    sections = ", ".join(f"{k} {v}" for k, v in plan.sections.items()) or "none"
    lines = [
        f"query: {_clip(plan.query, 80)} | position: {plan.position} | "
        f"tokens: {plan.tokens} ({sections})"
    ]
    header = ["rank", "fate", "score", *keys, "channels", "type", "summary", "reason"]
    if candidates:
        lines += _table(header, [_row(c, keys) for c in candidates])
    else:
        lines.append("(no candidates)")
    for record in plan.to_confirm:
        lines.append(f"to confirm: {record.id} {_clip(record.summary, 60)}")
    return "\n".join(lines)


def entity_of(c: ScoredMemory) -> str | None:
    """The entity that brought the memory in: "Melanie" (the request names her), "Boston (hop)"
    (a strong candidate names it) or "Melanie (speaker)" (the request asks about her, and she
    said it: recall/channels.py); None when no entity did."""
    for name in c.channels:
        kind, _, entity = name.partition(":")
        if entity and kind == "entity":
            return entity
        if entity and kind in ("hop", "speaker"):
            return f"{entity} ({kind})"
    return None


def _round(value: float) -> float | None:
    return round(float(value), 4) if math.isfinite(value) else None


def record_to_json(record: MemoryRecord) -> dict[str, Any]:
    """The fields of a record an explanation needs, JSON-safe."""
    return {
        "id": record.id,
        "type": record.type.value,
        "subject": record.subject,
        "summary": record.summary,
        "status": record.status.value,
        "version": record.version,
        "created_at": record.created_at,
    }


def plan_to_json(plan: InjectionPlan) -> dict[str, Any]:
    """A JSON-safe dict of the plan: scores rounded to 4 places, records cut to their key fields."""
    return {
        "query": plan.query,
        "position": plan.position,
        "tokens": plan.tokens,
        "sections": {str(k): int(v) for k, v in plan.sections.items()},
        "block": plan.block,
        "candidates": [
            {
                "rank": c.rank,
                "kept": c.kept,
                "score": _round(c.score),
                "components": {k: _round(v) for k, v in sorted(c.components.items())},
                "channels": list(c.channels),
                "entity": entity_of(c),
                "reason": c.reason,
                "record": record_to_json(c.record),
            }
            for c in sorted(plan.candidates, key=lambda c: (c.rank <= 0, c.rank))
        ],
        "to_confirm": [record_to_json(r) for r in plan.to_confirm],
    }
