"""The injection plans of the read path for a data set's questions, over a kept evaluation store,
as JSON (one object a question): the exact block and every candidate with its component scores,
rank, fate and reason. Run it with two versions of the package over the same store and compare
the files byte for byte; a read-path change meant to change no result must give identical files.

    openclaw-memory eval locomo tests/data/zh_locomo.json --no-precision --data-dir STORE
    PYTHONPATH=OLD_TREE python scripts/compare_plans.py tests/data/zh_locomo.json STORE > old.json
    PYTHONPATH=.        python scripts/compare_plans.py tests/data/zh_locomo.json STORE > new.json
    cmp old.json new.json

It never ingests (the store's manifest says when each conversation ended, which sets the clock
as the evaluation did), so two versions with different write-path code read the same store.
`--every N` keeps every N-th question of each conversation.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def plans(dataset: Path, store: Path, every: int) -> list[dict[str, Any]]:
    from openclaw_memory.config import load_config
    from openclaw_memory.evaluate.datasets import load_locomo
    from openclaw_memory.evaluate.memory_system import MemorySystem

    conversations, questions = load_locomo(dataset)
    system = MemorySystem(load_config(None), store)
    out = []
    try:
        for conv in conversations:
            if not system.resume(conv.id, user_only=False):
                continue  # not ingested in this store
            mine = [q for q in questions if q.conversation_id == conv.id][::every]
            for q in mine:
                system._ask(q)
                result = system.mw.working.recaller.recall(system.scope, q.text, ())
                plan = system.mw.working.assemble(system.scope, result)
                out.append(
                    {
                        "conversation": conv.id,
                        "question": q.text,
                        "block": plan.block,
                        "tokens": plan.tokens,
                        "candidates": [
                            [
                                s.record.id,
                                repr(s.score),
                                {k: repr(v) for k, v in s.components.items()},
                                list(s.channels),
                                s.rank,
                                s.kept,
                                s.reason,
                            ]
                            for s in result.ranked
                        ],
                    }
                )
    finally:
        system.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("dataset", type=Path, help="a LoCoMo-format file")
    p.add_argument("store", type=Path, help="the evaluation store (eval --data-dir)")
    p.add_argument("--every", type=int, default=1, help="every N-th question of a conversation")
    args = p.parse_args(argv)
    for item in plans(args.dataset, args.store, max(1, args.every)):
        print(json.dumps(item, ensure_ascii=False, sort_keys=True))
    print(f"{sys.argv[0]}: done", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
