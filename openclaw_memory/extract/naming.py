"""Names a text gives or shows as the speaker's, read at write time.

A given name is often an ordinary word (芝麻 sesame, 汤圆 a dumpling, Biscuit): the naming word,
not the dictionary, says it is a name. 一只垂耳兔，叫汤圆 -> 汤圆; 我家猫叫芝麻 -> 芝麻; 那家店名叫
老街面馆 -> 老街面馆; 我们叫它芝麻 -> 芝麻; "a rabbit named Biscuit" -> Biscuit; "our shop is called
Noodle Corner" -> Noodle Corner. Not an errand (叫外卖吧), a verb that begins with the naming
character (叫醒 wake up, 叫好 cheer), how to address the speaker (叫我小王: the alias rules of
extract/entities.py read that), or a description ("called back").

Two more ways a text shows that a word names something of the speaker's world, read the same
way (`world_names`):

- a being looked after by name: the object of a verb whose object is a living being, 喂芝麻 (feed
  Sesame), 遛豆豆, 给汤圆洗澡; "feed Sesame", "walk Biscuit" (capitalised). A kind of being is
  no name (喂鸽子, 喂流浪猫, 给孩子洗澡: the head of a Chinese compound names its kind, and 子,
  猫, 孩 ... name kinds of beings); an English word in lower case is no name ("feed the cat");
- a place of business the speaker's people open or run: 开个米粉店, 开了一家火锅店, 经营一家面馆.
  Chinese names a business by its kind (店 / 馆 / 铺 after what it sells), and a later request
  shortens it to the kind alone (粉店 for 米粉店): the dictionary's words inside the name that end
  in the same head are filed with it.

The write path files these names as the memory's entities (extract/entities.py `extract`, and
the record's `entities`), so recall finds them by name and relevance gating knows a request that
writes one speaks of the user's world, without parsing memories on the request path.
"""

from __future__ import annotations

import re

from ..text import _jieba  # the package's one jieba loader (dictionary loaded once, no network)

#: a name does not end in a structural or aspect particle (过得, 走了: a verb, not a name)
PARTICLE_END = re.compile(r"[的得地了着过吗呢吧啊呀]$")
#: Chinese naming words: 叫 / 名叫 / 取名 / 起名 / 名字是, opening a clause (一只垂耳兔，叫汤圆) or
#: after the name's owner (它 / a name word) or a thing (我家猫叫芝麻, 那家店叫...), or 叫它 / 管它叫;
#: the name ends its clause: "叫外卖吧", "叫我小王", "他们叫车" give no name
_ZH_GIVEN = re.compile(
    r"(?:(?:(?:^|(?<=[，,。：:；;！!？?\s]))(?:就|也|都)?|(?<=[它牠名字店猫狗鼠兔鸟鹦龟鱼]))"
    r"(?P<word>名叫|取名叫?|起名叫?|名字(?:叫|是)|叫做|叫)|(?P<it>叫它|管它叫))"
    r"[“\"「]?(?P<name>[\u4e00-\u9fff]{2,6})[”\"」]?(?=$|[，,。！!？?；;、\s…])"
)
#: a capitalised name after an English naming word (a lower-case word after "called" is a
#: description: "called back", "called off")
_EN_GIVEN = re.compile(r"\b(?:named|called|nicknamed)\s+([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)")


def given_names(text: str) -> list[str]:
    """Names the text gives with its language's naming words, first given first, each once."""
    zh = [
        m["name"]
        for m in _ZH_GIVEN.finditer(text)
        if not PARTICLE_END.search(m["name"])
        and (m["it"] or _naming_word(text, m.start("word"), m["word"]))
    ]
    return list(dict.fromkeys([*zh, *(m.group(1) for m in _EN_GIVEN.finditer(text))]))


def _naming_word(text: str, at: int, word: str) -> bool:
    """The naming word stands as a word of its own (not 叫醒 wake up, 叫好 cheer): the
    dictionary's segmentation starts with it."""
    head = _jieba().lcut(text[at : at + len(word) + 4])
    return bool(head) and word.startswith(head[0]) and head[0][:1] in "名取起叫"


