"""The tuning table: every tuned number of the read and write paths and of the configuration's
defaults, in one data file shipped with the package (`tuning.yaml`), each with what it means and
where its value came from.

An entry is read by its dotted name where the number is used (`tuned("cover.layer_penalty")`);
a configuration default is named after its key (`recall.weights.session`), a number of a
module after the module (`speaker_channel.read_cap`). `source` names the section of BENCHMARKS.md
or docs/benchmark-history.md that measured the value (`FILE § heading`, the heading's start),
or says `set by hand`. The file is read once, on the first look-up, and checked whole: a
malformed entry is a ConfigError naming the entry and the expected form.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Union

import yaml

from ..errors import ConfigError

#: the table (packaged beside this module)
TABLE = Path(__file__).with_name("tuning.yaml")
#: the source of a value no measurement chose
BY_HAND = "set by hand"
#: what separates a source's file from the heading of its section
SECTION = " § "
_FIELDS = ("value", "meaning", "source")


@dataclass(frozen=True)
class Tuned:
    """One tuned number: its name, value, meaning and where the value came from."""

    name: str
    value: Union[int, float]
    meaning: str
    source: str


@functools.lru_cache(maxsize=None)
def table() -> Mapping[str, Tuned]:
    """Every entry of the table, by name (read once)."""
    try:
        data = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{TABLE}: cannot read the tuning table ({exc})") from exc
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{TABLE}: expected a mapping of entry names, found {type(data).__name__}"
        )
    return {str(name): _entry(str(name), fields) for name, fields in data.items()}


def _entry(name: str, fields: Any) -> Tuned:
    where = f"{TABLE}: entry '{name}'"
    if not isinstance(fields, Mapping) or sorted(fields) != sorted(_FIELDS):
        raise ConfigError(f"{where}: expected exactly the keys {list(_FIELDS)}, found {fields!r}")
    value, meaning, source = (fields[k] for k in _FIELDS)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where}: 'value' expects a number, found {value!r}")
    for key, text in (("meaning", meaning), ("source", source)):
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{where}: '{key}' expects a line of text, found {text!r}")
    return Tuned(name, value, meaning.strip(), source.strip())


def _value(name: str) -> Union[int, float]:
    entry = table().get(name)
    if entry is None:
        raise ConfigError(f"{TABLE}: no entry '{name}'; expected one of {sorted(table())}")
    return entry.value


def tuned(name: str) -> float:
    """The tuned number `name`, a float in the table (written with a point: 3.0)."""
    value = _value(name)
    if not isinstance(value, float):
        raise ConfigError(f"{TABLE}: entry '{name}' expects a number with a point, found {value!r}")
    return value


def tuned_int(name: str) -> int:
    """The tuned whole number `name` (a count, a cap, a number of days or places)."""
    value = _value(name)
    if not isinstance(value, int):
        raise ConfigError(f"{TABLE}: entry '{name}' expects a whole number, found {value!r}")
    return value
