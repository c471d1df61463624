"""Load a middleware chain from an `openclaw_config.yaml` listing (docs/design.md seed 002 §5.2).

    middlewares: [{name, module, config}]
    context: {inject_memory, memory_position, system_prefix}

`module` names a Python module holding a class with `from_config` (MemoryMiddleware by default,
or `module:Class`). A middleware's `config` maps either flat seed keys (short_term_max_tokens,
long_term_top_k, working_memory_budget), nested memory_config sections, or `config_file` (a
project YAML, relative to the listing).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..config import _read_yaml
from ..errors import ConfigError

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