#: verbs whose object is a living being looked after (feed, walk a dog; 给X洗澡 bathe X ...)
_ZH_CARE = re.compile(
    r"(?P<verb>喂|遛)(?:一下)?(?P<name>[\u4e00-\u9fff]{2,3}?)(?=$|[，,。！!？?；;、\s…了吃喝呢吧啊呀去])"
    r"|给(?P<name2>[\u4e00-\u9fff]{2,3}?)(?:洗澡|打针|绝育|喂食|剪指甲|驱虫|打疫苗)"
)
#: the head of a compound that names a kind of being (喂鸽子, 喂流浪猫, 给宝宝洗澡) or a relative
#: (给奶奶喂饭); what no name starts with: a pronoun (喂它们), a particle (帮我喂了哈)
_BEING_HEAD = frozenset(
    "子猫狗犬鸟鱼鸡鸭鹅兔鼠猪牛羊马龟虫蛇猴娃宝儿人们妈爸奶爷婆公哥姐弟妹舅姑姨叔伯"
)
_NO_NAME_START = frozenset("它他她我你这那了着过的得地")  # and particles: 帮我喂了哈
_EN_CARE = re.compile(
    r"\b(?:feed|feeding|fed|walk|walking|walked|groom|grooming|groomed|bathe|bathing|bathed)"
    r"\s+([A-Z][a-z'’-]+)\b"
)
#: words a name does not hold (开了三年的店 is a clause)
_NOT_IN_NAME = re.compile(r"[的了着过是在和与就都也还]")
#: a place of business opened or run: 开(了)(个 / 一家 / 家 / 间) X店 / X馆 / X铺
_ZH_BUSINESS = re.compile(
    r"(?P<verb>开|经营|盘下)(?:了|过)?(?:一家|一间|个|家|间)?"
    r"(?P<name>[\u4e00-\u9fff]{1,5}?[店馆铺])(?![\u4e00-\u9fff]*[店馆铺])"
)


def world_names(text: str) -> list[str]:
    """Every name the text gives or shows as the speaker's (see the module docstring)."""
    return list(dict.fromkeys([*given_names(text), *cared_names(text), *business_names(text)]))


def cared_names(text: str) -> list[str]:
    """Beings looked after by name: 喂芝麻 -> 芝麻, "feed Sesame" -> Sesame (not 喂鸽子)."""
    out = []
    for m in _ZH_CARE.finditer(text):
        name = m["name"] or m["name2"]
        if name[-1] in _BEING_HEAD or name[0] in _NO_NAME_START or PARTICLE_END.search(name):
            continue
        if m["verb"] and _inside_word(text, m.start("verb"), m.end("verb"), after=True):
            continue  # 喂养, 喂奶: one word with what follows
        out.append(name)
    return [*out, *(m.group(1) for m in _EN_CARE.finditer(text))]


def business_names(text: str) -> list[str]:
    """Places of business opened or run, with the kinds a request shortens them to:
    开个米粉店 -> 米粉店, 粉店."""
    out = []
    for m in _ZH_BUSINESS.finditer(text):
        name, verb = m["name"], m.span("verb")
        if len(name) < 2 or _NOT_IN_NAME.search(name):
            continue  # 开了三年的店: a clause, not a name
        if _inside_word(text, *verb, after=m.start("name") == verb[1]):
            continue  # 离开店里, 公开: 开 ends another word
        out.append(name)
        out += [
            w
            for w in _jieba().lcut_for_search(name)
            if w != name and len(w) >= 2 and w.endswith(name[-1])
        ]
    return out


def _inside_word(text: str, start: int, end: int, *, after: bool) -> bool:
    """The verb at text[start:end] is part of a dictionary word with the character before it
    (离开, 公开) or, when `after`, the one after it (喂养, 喂奶)."""
    freq = _jieba().dt.FREQ
    if start > 0 and freq.get(text[start - 1 : end]):
        return True
    return after and bool(freq.get(text[start : end + 1]))
