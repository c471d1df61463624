"""Each question's outcome over a kept evaluation store (no ingestion), as JSON lines: whether all
its evidence is in the top 10 and in the injected block, and where each evidence memory ranked and
why it was kept or dropped. Two stores (or two read paths over one) compared line by line show
which questions a change lost or gained.

    openclaw-memory eval locomo tests/data/zh_locomo.json --data-dir STORE
    python scripts/question_outcomes.py tests/data/zh_locomo.json STORE > outcomes.jsonl

With --longmemeval, over a LongMemEval store (user turns only): the question's turn recall_all at
10 and session recall_all at 5 instead of the top 10, and the evidence turns' ranks.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.config import load_config
    from openclaw_memory.evaluate.datasets import load_locomo, load_longmemeval
    from openclaw_memory.evaluate.memory_system import MemorySystem
    from openclaw_memory.evaluate.metrics import recall_all_at_k, to_sessions

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("dataset", type=Path, help="a LoCoMo-format file")
    p.add_argument("store", type=Path, help="the evaluation store (eval --data-dir)")
    p.add_argument("--longmemeval", action="store_true", help="a LongMemEval file and store")
    args = p.parse_args(argv)
    if args.longmemeval:
        pairs = load_longmemeval(args.dataset)
    else:
        conversations, questions = load_locomo(args.dataset)
        pairs = [(c, q) for c in conversations for q in questions if q.conversation_id == c.id]
    system = MemorySystem(load_config(None), args.store)
    try:
        for conv, q in pairs:
            if not system.resume(conv.id, user_only=args.longmemeval):
                continue  # not ingested in this store
            gold = frozenset(q.evidence)
            ranked = system.retrieve(q, 10)
            row = {"id": q.id, "category": q.category, "question": q.text}
            row["top10"] = recall_all_at_k(ranked, gold, 10)
            if args.longmemeval:
                known = conv.session_of()
                sessions = to_sessions(
                    ranked, {t: known.get(t, t.split("#")[0]) for s in ranked for t in s}
                )
                row["session5"] = recall_all_at_k(sessions, frozenset(q.evidence_sessions), 5)
            sets, _ = system.injected(q)
            row["injected"] = recall_all_at_k(sets, gold, len(sets)) if sets else 0.0
            result = system.mw.working.recaller.recall(system.scope, q.text, ())
            evidence = [
                [s.record.text[:80], s.rank, s.kept, s.reason[:120], list(s.channels)]
                for s in result.ranked
                if set(s.turn_ids) & gold
            ]
            print(json.dumps({**row, "evidence": evidence}, ensure_ascii=False))
    finally:
        system.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
