"""Word lists and sentence templates for the synthetic benchmark data, in Chinese and English.

Each memory template comes with paraphrase-ish questions that should recall it: they share the
memory's distinctive value (a PRD number, a city, a file) but not its wording. Templates are
`str.format` strings; the generators in `synth.py` fill them.
"""

from __future__ import annotations

PEOPLE = (
    "张伟",
    "李娜",
    "王芳",
    "刘洋",
    "陈静",
    "杨磊",
    "赵敏",
    "黄强",
    "周杰",
    "吴倩",
    "Alice",
    "Bob",
    "Carol",
    "David",
    "Emma",
    "Frank",
    "Grace",
    "Henry",
    "Ivy",
    "Jack",
)
CITIES = (
    ("北京", "Beijing"),
    ("上海", "Shanghai"),
    ("深圳", "Shenzhen"),
    ("杭州", "Hangzhou"),
    ("成都", "Chengdu"),
    ("南京", "Nanjing"),
    ("西安", "Xi'an"),
    ("武汉", "Wuhan"),
    ("新加坡", "Singapore"),
    ("东京", "Tokyo"),
    ("柏林", "Berlin"),
    ("伦敦", "London"),
)
COMPANIES = (
    "星河科技",
    "云帆数据",
    "蓝鲸智能",
    "北辰软件",
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella Labs",
)
JOBS = (
    ("后端工程师", "backend engineer"),
    ("产品经理", "product manager"),
    ("数据分析师", "data analyst"),
    ("前端工程师", "frontend engineer"),
    ("运维工程师", "SRE"),
    ("测试工程师", "QA engineer"),
    ("算法工程师", "machine learning engineer"),
    ("技术负责人", "tech lead"),
)
FEATURES = (
    ("登录鉴权", "login and auth"),
    ("支付回调", "payment callback"),
    ("消息推送", "push notifications"),
    ("订单导出", "order export"),
    ("权限管理", "role management"),
    ("搜索排序", "search ranking"),
    ("数据看板", "analytics dashboard"),
    ("灰度发布", "canary release"),
    ("多语言", "localisation"),
    ("离线同步", "offline sync"),
    ("限流熔断", "rate limiting"),
    ("日志审计", "audit logging"),
)
STATUSES = (
    ("评审中", "in review"),
    ("开发中", "in development"),
    ("已提测", "in QA"),
    ("阻塞", "blocked"),
    ("已上线", "released"),
    ("已延期", "delayed"),
)
ASPECTS = (
    ("鉴权方案", "auth scheme", ("JWT", "Session Cookie", "OAuth2")),
    ("数据库", "database", ("PostgreSQL", "MySQL", "SQLite")),
    ("消息队列", "message queue", ("Kafka", "RabbitMQ", "Redis Streams")),
    ("部署方式", "deployment", ("Kubernetes", "Docker Compose", "serverless")),
    ("前端框架", "frontend framework", ("React", "Vue", "Svelte")),
    ("缓存策略", "caching", ("Redis", "in-process LRU", "CDN")),
)
REASONS = (
    ("团队更熟悉", "the team knows it well"),
    ("运维成本更低", "it is cheaper to run"),
    ("性能压测结果更好", "it won the load test"),
    ("客户合同要求", "the customer contract requires it"),
    ("和现有系统兼容", "it fits the existing stack"),
    ("安全评审建议", "security review recommended it"),
)
FILES = (
    "src/api/orders.py",
    "src/auth/token.py",
    "web/src/pages/Login.tsx",
    "services/push/worker.go",
    "infra/k8s/deploy.yaml",
    "tests/test_payment.py",
    "scripts/migrate_2024.sql",
    "docs/PRD.md",
    "src/search/rank.py",
    "app/models/user.rb",
    "lib/cache/lru.ts",
    "cmd/server/main.go",
)
TOOLS = (
    ("run_tests", "跑测试", "test run"),
    ("git_push", "推送代码", "git push"),
    ("deploy", "部署", "deployment"),
    ("db_migrate", "数据库迁移", "database migration"),
    ("lint", "代码检查", "lint"),
    ("http_request", "接口调用", "API call"),
)
ERRORS = (
    "AssertionError: expected 200, got 500",
    "TimeoutError: upstream did not answer in 30s",
    "connection refused (port 5432)",
    "permission denied: /var/run/docker.sock",
    "ModuleNotFoundError: No module named 'redis'",
    "merge conflict in {file}",
    "数据库连接池耗尽",
    "证书已过期",
    "磁盘空间不足",
)

