"""Where each evidence turn ranks by cosine alone among all of its conversation's memories (each
memory as near as its nearest sentence part, as recall scores it), for the question as written,
with the conversation's speakers written as "they" / "their", and with them left out; over a
kept evaluation store (no ingestion). Prints one line per question and the medians.

    python scripts/evidence_cosine_ranks.py DATASET STORE [CATEGORIES]   # default multi-hop,open-domain
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.config import load_config
    from openclaw_memory.evaluate.datasets import load_locomo
    from openclaw_memory.evaluate.memory_system import MemorySystem

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("dataset", type=Path)
    p.add_argument("store", type=Path)
    p.add_argument("categories", nargs="?", default="multi-hop,open-domain")
    args = p.parse_args(argv)
    cats = set(args.categories.split(","))
    conversations, questions = load_locomo(args.dataset)
    system = MemorySystem(load_config(None), args.store)
    eng = system.mw.engine
    ranks: dict[str, list[int]] = {"written": [], "pronoun": [], "left_out": []}
    try:
        for conv in conversations:
            if not system.resume(conv.id, user_only=False):
                continue  # not ingested in this store
            scope = system.scope
            speakers = sorted({t.speaker for s in conv.sessions for t in s.turns if t.speaker})
            ids = sorted(eng.index.ids(scope))
            records = eng.get_many(scope, ids)
            vectors, parts = eng.store.vectors_with_parts(ids)

            names = "|".join(map(re.escape, speakers))
            for q in [q for q in questions if q.conversation_id == conv.id and q.category in cats]:
                texts = {
                    "written": q.text,
                    "pronoun": re.sub(
                        rf"\b(?:{names})\b", "they", re.sub(rf"\b(?:{names})'s\b", "their", q.text)
                    ),
                    "left_out": " ".join(re.sub(rf"\b(?:{names})(?:'s)?\b", "", q.text).split()),
                }
                row = {
                    k: rank_of(eng, records, vectors, parts, t, list(q.evidence))
                    for k, t in texts.items()
                }
                for k, v in row.items():
                    ranks[k] += v
                print(json.dumps({"question": q.text, **row}))
    finally:
        system.close()
    for k, v in ranks.items():
        within = sum(r <= 10 for r in v) / len(v) if v else 0.0
        print(f"{k}: median rank {statistics.median(v)}, within 10 {within:.2f} ({len(v)} turns)")
    return 0


def rank_of(eng, records, vectors, parts, text: str, gold: list[str]) -> list[int]:
    """The cosine rank of each gold turn's best memory for text (the last rank when absent)."""
    qv = eng.embed_query(text)
    cos = {}
    for rid, v in vectors.items():
        c = float(v @ qv)
        if rid in parts:
            c = max(c, float((parts[rid] @ qv).max()))
        cos[rid] = c
    order = {r: i + 1 for i, r in enumerate(sorted(cos, key=lambda r: -cos[r]))}
    return [
        min([order[r] for r in order if g in records[r].source.turn_ids] or [len(order)])
        for g in gold
    ]


if __name__ == "__main__":
    raise SystemExit(main())
