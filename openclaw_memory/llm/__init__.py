"""The one adapter for LLMs: a scripted fake for tests and examples, and the config factory.

Everything that talks to a language model receives a LlamaIndex `LLM` through its constructor;
nothing here reads LlamaIndex's global `Settings`. Provider packages are imported lazily, only
when configured, with an install hint when they are missing.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from llama_index.core.base.llms.types import (
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.llms import LLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM

from ..config import LLMConfig
from ..errors import ConfigError, ExtractionError

Reply = str | BaseException
T = TypeVar("T")

_OPENAI_LIKE_HINT = (
    "extraction.llm.provider 'openai_like' needs the package llama-index-llms-openai-like; "
    "install it with: pip install 'openclaw-memory[openai]'"
)


class ScriptedLLM(CustomLLM):
    """A LlamaIndex LLM that replies from a queue of canned texts (a fake, not a mock).

    Each call pops the next reply; a reply that is an exception instance is raised instead,
    which injects errors. `delay_seconds` sleeps before answering, to exercise timeouts.
    Every prompt received is recorded in `prompts`. An empty queue raises ExtractionError.
    """

    delay_seconds: float = 0.0
    _replies: deque[Reply] = PrivateAttr(default_factory=deque)
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, replies: Iterable[Reply] = (), delay_seconds: float = 0.0, **kwargs: Any):
        super().__init__(delay_seconds=delay_seconds, **kwargs)
        self._replies.extend(replies)

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "ScriptedLLM"

    @property
    def metadata(self) -> LLMMetadata:
        """A completion (not chat) model named "scripted"."""
        return LLMMetadata(model_name="scripted", is_chat_model=False)

    @property
    def prompts(self) -> list[str]:
        """The prompts received so far, oldest first."""
        with self._lock:
            return list(self._prompts)

    @property
    def remaining(self) -> int:
        """How many scripted replies are left."""
        with self._lock:
            return len(self._replies)

    def push(self, *replies: Reply) -> None:
        """Queue more replies (texts or exceptions to raise)."""
        with self._lock:
            self._replies.extend(replies)

    def _next(self, prompt: str) -> str:
        with self._lock:
            self._prompts.append(prompt)
            if not self._replies:
                raise ExtractionError(
                    f"ScriptedLLM: no scripted reply left for prompt #{len(self._prompts)}; "
                    "expected push() before the call"
                )
            reply = self._replies.popleft()
        if self.delay_seconds > 0:
            time.sleep(self.delay_seconds)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """The next scripted reply (recording the prompt)."""
        return CompletionResponse(text=self._next(prompt))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """The next scripted reply as a one-chunk stream."""
        text = self._next(prompt)

        def gen() -> CompletionResponseGen:
            yield CompletionResponse(text=text, delta=text)

        return gen()


def build_llm(cfg: LLMConfig, env: Mapping[str, str] | None = None) -> LLM | None:
    """The LLM named by `extraction.llm`, or None for provider "none" (rule chain only).

    "openai_like" builds LlamaIndex's OpenAILike for any OpenAI-compatible server, with the
    configured timeout and the API key read from the environment variable `api_key_env`
    (`env` defaults to os.environ). "scripted" builds an empty ScriptedLLM for demos.
    """
    if cfg.provider == "none":
        return None
    if cfg.provider == "scripted":
        return ScriptedLLM()
    if cfg.provider != "openai_like":
        raise ConfigError(
            f"extraction.llm.provider: expected one of ['none', 'openai_like', 'scripted'], "
            f"found {cfg.provider!r}"
        )
    if not cfg.model:
        raise ConfigError(
            "extraction.llm.model: expected a model name for provider 'openai_like', found ''"
        )
    try:
        from llama_index.llms.openai_like import OpenAILike
    except ImportError as exc:
        raise ConfigError(_OPENAI_LIKE_HINT) from exc
    environ = os.environ if env is None else env
    # Local OpenAI-compatible servers accept any key; a missing variable must not stop them.
    api_key = environ.get(cfg.api_key_env) or "not-set"
    kwargs: dict[str, Any] = {
        "model": cfg.model,
        "api_key": api_key,
        "timeout": cfg.timeout_seconds,
        "is_chat_model": True,
        "max_retries": 1,
    }
    if cfg.api_base:
        kwargs["api_base"] = cfg.api_base
    return OpenAILike(**kwargs)


def complete_text(llm: LLM, prompt: str, timeout_seconds: float | None) -> str:
    """`llm.complete(prompt).text`, raising TimeoutError after timeout_seconds (None: no limit)."""
    return str(call_with_timeout(lambda: llm.complete(prompt).text, timeout_seconds))


def call_with_timeout(call: Callable[[], T], timeout_seconds: float | None) -> T:
    """`call()`, raising TimeoutError after timeout_seconds (None: no limit).

    The call runs on a daemon thread so a hung provider cannot block the caller; the thread is
    left to finish on its own (its reply is discarded).
    """
    if timeout_seconds is None:
        return call()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller below
            box["error"] = exc

    worker = threading.Thread(target=run, name="openclaw-memory-llm", daemon=True)
    worker.start()
    worker.join(timeout_seconds)
    if worker.is_alive():
        raise TimeoutError(f"LLM call: expected a reply within {timeout_seconds}s, found none")
    if "error" in box:
        raise box["error"]
    return box["value"]
