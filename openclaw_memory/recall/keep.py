"""Which ranked memories are kept, and why each other one is not (every drop has a reason that
`search --explain` shows): its status, expiry or confidence, the request's time window, relevance
gating (`gate.py`), one version per subject, near-duplicates, or an episode that a curated memory
ranked above it says in fewer words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

from ..config import RecallConfig
from ..write.policy import POLICY, types_where
from ..lang.text import STOPWORDS, sentence_parts
from ..types import MemoryRecord, MemoryType, ScoredMemory, Status
from .pool import Pool
from .gate import (
    Signals,
    anchored,
    bars,
    level,
    level_note,
    relative,
    relative_bar,
    relevant,
    signals,
    unheld_margin,
    unheld_note,
)
from .query import RecallQuery, window_start

if TYPE_CHECKING:
    from .rank import Calibration

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
        if pool.unheld and not pool.asks_nothing and s.components["structure"] < 1.0:
            return unheld_note(pool, unheld_margin(cfg, query.text))
        c = s.components
        bar = bars(pool, cal.min_semantic, cfg).alone
        if sig is not None and relative(pool, cfg, sig):
            bar = relative_bar(r, pool, bars(pool, cal.min_semantic, cfg), cfg, sig)
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
