"""What reading the request without its common names costs (recall/plain.py): the median time of
`embedding_text` per question against the median time of the whole recall, over a kept
evaluation store (no ingestion), in one run. Also counts how many questions it rewrote.

    openclaw-memory eval locomo DATASET --data-dir STORE --no-precision
    python scripts/plain_cost.py DATASET STORE
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.config import load_config
    from openclaw_memory.evaluate.datasets import load_locomo
    from openclaw_memory.evaluate.memory_system import MemorySystem
    from openclaw_memory.recall.plain import embedding_text

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("dataset", type=Path, help="a LoCoMo-format file")
    p.add_argument("store", type=Path, help="the evaluation store (eval --data-dir)")
    args = p.parse_args(argv)
    conversations, questions = load_locomo(args.dataset)
    system = MemorySystem(load_config(None), args.store)
    plain, whole, rewritten = [], [], 0
    try:
        store = system.mw.engine.store
        for conv in conversations:
            if not system.resume(conv.id, user_only=False):
                continue  # not ingested in this store
            for q in [q for q in questions if q.conversation_id == conv.id]:
                start = time.perf_counter()
                out = embedding_text(store, system.scope, q.text)
                plain.append(time.perf_counter() - start)
                rewritten += out != q.text
                system._ask(q)
                start = time.perf_counter()
                system.mw.working.recaller.recall(system.scope, q.text, ())
                whole.append(time.perf_counter() - start)
    finally:
        system.close()
    p50, r50 = statistics.median(plain) * 1000, statistics.median(whole) * 1000
    print(
        json.dumps(
            {
                "questions": len(plain),
                "rewritten": rewritten,
                "embedding_text_ms_p50": round(p50, 3),
                "recall_ms_p50": round(r50, 2),
                "share_of_recall": round(p50 / r50, 4),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
