"""The one place that turns config into objects (style.md rule 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from llama_index.core.base.embeddings.base import BaseEmbedding

from .clock import Clock
from .extract.base import Extractor
from .config import MemoryConfig, config_from_dict, load_config
from .resources import default_prompts_dir
from .types import Scope
from .worker import Job

PROMPTS_DIR = default_prompts_dir()


def resolve_config(config: MemoryConfig | str | Path | None, overrides: Mapping[str, Any] | None) -> MemoryConfig:
    if isinstance(config, MemoryConfig):
        return config_from_dict(overrides, base=config) if overrides else config
    return load_config(config, overrides=overrides)


def build_middleware(config: MemoryConfig | str | Path | None = None, *, clock: Clock | None = None,
                     embedder: BaseEmbedding | None = None, llm: Any = None, background: bool | None = None,
                     overrides: Mapping[str, Any] | None = None):
    """MemoryMiddleware from a config (object, YAML path or None for the defaults)."""
    from .engine import MemoryEngine
    from .extract.rules import RuleExtractor
    from .extract.secrets import SecretFilter
    from .extract.summary import Summarizer
    from .middleware import MemoryMiddleware
    from .recall.recaller import Recaller
    from .worker import Worker
    from .working_memory import WorkingMemory

    cfg = resolve_config(config, overrides)
    engine = MemoryEngine.open(cfg, clock=clock, embedder=embedder, background=background)
    llm = llm if llm is not None else _llm(cfg)
    rules = RuleExtractor(engine.clock)
    extractor: Extractor = rules
    if cfg.extraction.mode == "llm" and llm is not None:
        from .extract.llm_chain import LLMExtractor

        extractor = LLMExtractor(llm, rules, PROMPTS_DIR, engine.clock,
                                 timeout_seconds=cfg.extraction.llm.timeout_seconds)
    recaller = Recaller(engine, cfg.recall, summaries=cfg.injection.summaries)
    mw = MemoryMiddleware(
        engine, WorkingMemory(engine, recaller, cfg), extractor=extractor,
        summarizer=Summarizer(llm, PROMPTS_DIR, engine.clock, timeout_seconds=cfg.extraction.llm.timeout_seconds),
        secrets=SecretFilter(),
        worker=Worker(queue_size=cfg.worker.queue_size, batch_size=cfg.worker.batch_size), config=cfg,
    )
    # Warm up on the worker, ahead of any capture: nothing waits for it but the first job.
    mw.worker.submit(Job(Scope("warmup"), mw.warm_up, "warm-up"))
    return mw


def _llm(cfg: MemoryConfig) -> Any:
    if cfg.extraction.llm.provider == "none":
        return None
    from .llm import build_llm

    return build_llm(cfg.extraction.llm)
