"""Kinds of things a request asks about, the words that name their members, and list questions."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from ..lang.text import FTS_TERMS, search_tokens
from ..config.tuning import tuned_int

# Kinds of things a request asks about, and the words that name their members.
#
# "What martial arts has John done?" is answered by "I'm off to do some taekwondo!", which shares
# no word with the question and sits far from it in the embedding (a kind and one of its members
# are not paraphrases). A request that names a kind (martial arts, musical instruments, pets,
# sports, European countries; 乐器, 宠物, 运动) also looks for the words of its members: the
# kind channel searches them by keyword (`channels.KindChannel`), and a memory that names a
# member holds the kind's terms for the keyword component (`rank.keyword_hits`). The table is
# general knowledge, one row per kind, English and Chinese side by side; a member is a word or a
# fixed phrase as the language writes it.
#
# A memory that names a member also counts as asked for by structure (half, like a memory of the
# type a request asks for: `rank.components`). Relevance gating does not count a member as a word
# of the request (`gate.WORDS`, `gate.relevant`): a memory found by its kind ranks, and is injected
# only when its meaning and its own words clear the bar, so a question about sport in general gets
# none of the user's games of tennis.

# ruff: noqa: SIM905  (word lists read best as one string)

_SPORTS_EN = """soccer football basketball baseball softball tennis volleyball badminton golf hockey
    rugby cricket swimming running jogging cycling biking skiing snowboarding surfing skating
    boxing wrestling climbing hiking yoga pilates gym marathon triathlon rowing kayaking squash
    ping-pong lacrosse archery fencing karate judo taekwondo"""
_SPORTS_ZH = """足球 篮球 棒球 垒球 网球 排球 羽毛球 高尔夫 冰球 橄榄球 板球 游泳 跑步 慢跑 骑行 骑车 滑雪
    单板 冲浪 滑冰 溜冰 拳击 摔跤 攀岩 徒步 瑜伽 普拉提 健身 马拉松 铁人三项 赛艇 皮划艇 壁球 乒乓球
    射箭 击剑 空手道 柔道 跆拳道"""
_ART_EN = """painting paintings drawing drawings sketching sketch sculpture sculpting pottery ceramics
    photography calligraphy knitting crochet sewing embroidery woodworking origami collage
    printmaking watercolor watercolour mural murals poetry poems"""
_ART_ZH = """绘画 画画 素描 雕塑 陶艺 陶瓷 摄影 书法 编织 钩针 缝纫 刺绣 木工 折纸 剪纸 拼贴 版画 油画 水彩
    壁画 诗歌 写诗"""
_OUTDOOR_EN = """hiking camping fishing kayaking canoeing climbing cycling biking skiing surfing picnic
    gardening birdwatching hike camp campfire trail beach"""
_OUTDOOR_ZH = "徒步 露营 钓鱼 皮划艇 划船 攀岩 骑行 滑雪 冲浪 野餐 园艺 观鸟 爬山 登山 海边"
_HOBBIES_EN = """reading cooking baking gardening painting drawing photography pottery knitting sewing
    hiking camping fishing swimming running cycling yoga dancing singing guitar piano chess
    gaming writing journaling volunteering traveling surfing skiing climbing kayaking skating
    tennis golf soccer basketball woodworking crafts movies concerts puzzles"""
_HOBBIES_ZH = """看书 阅读 做饭 烘焙 园艺 画画 摄影 陶艺 编织 徒步 露营 钓鱼 游泳 跑步 骑行 瑜伽 跳舞 唱歌 吉他
    钢琴 下棋 游戏 写作 日记 志愿 旅行 冲浪 滑雪 攀岩 滑冰 网球 羽毛球 足球 篮球 书法 电影 音乐会 拼图"""
_EUROPE_EN = """england britain uk scotland wales ireland france germany spain italy portugal
    netherlands holland belgium switzerland austria sweden norway denmark finland iceland greece
    poland czech hungary croatia romania russia ukraine"""
_EUROPE_CITIES_EN = (
    "paris london berlin rome madrid barcelona amsterdam lisbon vienna prague athens dublin"
)
_EUROPE_ZH = """英国 英格兰 苏格兰 爱尔兰 法国 德国 西班牙 意大利 葡萄牙 荷兰 比利时 瑞士 奥地利 瑞典 挪威 丹麦
    芬兰 冰岛 希腊 波兰 捷克 匈牙利 克罗地亚 俄罗斯 乌克兰"""
_EUROPE_CITIES_ZH = "巴黎 伦敦 柏林 罗马 马德里 巴塞罗那 阿姆斯特丹 维也纳 布拉格"
_ASIA_EN = """china japan korea india thailand vietnam singapore indonesia malaysia philippines
    nepal taiwan"""
_ASIA_CITIES_EN = "tokyo beijing shanghai seoul bangkok bali"
_ASIA_ZH = "中国 日本 韩国 印度 泰国 越南 新加坡 印尼 印度尼西亚 马来西亚 菲律宾 尼泊尔 台湾"
_ASIA_CITIES_ZH = "东京 北京 上海 首尔 曼谷 巴厘岛"
_OTHER_EN = "australia zealand egypt morocco kenya turkey israel dubai"
_OTHER_ZH = "澳大利亚 新西兰 埃及 摩洛哥 肯尼亚 土耳其 以色列 迪拜"
_AMERICAS_EN = "usa america canada mexico brazil argentina peru chile colombia cuba"
_CITIES_EN = """new-york los-angeles san-francisco chicago boston seattle portland denver austin
    dallas houston miami atlanta orlando nashville phoenix las-vegas san-diego philadelphia
    washington detroit minneapolis toronto vancouver montreal mexico-city rio london paris berlin
    rome madrid barcelona amsterdam lisbon vienna prague dublin edinburgh athens istanbul moscow
    tokyo kyoto osaka seoul beijing shanghai hong-kong singapore bangkok sydney melbourne
    auckland dubai cairo"""
_CITIES_ZH = """北京 上海 广州 深圳 杭州 成都 重庆 武汉 西安 南京 苏州 天津 长沙 厦门 青岛 大连 昆明 三亚 香港
    澳门 台北 东京 京都 大阪 首尔 新加坡 曼谷 纽约 洛杉矶 旧金山 芝加哥 波士顿 西雅图 伦敦 巴黎 柏林 罗马
    马德里 巴塞罗那 悉尼 墨尔本 迪拜"""
_AMERICAS_ZH = "美国 加拿大 墨西哥 巴西 阿根廷 秘鲁 智利 哥伦比亚 古巴"


@dataclass(frozen=True)
class KindRow:
    name: str
    #: how a request names the kind (English, Chinese)
    pattern: re.Pattern[str]
    #: its members, as the language writes them (space-separated words; "-" joins a phrase)
    members: str


def _row(name: str, pattern: str, members: str) -> KindRow:
    return KindRow(name, re.compile(pattern, re.I), members)


#: one row per kind
KINDS: tuple[KindRow, ...] = (
    _row(
        "martial-art",
        r"\bmartial[- ]arts?\b|\bfighting styles?\b|武术|功夫",
        """karate judo taekwondo kung-fu jiu-jitsu jujitsu kickboxing boxing aikido
        wrestling krav-maga tai-chi 空手道 柔道 跆拳道 功夫 柔术 拳击 泰拳 合气道 摔跤 太极 散打""",
    ),
    _row(
        "instrument",
        r"\b(?:musical )?instruments?\b|乐器",
        """piano guitar violin cello viola drums drum flute clarinet saxophone sax trumpet
        trombone harp ukulele banjo harmonica accordion oboe 钢琴 吉他 小提琴 大提琴
        中提琴 贝斯 鼓 架子鼓 长笛 单簧管 萨克斯 小号 长号 竖琴 尤克里里 口琴 电子琴 手风琴 二胡 古筝
        琵琶 笛子""",
    ),
    _row(
        "pet",
        r"\bpets?\b|宠物",
        """dog dogs puppy pup cat cats kitten hamster rabbit bunny parrot bird goldfish turtle
        turtles tortoise snake lizard guinea-pig ferret 狗 小狗 狗狗 猫 小猫 猫咪 仓鼠 兔子 鹦鹉
        金鱼 乌龟 蛇 蜥蜴 豚鼠""",
    ),
    _row(
        "sport",
        r"\bsports?\b|\bexercis(?:e|es|ing)\b|\bworkouts?\b|\bwork(?:ing)? out\b"
        r"|\bfitness\b|运动|体育|锻炼|健身",
        f"{_SPORTS_EN} {_SPORTS_ZH}",
    ),
    _row(
        "art",
        r"\b(?:art|arts|artwork|artworks|art forms?|crafts?)\b|艺术|手工|作品",
        f"{_ART_EN} {_ART_ZH}",
    ),
    _row(
        "outdoor",
        r"\boutdoors?\b|\boutdoor activit(?:y|ies)\b|\bnature\b|户外|大自然",
        f"{_OUTDOOR_EN} {_OUTDOOR_ZH}",
    ),
    _row(
        "hobby",
        r"\bhobb(?:y|ies)\b|\bactivit(?:y|ies)\b|\bpastimes?\b|\bfor fun\b"
        r"|\bfree time\b|\bspare time\b|爱好|(?<!感)兴趣|活动|业余",  # 感兴趣: "interested in"
        f"{_HOBBIES_EN} {_HOBBIES_ZH} {_SPORTS_EN} {_ART_EN} {_OUTDOOR_EN} {_SPORTS_ZH} {_ART_ZH}"
        f" {_OUTDOOR_ZH}",
    ),
    _row(
        "europe",
        r"\beurope(?:an)?\b|欧洲",
        f"{_EUROPE_EN} {_EUROPE_CITIES_EN} {_EUROPE_ZH} {_EUROPE_CITIES_ZH}",
    ),
    _row(
        "asia",
        r"\basia(?:n)?\b|亚洲",
        f"{_ASIA_EN} {_ASIA_CITIES_EN} {_ASIA_ZH} {_ASIA_CITIES_ZH}",
    ),
    _row(
        "country",
        r"\bcountr(?:y|ies)\b|\babroad\b|\boverseas\b|国家|出国|国外",
        f"{_EUROPE_EN} {_ASIA_EN} {_AMERICAS_EN} {_OTHER_EN} {_EUROPE_ZH} {_ASIA_ZH} {_AMERICAS_ZH}"
        f" {_OTHER_ZH} {_EUROPE_CITIES_EN} {_ASIA_CITIES_EN} {_EUROPE_CITIES_ZH} {_ASIA_CITIES_ZH}",
    ),
    _row(
        "city",
        r"\bcit(?:y|ies)\b|\btowns?\b|城市",
        f"{_CITIES_EN} {_CITIES_ZH}",
    ),
    _row(
        "game",
        r"\b(?:video |board |computer |mobile )?games?\b|\bgaming\b|游戏|桌游",
        """chess checkers monopoly scrabble catan ticket-to-ride poker uno mahjong minecraft
        fortnite zelda mario pokemon tetris overwatch valorant fifa halo tekken street-fighter
        counter-strike league-of-legends xbox playstation nintendo switch console steam
        象棋 围棋 国际象棋 麻将 扑克 大富翁 狼人杀 剧本杀 王者荣耀 原神 我的世界 塞尔达 马里奥 宝可梦""",
    ),
    _row(
        "animal",
        r"\banimals?\b|\bcreatures?\b|动物",
        """dog dogs puppy cat cats kitten horse horses bird birds turtle turtles tortoise rabbit
        hamster fish parrot snake lizard frog cow pig sheep goat chicken duck deer fox wolf bear
        lion tiger elephant giraffe monkey panda dolphin whale shark owl eagle butterfly 狗 猫 马
        鸟 乌龟 兔子 仓鼠 鹦鹉 蛇 青蛙 熊猫 老虎 狮子 大象 长颈鹿 猴子 海豚 鲸鱼 猫头鹰 蝴蝶 小狗 小猫""",
    ),
    _row(
        "writing",
        r"\bwritings?\b|\bwrit(?:e|es|ing)\b|写作|写了什么",
        """poem poems poetry story stories novel novels screenplay screenplays script scripts
        essay essays blog journal diary article articles song songs lyrics book memoir letter
        letters 诗 诗歌 小说 故事 剧本 散文 博客 日记 文章 歌词 回忆录""",
    ),
    _row(
        "allergen",
        r"\ballerg(?:y|ies|ic)\b|过敏",
        """peanut peanuts nut nuts shellfish shrimp seafood dairy milk lactose gluten wheat egg
        eggs soy pollen dust mold cats dogs pet fur penicillin bees latex reptiles 花生 坚果 海鲜 虾
        牛奶 乳糖 麸质 小麦 鸡蛋 大豆 花粉 尘螨 霉菌 猫毛 狗毛 青霉素 蜜蜂""",
    ),
    _row(
        "cause",
        r"\bcauses?\b|\bcharit(?:y|ies)\b|公益|慈善",
        """education environment climate poverty homelessness homeless hunger veterans animal
        animals shelter refugees health mental-health cancer disability disabilities lgbtq
        equality justice literacy infrastructure community children kids 教育 环保 气候 扶贫
        流浪 动物保护 老兵 难民 心理健康 癌症 残疾 平等 儿童 社区""",
    ),
    _row(
        "language",
        r"\blanguages?\b|(?<!编程)语言|外语",  # a programming language is another kind
        """english spanish french german italian portuguese chinese mandarin cantonese japanese
        korean russian arabic hindi dutch swedish 英语 西班牙语 法语 德语 意大利语 葡萄牙语 中文 普通话
        粤语 日语 韩语 俄语 阿拉伯语""",
    ),
    _row(  # what is baked: "how many times did I bake", "desserts", 烘焙
        "baked",
        r"\bdesserts?\b|\bbaked goods\b|\btreats?\b|\bsweets\b|\bbak(?:e|es|ed|ing)\b"
        r"|甜点|甜品|点心|烘焙|烤了什么",
        """cake cakes cupcake cupcakes cookie cookies pie pies brownie brownies muffin muffins
        tart pastry pastries pudding cheesecake macaron donut donuts bread loaf sourdough
        baguette croissant croissants scone scones biscuits 蛋糕 饼干 派 布朗尼 松饼 蛋挞 冰淇淋
        布丁 芝士蛋糕 马卡龙 甜甜圈 面包 吐司 欧包 司康 可颂""",
    ),
)


@dataclass(frozen=True)
class Kind:
    """A kind a request names: its own terms in the request (search tokens) and its members'."""

    name: str
    terms: frozenset[str]
    members: frozenset[str]
    #: the keyword queries that search its members: those of the request's language, the first
    #: SEARCHED of the row (each searched word costs the keyword index about 0.05 ms), at most
    #: `text.FTS_TERMS` search tokens a query (a Chinese member may be two: 跆拳道 -> 跆拳, 跆拳道)
    searches: tuple[str, ...]
    #: members of several words, each named only by all of its words ("Senior Marketing
    #: Specialist": the user's own job, `subjects.profile_kinds`)
    phrases: tuple[frozenset[str], ...] = ()

    def named_in(self, tokens: frozenset[str], text: str) -> bool:
        """A memory (its search tokens, its lower-cased text) names a member: as one of its
        words, or a Chinese member of two characters or more inside its text (one character is
        too often part of another word: 鼓 of 鼓励, 狗 of 热狗), or all the words of a phrase."""
        return (
            not self.members.isdisjoint(tokens)
            or any(m in text for m in self.members if len(m) >= 2 and not m.isascii())
            or any(p <= tokens for p in self.phrases)
        )


