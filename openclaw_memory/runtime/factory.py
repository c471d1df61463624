"""The one place that turns config into objects (style.md rule 4).

`build_middleware` opens the storage (the engine: record store, vector index, embedder, clock),
builds every stage over the ports it uses (the recaller and its channels, the assembler, the
writer, the extractor, the summarizer, the capture pipeline, the worker) and the middleware over
them; nothing below the middleware builds a stage.

`load_chain` loads a middleware chain from an `openclaw_config.yaml` listing:

    middlewares: [{name, module, config}]
    context: {inject_memory, memory_position, system_prefix}

`module` names a Python module holding a class with `from_config` (MemoryMiddleware by default,
or `module:Class`). A middleware's `config` maps either flat keys (short_term_max_tokens,
long_term_top_k, working_memory_budget), nested memory_config sections, or `config_file` (a
project YAML, relative to the listing).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from llama_index.core.base.embeddings.base import BaseEmbedding
from .. import lang
from ..core.clock import Clock
from ..config import MemoryConfig, config_from_dict, load_config, default_prompts_dir, _read_yaml
from ..extract.base import Extractor
from ..lang import Languages
from ..core import switches_from
from ..types import Scope
from ..core.worker import Job
from dataclasses import dataclass
from ..errors import ConfigError

if TYPE_CHECKING:
    from .engine import MemoryEngine
    from ..middleware import MemoryMiddleware
    from ..recall.pool import Channel as RecallChannel
    from ..recall import ReadPorts
    from ..recall.recaller import Recaller
    from ..maintain.runner import MaintenancePorts
    from ..write.consolidate import MemoryWriter
    from ..core import Switches

# The one place that turns config into objects (style.md rule 4).
#
# `build_middleware` opens the storage (the engine: record store, vector index, embedder, clock),
# builds every stage over the ports it uses (the recaller and its channels, the assembler, the
# writer, the extractor, the summarizer, the capture pipeline, the worker) and the middleware over
# them; nothing below the middleware builds a stage. A user adds an extractor or a recall channel
# by passing it here (`extractor=`, `recall_channels=`), without forking anything.

PROMPTS_DIR = default_prompts_dir()


def resolve_config(
    config: MemoryConfig | str | Path | None, overrides: Mapping[str, Any] | None
) -> MemoryConfig:
    """A MemoryConfig from an object, a YAML path or None (the defaults), with overrides applied."""
    if isinstance(config, MemoryConfig):
        return config_from_dict(overrides, base=config) if overrides else config
    return load_config(config, overrides=overrides)


def build_middleware(
    config: MemoryConfig | str | Path | None = None,
    *,
    clock: Clock | None = None,
    embedder: BaseEmbedding | None = None,
    llm: Any = None,
    background: bool | None = None,
    overrides: Mapping[str, Any] | None = None,
    extractor: Extractor | None = None,
    recall_channels: Sequence["RecallChannel"] = (),
) -> "MemoryMiddleware":
    """MemoryMiddleware from a config (object, YAML path or None for the defaults).

    extractor: extracts the candidates of every captured turn and of `remember`, in place of
    the configured chain (rules, or the LLM chain with the rules behind it).
    recall_channels: proposed candidates beside the built-in channels (vector, keyword, recent,
    subject, profile, summaries, ...: `recall.channels.CHANNELS`); each is an object with a `name`
    and `propose(scope, query, qvec, pool)` (`openclaw_memory.RecallChannel`). What they propose
    is scored and gated like any candidate. Config's `rules.disabled` switches a channel off by
    `channel.<name>`, a user's own as a built-in one; an unknown name is a ConfigError.
    """
    from .engine import MemoryEngine

    cfg = resolve_config(config, overrides)
    engine = MemoryEngine.open(cfg, clock=clock, embedder=embedder, background=background)
    try:
        langs = rule_languages(cfg, recall_channels)  # an unknown name in rules.disabled stops here
        llm = llm if llm is not None else _llm(cfg)
        mw = assemble(
            engine,
            cfg,
            extractor=extractor if extractor is not None else _extractor(engine, cfg, llm, langs),
            summarizer_llm=llm,
            recall_channels=recall_channels,
            langs=langs,
        )
    except BaseException:
        engine.close()
        raise
    # Warm up on the worker, ahead of any capture: nothing waits for it but the first job.
    mw.worker.submit(Job(Scope("warmup"), mw.warm_up, "warm-up"))
    return mw


def assemble(
    engine: "MemoryEngine",
    cfg: MemoryConfig,
    *,
    extractor: Extractor,
    summarizer_llm: Any = None,
    recall_channels: Sequence["RecallChannel"] = (),
    langs: Languages | None = None,
) -> "MemoryMiddleware":
    """The stages over an open engine's ports, each built once and handed what it uses, and the
    middleware over them. `langs`: the language packs under config's `rules.disabled`
    (`rule_languages`, read from cfg when not given)."""
    from ..capture import PendingTurns
    from ..capture.pipeline import CapturePipeline
    from ..capture.pipeline import Sessions
    from ..capture.pipeline import ShortTermMemory
    from ..capture.pipeline import SessionSummaries
    from ..extract.secrets import SecretFilter
    from ..extract.summary import Summarizer
    from ..inject.assemble import BlockAssembler
    from ..core.worker import UserJobs
    from ..middleware import MemoryMiddleware
    from ..procedure.distil import ProcedureTracker
    from ..core.worker import Worker

    store, clock = engine.store, engine.clock
    langs = langs or rule_languages(cfg, recall_channels)
    recaller = build_recaller(engine, cfg, recall_channels)
    writer = build_writer(engine, langs)
    summarizer = Summarizer(
        summarizer_llm,
        PROMPTS_DIR,
        clock,
        timeout_seconds=cfg.extraction.llm.timeout_seconds,
        langs=langs,
    )
    secrets = SecretFilter()
    worker = Worker(queue_size=cfg.worker.queue_size, batch_size=cfg.worker.batch_size)
    jobs = UserJobs(worker)  # background jobs, gated against purges
    pending = PendingTurns()  # transcript turns queued for capture, not yet written
    short_term = ShortTermMemory(store, cfg.short_term, clock)
    sessions = Sessions(store, clock)
    summaries = SessionSummaries(writer, short_term, sessions, summarizer)
    capture = CapturePipeline(
        store,
        writer,
        engine.indexer,
        clock,
        extractor=extractor,
        secrets=secrets,
        short_term=short_term,
        sessions=sessions,
        summaries=summaries,
        jobs=jobs,
        pending=pending,
        config=cfg.extraction,
        langs=langs,
    )
    return MemoryMiddleware(
        engine,
        writer=writer,
        recaller=recaller,
        assembler=BlockAssembler(store, clock, cfg),
        capture=capture,
        sessions=sessions,
        short_term=short_term,
        summaries=summaries,
        secrets=secrets,
        jobs=jobs,
        pending=pending,
        # the open tasks of each session (procedural memory)
        procedures=ProcedureTracker(langs=langs),
        maintenance=maintenance_ports(engine, langs),
        config=cfg,
    )


def read_ports(engine: "MemoryEngine") -> "ReadPorts":
    """The ports the read stage reads an open engine's storage through: its record store, its
    vector searches (each scope's pending writes indexed first), its embedder and its clock."""
    from ..recall import ReadPorts

    return ReadPorts(engine.store, engine.indexer.searcher, engine.embedder, engine.clock)


def maintenance_ports(engine: "MemoryEngine", langs: Languages | None = None) -> "MaintenancePorts":
    """The ports the maintenance door (the forgetting jobs, doctor, purge, the scheduled run)
    is handed over an open engine's storage: its record store, its managed vector index, its
    embedder and the embedder's name, its clock and config, the indexer's drain and wake-up
    (the indexer stays with the engine that opened it), and the language packs (`langs`, a
    stage's; the engine's when not given)."""
    from ..maintain.runner import MaintenancePorts

    return MaintenancePorts(
        store=engine.store,
        index=engine.index,
        embedder=engine.embedder,
        model_name=engine.model_name,
        clock=engine.clock,
        config=engine.config,
        sync_index=engine.sync_index,
        written=engine.written,
        langs=langs or engine.langs,
    )


def build_recaller(
    engine: "MemoryEngine",
    cfg: MemoryConfig,
    recall_channels: Sequence["RecallChannel"] = (),
) -> "Recaller":
    """The read stage over an open engine's read ports: the built-in channels and a user's own
    that config's `rules.disabled` leaves on, with cfg's recall section and summaries."""
    from ..recall.channels import build_channels, channel_switch
    from ..recall.recaller import Recaller

    ports = read_ports(engine)
    switches = _switches(cfg, recall_channels)
    own = [c for c in recall_channels if switches.on(channel_switch(c.name))]
    channels = [*build_channels(ports, cfg.recall, cfg.injection.summaries, switches), *own]
    return Recaller(
        ports,
        cfg.recall,
        summaries=cfg.injection.summaries,
        channels=channels,
        switches=switches,
    )


def build_writer(engine: "MemoryEngine", langs: Languages | None = None) -> "MemoryWriter":
    """The write stage (check before write, then store) over an open engine's ports, reading
    with `langs` (a stage's packs; the engine's when not given)."""
    from ..write.consolidate import MemoryWriter

    return MemoryWriter(
        engine.store,
        engine.embedder,
        engine.clock,
        engine.config,
        model_name=engine.model_name,
        indexer=engine.indexer,
        langs=langs or engine.langs,
    )


def _switches(cfg: MemoryConfig, recall_channels: Sequence["RecallChannel"]) -> Switches:
    """config's `rules.disabled`, every name checked against the switchable rules of the language
    packs and the channels (the built-in ones and a user's own): a ConfigError naming
    `rules.disabled` for an unknown one."""
    from ..recall.channels import CHANNELS, STEPS, channel_switch

    names = [*CHANNELS, *STEPS, *(c.name for c in recall_channels)]
    known = lang.known_rules() | {channel_switch(name) for name in names}
    return switches_from(cfg.rules.disabled).check(known)


def rule_languages(cfg: MemoryConfig, channels: Sequence["RecallChannel"] = ()) -> Languages:
    """The language packs under config's `rules.disabled` (checked as `_switches` does)."""
    return lang.languages(_switches(cfg, channels))


def _extractor(
    engine: "MemoryEngine", cfg: MemoryConfig, llm: Any, langs: Languages | None = None
) -> Extractor:
    """The configured chain: the rules (reading the language packs), or the LLM chain falling
    back to them."""
    from ..extract.rules import RuleExtractor

    rules = RuleExtractor(engine.clock, langs=langs)
    if cfg.extraction.mode == "llm" and llm is not None:
        from ..extract.llm_chain import LLMExtractor

        return LLMExtractor(
            llm,
            rules,
            PROMPTS_DIR,
            engine.clock,
            timeout_seconds=cfg.extraction.llm.timeout_seconds,
            langs=langs,
        )
    return rules


def _llm(cfg: MemoryConfig) -> Any:
    if cfg.extraction.llm.provider == "none":
        return None
    from ..llm import build_llm

    return build_llm(cfg.extraction.llm)


# Load a middleware chain from an `openclaw_config.yaml` listing (docs/design.md seed 002 §5.2).
#
#     middlewares: [{name, module, config}]
#     context: {inject_memory, memory_position, system_prefix}
#
# `module` names a Python module holding a class with `from_config` (MemoryMiddleware by default,
# or `module:Class`). A middleware's `config` maps either flat seed keys (short_term_max_tokens,
# long_term_top_k, working_memory_budget), nested memory_config sections, or `config_file` (a
# project YAML, relative to the listing).

FLAT_KEYS = {
    "short_term_max_tokens": ("short_term", "max_tokens"),
    "short_term_window_size": ("short_term", "window_size"),
    "summary_threshold": ("short_term", "summary_threshold"),
    "long_term_top_k": ("long_term", "top_k"),
    "working_memory_budget": ("injection", "budgets", "retrieved"),
}
_CONTEXT_KEYS = {"inject_memory", "memory_position", "system_prefix"}


@dataclass
class MiddlewareChain:
    """before_request runs the middlewares in order; after_response in reverse."""

    middlewares: Sequence[Any]
    names: Sequence[str] = ()

    def before_request(self, request: Any) -> Any:
        result = None
        for mw in self.middlewares:
            result = mw.before_request(request)
            request = type(request)(request.scope, request.session_id, result.messages)
        return result

    def after_response(self, request: Any, reply: str) -> None:
        for mw in reversed(self.middlewares):
            mw.after_response(request, reply)

    def close(self) -> None:
        for mw in reversed(self.middlewares):
            mw.close()


def _nest(flat: Mapping[str, Any], where: str) -> dict:
    out: dict = {}
    for key, value in flat.items():
        if key == "config_file":
            continue
        path = FLAT_KEYS.get(key)
        if path is None:
            if isinstance(value, Mapping):
                out.setdefault(key, {}).update(value)
                continue
            raise ConfigError(
                f"{where}: unknown key '{key}'; flat keys are {sorted(FLAT_KEYS)} or memory_config sections"
            )
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return out


def _context_overrides(context: Mapping[str, Any], where: str) -> dict:
    unknown = sorted(set(context) - _CONTEXT_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key 'context.{unknown[0]}'; known keys: {sorted(_CONTEXT_KEYS)}"
        )
    inj: dict = {}
    if "memory_position" in context:
        inj["position"] = context["memory_position"]
    if "system_prefix" in context:
        inj["system_prefix"] = context["system_prefix"]
    if context.get("inject_memory") is False:
        inj["budgets"] = {"profile": 0, "summaries": 0, "retrieved": 0, "procedures": 0}
    return {"injection": inj} if inj else {}


def _class_for(module: str, where: str) -> Any:
    mod_name, _, cls_name = module.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ConfigError(f"{where}: module '{mod_name}' cannot be imported ({exc})") from exc
    cls = getattr(mod, cls_name or "MemoryMiddleware", None)
    if cls is None or not hasattr(cls, "from_config"):
        raise ConfigError(f"{where}: '{module}' has no middleware class with from_config")
    return cls


def load_chain(path: str | Path, **kwargs: Any) -> MiddlewareChain:
    """Build every listed middleware, in order, with its config and the listing's context."""
    p = Path(path)
    data = _read_yaml(p)
    where = str(p)
    unknown = sorted(set(data) - {"middlewares", "context"})
    if unknown:
        raise ConfigError(f"{where}: unknown key '{unknown[0]}'; expected middlewares and context")
    items = data.get("middlewares")
    if not isinstance(items, list) or not items:
        raise ConfigError(
            f"{where}: key 'middlewares' expects a non-empty list of {{name, module, config}}"
        )
    context = _context_overrides(data.get("context") or {}, where)
    built, names = [], []
    for i, item in enumerate(items):
        here = f"{where}: middlewares[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("module"), str):
            raise ConfigError(f"{here} expects a mapping with a string 'module'")
        cfg = item.get("config") or {}
        if not isinstance(cfg, Mapping):
            raise ConfigError(f"{here}.config expects a mapping")
        file = cfg.get("config_file")
        overrides = _merge(_nest(cfg, here), context)
        source = (p.parent / file) if file else None
        built.append(
            _class_for(item["module"], here).from_config(source, overrides=overrides, **kwargs)
        )
        names.append(str(item.get("name", item["module"])))
    return MiddlewareChain(built, names)


def _merge(a: Mapping, b: Mapping) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = (
            _merge(out[k], v) if isinstance(out.get(k), Mapping) and isinstance(v, Mapping) else v
        )
    return out
