"""Prompt files: plain text under `prompts/` with {named} variables filled at call time.

Only `{identifier}` placeholders are variables, so JSON examples in a prompt need no escaping.
Filling checks both ways: a missing value and an unexpected key are errors that name the file
and the variable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, ValidationError
from ..config.resources import default_prompts_dir

#: The shipped prompt folder (the repository's prompts/, carried by the wheel; resources.py).
DEFAULT_PROMPTS_DIR = default_prompts_dir()
_VARIABLE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass(frozen=True)
class PromptFile:
    """One loaded prompt template."""

    path: Path
    template: str

    @property
    def variables(self) -> frozenset[str]:
        """The names of the {placeholders} in the template."""
        return frozenset(_VARIABLE.findall(self.template))

    def fill(self, **values: str) -> str:
        """The prompt with every variable replaced; all and only its variables must be given."""
        missing = sorted(self.variables - values.keys())
        if missing:
            raise ValidationError(
                f"{self.path.name}: variable {{{missing[0]}}} has no value; expected values for "
                f"{sorted(self.variables)}"
            )
        unknown = sorted(values.keys() - self.variables)
        if unknown:
            raise ValidationError(
                f"{self.path.name}: unknown variable {unknown[0]!r}; the template uses {sorted(self.variables)}"
            )
        return _VARIABLE.sub(lambda m: str(values[m.group(1)]), self.template)


def load_prompt(prompts_dir: str | Path, name: str) -> PromptFile:
    """Read `<prompts_dir>/<name>` as UTF-8; a missing or unreadable file is a ConfigError."""
    path = Path(prompts_dir) / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read prompt file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: expected UTF-8 text, found invalid bytes at {exc.start}"
        ) from exc
    return PromptFile(path=path, template=text)