def kinds_named(text: str) -> tuple[Kind, ...]:
    """The kinds the request names. A kind named inside another's words ("art" in "martial arts")
    is not named; of two kinds where one's members are all the other's ("European countries":
    Europe within countries), the narrower one is meant."""
    found: list[tuple[Kind, tuple[int, int]]] = []
    for row in KINDS:
        m = row.pattern.search(text)
        if m is None or any(a < m.end() and m.start() < b for _, (a, b) in found):
            continue
        if m.group(0).isascii() and _another_kind(text[: m.start()]):
            continue
        members, searches = _members(row, m.group(0).isascii())
        found.append(
            (Kind(row.name, frozenset(search_tokens(m.group(0))), members, searches), m.span())
        )
    kinds = [k for k, _ in found]
    return tuple(k for k in kinds if not any(o is not k and o.members < k.members for o in kinds))


#: words that may stand before an English kind word and leave it the kind: determiners,
#: possessives and adjectives of the kind itself ("what activities", "her favourite sports",
#: "physical exercise"); another noun before it names another kind ("coding exercises", "social
#: media activity", "a work event")
_BEFORE = frozenset(
    """what which whose some any many few several other others new old different favorite
    favourite usual regular daily weekly fun physical outdoor indoor group family weekend
    creative leisure free-time main the a an these those this that his her their my your our
    its of in for kinds kind types type sorts sort forms form all both and or such similar
    doing do does did done play plays played playing has have had practise practice practices
    enjoy enjoys enjoyed like likes liked love loves loved take takes took into own are is was
    were""".split()
)
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z'-]*)\W*$")


