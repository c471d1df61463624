"""Which off-topic request injects what, over a kept evaluation store (no ingestion).

`eval locomo|longmemeval` asks the off-topic bank of a conversation's language right after
storing it (`noise` in the JSON). This asks the same requests (the same slice per conversation)
of a store that `--data-dir` kept, with the checked-out read path, and prints one JSON line per
request that got a retrieved memory (the memories and the channels that found them), then the
rate. Two read paths over one store give comparable rates.

    openclaw-memory eval locomo tests/data/zh_locomo.json --data-dir STORE
    python scripts/offtopic_noise.py locomo tests/data/zh_locomo.json STORE
    python scripts/offtopic_noise.py longmemeval DATA/longmemeval_s_dev100.json.gz STORE --limit 16
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.config import load_config
    from openclaw_memory.evaluate.datasets import load_locomo, load_longmemeval
    from openclaw_memory.evaluate.memory_system import MemorySystem
    from openclaw_memory.evaluate.precision import bank_for, conversation_lang
    from openclaw_memory.inject.budget import section_of

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("kind", choices=("locomo", "longmemeval"))
    p.add_argument("dataset", type=Path)
    p.add_argument("store", type=Path, help="the evaluation store (eval --data-dir)")
    p.add_argument("--limit", type=int, default=None, help="the eval's --limit (longmemeval)")
    args = p.parse_args(argv)
    if args.kind == "longmemeval":
        convs, user_only = [c for c, _ in load_longmemeval(args.dataset)[: args.limit]], True
    else:
        convs, user_only = list(load_locomo(args.dataset)[0]), False
    system = MemorySystem(load_config(None), args.store)
    hits = total = 0
    try:
        for i, conv in enumerate(convs):
            if not system.resume(conv.id, user_only=user_only):
                continue  # not ingested in this store
            for text in bank_for(conversation_lang(conv), i, len(convs)):
                system.clock.set(system.last_turn_at + 86400)
                result = system.mw.working.recaller.recall(system.scope, text, ())
                plan = system.mw.working.assemble(system.scope, result)
                kept = [
                    c for c in plan.candidates if c.kept and section_of(c.record) == "retrieved"
                ]
                total += 1
                if kept:
                    hits += 1
                    shown = [[c.record.text[:100], list(c.channels)] for c in kept]
                    print(
                        json.dumps(
                            {"conversation": conv.id, "request": text, "kept": shown},
                            ensure_ascii=False,
                        )
                    )
    finally:
        system.close()
    print(
        json.dumps(
            {"requests": total, "with_retrieved": hits, "rate": round(hits / max(total, 1), 4)}
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
