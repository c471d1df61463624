"""Write some conversations of a LoCoMo-format file to another file (a smaller evaluation slice).

python scripts/locomo_slice.py $DATA/locomo/locomo_dev5.json 0 /tmp/lc-conv0.json
python scripts/locomo_slice.py $DATA/locomo/locomo_dev5.json 0,1 /tmp/lc-conv01.json
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, which, target = argv
    with open(source, encoding="utf-8") as fh:
        conversations = json.load(fh)
    picked = [conversations[int(i)] for i in which.split(",")]
    with open(target, "w", encoding="utf-8") as fh:
        json.dump(picked, fh, ensure_ascii=False)
    print(f"{target}: {len(picked)} conversation(s), {sum(len(c['qa']) for c in picked)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