def _another_kind(before: str) -> bool:
    """The word before an English kind word is a noun of its own: the words name another kind
    ("coding exercises" are no workout)."""
    m = _LAST_WORD.search(before)
    if m is None:
        return False
    word = m.group(1)
    if word[0].isupper() and before[: m.start()].strip():
        return False  # a name ("John's sports", "Melanie activities")
    return not word.endswith("'s") and word.lower() not in _BEFORE  # a possessive is no kind


#: how many members of a kind the keyword channel searches (the row's first, most common ones)
SEARCHED = tuned_int("kinds.searched")


@functools.lru_cache(maxsize=None)
def _members(row: KindRow, latin: bool) -> tuple[frozenset[str], tuple[str, ...]]:
    """The row's members as search tokens (both languages: a memory may name either), and the
    keyword queries over the words of the request's language, at most SEARCHED of them."""
    words = list(dict.fromkeys(w.replace("-", " ") for w in row.members.split()))
    searched = [w for w in words if w.replace(" ", "").isascii() == latin][:SEARCHED]
    members = frozenset(search_tokens(" ".join(words), drop_stopwords=True))
    return members, _queries(searched)


def _queries(words: list[str]) -> tuple[str, ...]:
    """words in order, grouped into texts of at most FTS_TERMS distinct search tokens each (a
    longer query would be cut: `text.fts_query`)."""
    out: list[str] = []
    group: list[str] = []
    terms: set[str] = set()
    for w in words:
        own = set(search_tokens(w, drop_stopwords=True))
        if group and len(terms | own) > FTS_TERMS:
            out.append(" ".join(group))
            group, terms = [], set()
        group.append(w)
        terms |= own
    return (*out, " ".join(group)) if group else tuple(out)


