"""The bottom layer every stage may use: the clock, token counts, progress on a terminal.

The named switches of rules and recall channels live here: which are on, read from config
(`rules.disabled`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from ..errors import ConfigError

# The bottom layer every stage may use: the clock, token counts, progress on a terminal, and the
# named switches of rules and channels.


# Which rules and recall channels are on: named switches read from config (`rules.disabled`).
#
# Every language rule (an entry of a language pack's table) and every recall channel has a
# dotted name, for instance `en.request.command_head` or `channel.entity`. Switching a name off
# switches off that rule, or every rule under it when the name is a group (`zh.request`, `zh`):
# an ablation is a config, not a patch. A name that matches nothing known is an error that says
# which names exist, so a typo never silently keeps a rule on.


@dataclass(frozen=True)
class Switches:
    """The names switched off; everything else is on."""

    off: frozenset[str] = frozenset()

    def on(self, name: str) -> bool:
        """Whether the rule or channel `name` is on: neither it nor a group above it is off."""
        parts = name.split(".")
        return not any(".".join(parts[:i]) in self.off for i in range(1, len(parts) + 1))

    def check(self, known: Iterable[str]) -> "Switches":
        """These switches, after checking that every name switched off names a known rule,
        channel or group of them; a ConfigError naming `rules.disabled` otherwise."""
        names = set(known)
        groups = {".".join(n.split(".")[:i]) for n in names for i in range(1, n.count(".") + 1)}
        unknown = sorted(self.off - names - groups)
        if unknown:
            sample = ", ".join(sorted(names)[:12])
            raise ConfigError(
                f"rules.disabled: {', '.join(unknown)} names no rule or channel; expected dotted "
                f"names such as {sample}"
            )
        return self


#: every rule and channel on
ALL_ON = Switches()


def switches_from(off: Iterable[str]) -> Switches:
    """The switches of config's `rules.disabled`."""
    return Switches(frozenset(str(n).strip() for n in off if str(n).strip()))
