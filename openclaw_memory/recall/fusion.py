"""Fitted fusion: the ranker's weights per language, read from a fusion table (YAML data).

The ranker fuses each candidate's components (`rank.COMPONENTS`, each in [0, 1]) by a weighted
mean. With `recall.fusion: hand` the weights are the configuration's hand-set ones
(`recall.weights` and their variant for Chinese); with `fitted` they come from a fusion table,
per language of the request (the language pack's code, `lang.detect`), and a language the table
does not hold keeps the configuration's weights. The table is the package's `config/fusion.yaml` unless
`recall.fusion_file` names another (one `openclaw-memory fit-fusion` wrote from a user's own
labelled data). Its shape:

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

import yaml

from ..errors import ConfigError
from ..lang import detect

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


def fitted_weights(cfg: Any, text: str) -> Optional[dict[str, float]]:
    """The weights a request `text` is fused with under `cfg` (a RecallConfig): the fitted ones of
    its language when `cfg.fusion` is "fitted" and the table holds that language, else None (the
    configuration's hand-set weights apply)."""
    if getattr(cfg, "fusion", "hand") != "fitted":
        return None
    table = load_table(cfg.fusion_file or PACKAGED)
    found = table.for_language(detect(text))
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