# List questions: a request that asks for several things ("what books has she read?", 哪些).
#
# Such a request is answered by memories spread over sessions, not by one memory and the turns
# around it: its ranking's head is ordered to cover several sessions (recall/head.py), the turns
# around its best one get half the session evidence (`rank.LIST_SESSION_SHARE`), each recalled
# turn comes with one more turn after it (`LIST_CONTEXT_AFTER`: in a dialogue the turn after a
# mention is where it is told about, "which one?" answered), and its block may hold more related
# memories (`long_term.list_top_k`, working_memory.py). "How many" of a unit of measure ("how many
# years older am I") asks an amount, not several things.

#: "what books", "which places", "what kinds of music", "how many times", "list", "every",
#: and Chinese 哪些 / 几次 / 多少次 / 哪几 / 都有, and an order of several (先后, 顺序)
_LIST = re.compile(
    r"\b(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?P<noun>[a-z]+(?:ies|[^s]s))\b"
    r"|\bhow\s+many\b|\bin\s+what\s+ways\b|\blist\b|\bevery\b|\ball\s+the\b"
    r"|哪些|几次|多少次|哪几|都有|顺序|先后",
    re.I,
)
#: a plural noun after a few modifiers, then the question's auxiliary: the plural is what is asked
#: for ("what LGBTQ+ events has she joined", "which US cities does he mention", "what martial arts
#: has John done"); without the auxiliary a plural after modifiers is often a subject or a
#: description ("what exciting news ... shared"); the modifiers are no auxiliary ("what do his
#: friends do" asks for one thing)
_LIST_MODIFIED = re.compile(
    r"\b(?:what|which)\s+(?:(?!(?:has|have|had|did|do|does|is|are|was|were)\b)[\w+/-]+\s+){1,2}?"
    r"(?P<noun>[a-z]+(?:ies|[^s]s))(?:/[a-z]+)?"
    r"\s+(?:has|have|had|did|do|does)\b",
    re.I,
)
#: a definite plural that a clause about someone makes a set of that person's doings: "the trips
#: I took", "the skills that Nate has helped others learn"; and what is put in order ("the order
#: of the concerts I attended", 先后, 顺序). "One of the challenges John faced" asks for one;
#: "what are the new shoes ... used for" (no clause of someone doing) is no list here
_LIST_DEFINITE = re.compile(
    r"\b(?:order|sequence)\s+of\s+(?:the\s+)?(?:[\w+/-]+\s+){0,2}?(?P<ordered>[a-z]+(?:ies|[^s]s))\b"
    r"|(?<!\bone of )\bthe\s+(?:(?!(?:has|have|had|did|do|does|is|are|was|were)\b)[\w+/-]+\s+){0,2}?"
    r"(?P<done>[a-z]+(?:ies|[^s]s))\s+(?:that\s+)?(?:(?:I|we|you|he|she|they)\s+[a-z]+"
    r"|(?-i:[A-Z][a-z]+)\s+(?:has\s+|had\s+)?[a-z]+ed)\b",
    re.I,
)
#: turns after a recalled turn a list question's unit shows besides `recall.episode_context_after`
LIST_CONTEXT_AFTER = tuned_int("listing.context_after")
#: units a measure is counted in: "how many years older am I", "how many days did the trip take"
#: ask an amount, not several things ("how many times", "how many books" do)
_UNIT_AFTER = re.compile(
    r"\s+(?:more\s+|fewer\s+|less\s+)?(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?"
    r"|dollars?|euros?|bucks|pounds?|miles?|kilometers?|kilometres?|km|kilos?|kilograms?|kg"
    r"|feet|foot|inches?|meters?|metres?|percent|calories?)\b",
    re.I,
)
#: words that end in s and are no plural nouns
_NOT_PLURAL = frozenset("does has was is this his its as us yes plus less thus always news".split())


def names_several(text: str) -> bool:
    """The request asks for several things: a list question ("what books", 哪些, how many).
    Naming two entities is not enough: most questions name a person and a place."""
    for pattern in (_LIST, _LIST_MODIFIED, _LIST_DEFINITE):
        for m in pattern.finditer(text):
            if m.group(0).lower().startswith("how") and _UNIT_AFTER.match(text, m.end()):
                continue
            noun = next((g for g in m.groupdict().values() if g), None)
            if noun is None or noun.lower() not in _NOT_PLURAL:
                return True
    return False
