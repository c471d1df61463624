"""Word lists and subject keys shared by the rule chain.

A subject key names a slot, so a restated or changed value lands on the same key and
consolidation updates it instead of storing a second copy: `drink` for "I prefer tea" and
"I prefer coffee", `pref/科幻电影` for both 我喜欢科幻电影 and 我不喜欢科幻电影.
"""

# ruff: noqa: SIM905  (word lists read best as one string)

from __future__ import annotations

import re

from ..text import _jieba

DRINKS_ZH = frozenset(
    """咖啡 茶 奶茶 可乐 果汁 啤酒 红酒 白酒 葡萄酒 酒 牛奶 豆浆 拿铁 美式 卡布奇诺 摩卡 绿茶 红茶 乌龙
    乌龙茶 抹茶 普洱 龙井 气泡水 苏打水 柠檬水 饮料 矿泉水 热水 冰水 酸奶 咖啡因 黑咖啡 冰美式""".split()
)
DRINKS_EN = frozenset(
    """coffee tea latte espresso cappuccino americano mocha beer wine milk juice soda cola coke
        water lemonade smoothie whisky whiskey matcha sake liquor alcohol""".split()
)
FOODS_ZH = frozenset(
    """辣 辣的 川菜 湘菜 粤菜 火锅 寿司 披萨 汉堡 面 面条 米饭 饺子 海鲜 甜食 甜点 蛋糕 肉 牛肉
        猪肉 鸡肉 羊肉 鱼 素食 素 蔬菜 水果 香菜 大蒜 葱 姜 巧克力 冰淇淋 零食 烧烤 麻辣烫 面包
        牛排 沙拉 榴莲 臭豆腐 辣椒 西餐 中餐 日料 快餐 甜品 鸡蛋 豆腐""".split()
)
FOODS_EN = frozenset(
    """spicy sushi pizza burger noodle rice dumpling seafood dessert sweet cake meat beef pork
        chicken lamb fish vegetable fruit cilantro garlic onion chocolate snack pasta salad
        steak curry bread cheese egg tofu durian barbecue bbq""".split()
)
_GENERIC_HEADS = frozenset(
    """东西 事情 事 感觉 方式 类型 样子 时候 地方 thing things stuff""".split()
)
_ZH_VERBS = ("喝", "吃", "看", "听", "玩", "用", "读", "打", "去", "穿", "做", "逛", "养", "学")
_EN_LEAD = re.compile(
    r"^(?:(?:to|the|a|an|my|some|any|more|most|very|really|lots of|a lot of|all|kinds of|"
    r"drinking|eating|watching|reading|playing|listening to|using|having|doing|going to|"
    r"drink|eat|watch|read|play|listen to|use|have|do|go)\s+)+"
)
_EN_CUT = re.compile(
    r"\s+(?:with|on|in|at|when|because|if|over|than|to|instead|rather|and|but|for|during|"
    r"from|before|after|while|since|so|as|not|a lot|very much|so much|too|more|better|"
    r"the most|lately|anymore|these days|at all)\b.*$"
)
_ZH_TRAIL = re.compile(r"(?:了|的|啊|呀|哦|吧|呢|啦|一点|一些|多了)+$")


def _posseg():
    """jieba's part-of-speech tagger over the shared, once-loaded dictionary.

    Never `jieba.posseg.dt.initialize()`: it empties the tagger's word-tag table and refills it,
    and every thread tagging meanwhile (entity extraction on a write) gets "x" for known words.
    Importing the module loads the table once, under the import lock.
    """
    import jieba.posseg

    _jieba()
    return jieba.posseg


_IE_PLURALS = frozenset(
    """movies cookies zombies selfies brownies smoothies rookies pies ties lies calories
        hoodies""".split()
)


_UNCOUNTED = frozenset(["series", "species", "lens", "canvas", "chaos", "gas"])