#: (subject, zh memory, en memory, zh questions, en questions, zh values, en values)
PREFERENCES = (
    (
        "drink",
        "早上习惯喝{v}，不加糖",
        "Drinks {v} in the morning, no sugar",
        ("我早上一般喝点什么？", "帮我点杯我平时爱喝的"),
        ("What do I usually drink in the morning?", "Order me my usual morning drink"),
        ("美式咖啡", "拿铁", "乌龙茶", "豆浆"),
        ("black coffee", "a flat white", "green tea", "oat milk chai"),
    ),
    (
        "reply_style",
        "回复要{v}，先给结论再解释",
        "Wants replies {v}, conclusion first",
        ("你回答我的时候应该注意什么风格？",),
        ("How should you format answers for me?",),
        ("简洁", "分点列出", "带表格"),
        ("short", "as bullet points", "with a table"),
    ),
    (
        "language",
        "以后默认用{v}回复",
        "Reply in {v} by default from now on",
        ("我希望你用什么语言回答？",),
        ("Which language should you answer me in?",),
        ("中文", "英文", "中英双语"),
        ("English", "Chinese", "both English and Chinese"),
    ),
    (
        "editor",
        "写代码用{v}，快捷键按默认的来",
        "Codes in {v} with default keybindings",
        ("我平时用什么编辑器？",),
        ("What editor do I code in?",),
        ("VS Code", "Vim", "JetBrains"),
        ("VS Code", "Neovim", "Emacs"),
    ),
    (
        "food",
        "不吃{v}，订餐时要避开",
        "Does not eat {v}; avoid it when ordering food",
        ("订外卖时我有什么忌口？",),
        ("Anything I can't eat when you order lunch?",),
        ("香菜", "花生", "海鲜"),
        ("peanuts", "shellfish", "pork"),
    ),
    (
        "meeting",
        "开会尽量安排在{v}",
        "Prefers meetings in the {v}",
        ("帮我约会议一般放在什么时候？",),
        ("When do I like my meetings scheduled?",),
        ("上午十点以后", "下午", "周二周四"),
        ("late morning", "afternoon", "first half of the week"),
    ),
    (
        "code_lang",
        "新项目优先用{v}写",
        "Prefers {v} for new projects",
        ("新项目我一般用什么语言？",),
        ("Which language do I pick for new projects?",),
        ("Python", "Go", "Rust", "TypeScript"),
        ("Python", "Go", "Rust", "Kotlin"),
    ),
)
PROFILE = (
    (
        "name",
        "用户名叫{v}",
        "The user's name is {v}",
        ("你还记得我叫什么吗？",),
        ("Do you remember my name?",),
    ),
    (
        "employer",
        "用户在{v}工作",
        "Works at {v}",
        ("我在哪家公司上班来着？",),
        ("Where do I work again?",),
    ),
    (
        "location",
        "常住{v}",
        "Lives in {v}",
        ("我现在住在哪个城市？",),
        ("Which city am I based in?",),
    ),
    ("job", "职业是{v}", "Works as a {v}", ("我是做什么工作的？",), ("What is my job?",)),
    (
        "timezone",
        "所在时区是{v}",
        "Time zone is {v}",
        ("我在哪个时区？",),
        ("What time zone am I in?",),
    ),
)
TIMEZONES = ("UTC+8", "UTC+9", "UTC+1", "UTC-5", "UTC+0")

EPISODES_ZH = (
    "下周我要去{city}出差三天，帮我看看{company}附近有什么好吃的。",
    "{person}刚才在群里说{feature}的接口改了，我需要重新对一下字段。",
    "昨天线上{feature}出了点问题，排查了一晚上，最后发现是{file}里配置写错了。",
    "我打算这周把{feature}的单元测试补齐，覆盖率先做到百分之八十。",
    "帮我写一封邮件给{person}，说明{prd}要延期一周，原因是依赖的服务还没准备好。",
    "周末想带家人去{city}玩两天，有什么推荐的路线吗？",
    "我们组下个季度的重点是{feature}和性能优化，你帮我列一个计划草稿。",
    "{person}问我{prd}的验收标准是什么，我记得上次评审定过，但细节记不清了。",
)
EPISODES_EN = (
    "I'm flying to {city_en} next week for three days; find me something good to eat near {company}.",
    "{person} just said in the channel that the {feature_en} API changed, so I need to recheck the fields.",
    "Production {feature_en} broke last night; after hours of digging it was a bad setting in {file}.",
    "This week I want to finish the unit tests for {feature_en} and get coverage to eighty percent.",
    "Draft an email to {person} saying {prd} slips a week because an upstream service is not ready.",
    "Thinking of taking the family to {city_en} for the weekend, any route you'd suggest?",
    "Next quarter our team focuses on {feature_en} and performance work; sketch a plan for me.",
    "{person} asked what the acceptance criteria for {prd} are; we agreed on them in review but I forget.",
)
EPISODE_QUESTIONS_ZH = ("我之前提到{key}的事，你还记得吗？", "关于{key}我们上次聊到哪了？")
EPISODE_QUESTIONS_EN = (
    "Do you remember what I said about {key}?",
    "Where did we leave things on {key}?",
)
REPLIES_ZH = (
    "好的，我整理了一下要点：第一，先确认需求范围；第二，排好优先级；第三，约相关同事对齐。",
    "明白。我建议先从影响最大的部分入手，有进展随时告诉我，我再帮你细化。",
    "收到，下面是一个初步方案，你看看哪里需要调整。",
)
REPLIES_EN = (
    "Sure. Here are the key points: confirm the scope, set priorities, then align with the people involved.",
    "Got it. I'd start with the part that has the most impact; tell me how it goes and I'll refine it.",
    "Understood, here's a first draft of the plan; tell me what to change.",
)
SYSTEM_ZH = "你是一个可靠的中文助理，回答准确、简洁，必要时给出步骤。"
SYSTEM_EN = "You are a helpful, precise assistant. Answer concisely and show steps when useful."
FILLER_TURNS = ("好的谢谢", "ok thanks", "嗯嗯", "got it 👍")
