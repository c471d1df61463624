"""Each question's outcome over a kept evaluation store (no ingestion), as JSON lines: whether all
its evidence is in the top 10 and in the injected block, and where each evidence memory ranked and
why it was kept or dropped. Two stores (or two read paths over one) compared line by line show
which questions a change lost or gained.

    openclaw-memory eval locomo tests/data/zh_locomo.json --data-dir STORE
    python scripts/question_outcomes.py tests/data/zh_locomo.json STORE > outcomes.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.config import load_config
    from openclaw_memory.evaluate.datasets import load_locomo
    from openclaw_memory.evaluate.memory_system import MemorySystem
    from openclaw_memory.evaluate.metrics import recall_all_at_k

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("dataset", type=Path, help="a LoCoMo-format file")
    p.add_argument("store", type=Path, help="the evaluation store (eval --data-dir)")
    args = p.parse_args(argv)
    conversations, questions = load_locomo(args.dataset)
    system = MemorySystem(load_config(None), args.store)
    try:
        for conv in conversations:
            if not system.resume(conv.id, user_only=False):
                continue  # not ingested in this store
            for q in [q for q in questions if q.conversation_id == conv.id]:
                gold = frozenset(q.evidence)
                top = recall_all_at_k(system.retrieve(q, 10), gold, 10)
                sets, _ = system.injected(q)
                injected = recall_all_at_k(sets, gold, len(sets)) if sets else 0.0
                result = system.mw.working.recaller.recall(system.scope, q.text, ())
                evidence = [
                    [s.record.text[:80], s.rank, s.kept, s.reason[:120], list(s.channels)]
                    for s in result.ranked
                    if set(s.turn_ids) & gold
                ]
                row = {"id": q.id, "category": q.category, "question": q.text}
                row.update(top10=top, injected=injected)
                print(json.dumps({**row, "evidence": evidence}, ensure_ascii=False))
    finally:
        system.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