def singular(word: str) -> str:
    """A rough English singular: movies -> movie, stories -> story, peanuts -> peanut."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is", "ics", "news")) or word in _UNCOUNTED:
        return word
    if word in _IE_PLURALS:
        return word[:-1]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "oes")):
        return word[:-2]
    return word.removesuffix("s")


def strip_zh_verb(obj: str) -> tuple[str, str]:
    """Split a leading activity verb off a Chinese object: 喝咖啡 -> ("喝", "咖啡")."""
    for verb in _ZH_VERBS:
        if obj.startswith(verb) and len(obj) > len(verb):
            return verb, obj[len(verb) :]
    return "", obj


def _zh_category(verb: str, rest: str) -> str | None:
    if verb == "喝":
        return "drink"
    if verb == "吃":
        return "food"
    tokens = [w.word for w in _posseg().lcut(rest)]
    for tok in tokens + [rest]:
        if tok in DRINKS_ZH or any(tok.endswith(d) for d in DRINKS_ZH if len(d) > 1):
            return "drink"
        if tok in FOODS_ZH:
            return "food"
    return None


def zh_head(text: str) -> str:
    """The trailing noun compound of a Chinese phrase, by jieba part of speech."""
    text = _ZH_TRAIL.sub("", text.strip())
    pairs = _posseg().lcut(text)
    run: list[str] = []
    for pair in reversed(pairs):
        is_noun = pair.flag.startswith("n") or pair.flag in ("vn", "eng", "nz")
        if is_noun:
            run.insert(0, pair.word)
        elif run:
            break
    head = "".join(run[-2:])
    if not head or head in _GENERIC_HEADS:
        head = text
    return head[:12]


def en_head(text: str) -> str:
    """The object noun of an English phrase: "watching sci-fi movies a lot" -> "sci-fi movie"."""
    text = re.sub(r"[^\w\s'\-]", " ", text.lower()).strip()
    text = _EN_CUT.sub("", text)
    text = _EN_LEAD.sub("", text).strip()
    words = [singular(w) for w in text.split()][-2:]
    if words and words[-1] in _GENERIC_HEADS:
        words = [singular(w) for w in text.split()][-3:]
    return " ".join(words)[:40]


def _en_category(text: str) -> str | None:
    low = text.lower()
    if re.match(r"^(?:to\s+)?drink(?:ing)?\b", low):
        return "drink"
    if re.match(r"^(?:to\s+)?eat(?:ing)?\b", low):
        return "food"
    words = {singular(w) for w in re.findall(r"[a-z]+", _EN_CUT.sub("", low))}
    if words & DRINKS_EN:
        return "drink"
    if words & FOODS_EN:
        return "food"
    return None


def object_subject(obj: str, cjk: bool) -> tuple[str, str]:
    """(subject key, head word) for a liked or disliked object.

    Food and drink collapse to one slot each (`drink`, `food`); anything else becomes
    `pref/<head noun>`, so a like and a later dislike of the same thing share the key.
    """
    if cjk:
        obj = re.split(r"而不是|而非|胜过|多过|多于|比较多", obj)[0]
        verb, rest = strip_zh_verb(_ZH_TRAIL.sub("", obj.strip()))
        head = zh_head(rest) if rest else obj
        category = _zh_category(verb, rest)
    else:
        head = en_head(obj)
        category = _en_category(obj)
    if category:
        return category, head
    return f"pref/{head}", head


def normalize_subject(subject: str) -> str:
    """Lower-case, single-spaced, without surrounding punctuation; at most 64 characters."""
    s = re.sub(r"\s+", " ", subject.strip().lower())
    return s.strip(" .,;:!?，。；：！？\"'")[:64]


#: the people of a user's world by relation: the English word (the slot key) and its Chinese
#: words. Roles the user has one holder of at a time (a manager, an advisor) are not here: their
#: change grammar keys them (`change_rules`). A statement about one of them is a fact about that person (`people_rules`), and the
#: two languages' words travel with it so a request in either finds it (我女儿 ~ my daughter)
RELATIONS: dict[str, tuple[str, ...]] = {
    "daughter": ("女儿", "闺女"),
    "son": ("儿子",),
    "child": ("孩子",),
    "wife": ("老婆", "妻子", "太太", "媳妇"),
    "husband": ("老公", "丈夫", "先生"),
    "partner": ("伴侣", "对象"),
    "girlfriend": ("女朋友", "女友"),
    "boyfriend": ("男朋友", "男友"),
    "mother": ("妈妈", "母亲", "老妈"),
    "father": ("爸爸", "父亲", "老爸"),
    "sister": ("姐姐", "妹妹"),
    "brother": ("哥哥", "弟弟"),
    "grandmother": ("奶奶", "外婆", "姥姥"),
    "grandfather": ("爷爷", "外公", "姥爷"),
    "friend": ("朋友",),
    "colleague": ("同事",),
    "roommate": ("室友",),
    "neighbour": ("邻居",),
}
#: English words that name the same relation as a key of RELATIONS
RELATION_ALIASES: dict[str, str] = {
    "mom": "mother",
    "mum": "mother",
    "dad": "father",
    "kid": "child",
    "coworker": "colleague",
    "co-worker": "colleague",
    "neighbor": "neighbour",
}
