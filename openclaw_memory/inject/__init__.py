"""The inject stage: budget -> render -> position (docs/design.md "budget and render", "inject")."""

from .assemble import ALL_SECTIONS
from .assemble import SECTIONS
from .assemble import Packing
from .assemble import pack
from .assemble import section_of
from .assemble import total_budget
from .escape import CLOSE_MARKER, OPEN_MARKER, sanitize
from .render import POSITIONS
from .render import inject
from .render import validate_messages
from .render import validate_system_prefix
from .render import (
    block_overhead,
    candidates_to_confirm,
    choose_lang,
    confirm_lines,
    render_block,
    render_record,
)

__all__ = [
    "ALL_SECTIONS",
    "CLOSE_MARKER",
    "OPEN_MARKER",
    "POSITIONS",
    "SECTIONS",
    "Packing",
    "block_overhead",
    "candidates_to_confirm",
    "choose_lang",
    "confirm_lines",
    "inject",
    "pack",
    "render_block",
    "render_record",
    "sanitize",
    "section_of",
    "total_budget",
    "validate_messages",
    "validate_system_prefix",
]
