"""Extraction stage: turns become candidate memories (filter -> secrets -> rules or LLM).

SecretFilter     finds, redacts and strips secrets and <private> spans
is_contentless   greetings, thanks and acknowledgements that are not logged
RuleExtractor    the offline rule chain (Chinese and English)
LLMExtractor     the LlamaIndex chain, falling back to the rules
Summarizer       structured session summaries (LLM or extractive)
"""

from .base import Extractor
from ..lang.utterance import is_contentless
from .base import importance_for
from .llm_chain import FactItem, LLMExtractor
from .base import DEFAULT_PROMPTS_DIR
from .base import PromptFile
from .base import load_prompt
from .rules import RuleExtractor
from .secrets import SecretFilter, SecretFinding
from .summary import Decision, StructuredSummary, Summarizer

__all__ = [
    "DEFAULT_PROMPTS_DIR",
    "Decision",
    "Extractor",
    "FactItem",
    "LLMExtractor",
    "PromptFile",
    "RuleExtractor",
    "SecretFilter",
    "SecretFinding",
    "StructuredSummary",
    "Summarizer",
    "importance_for",
    "is_contentless",
    "load_prompt",
]
