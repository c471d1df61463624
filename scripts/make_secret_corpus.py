"""Writes tests/data/secrets/secrets_en_zh.txt: one secret-bearing line per row, English and
Chinese, many kinds and shapes, every value made up here (random, fixed seed).

    python scripts/make_secret_corpus.py

Row format (tab-separated): kind, text, secret. `\\n` in a text stands for a line break; the
secret is the exact string that must not reach the disk. The file is committed; rerunning
this script with the same seed writes the same file.
"""

from __future__ import annotations

import base64
import random
import string
import sys
from collections.abc import Callable
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "secrets" / "secrets_en_zh.txt"
rng = random.Random(20261207)
ALNUM = string.ascii_letters + string.digits
LOWER_HEX = "0123456789abcdef"


def pick(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(n: int, extra: str = "") -> str:
    """Random text with upper, lower and digits present (like every real token)."""
    while True:
        value = pick(ALNUM + extra, n)
        if any(c.isupper() for c in value) and any(c.islower() for c in value):
            if any(c.isdigit() for c in value):
                return value


def password() -> str:
    words = ["Maple", "River", "Tiger", "Cloud", "Panda", "Lotus", "Orbit", "Cobalt", "Summit"]
    return (
        rng.choice(words)
        + pick(string.digits, rng.randint(2, 4))
        + rng.choice("!#@$%&*")
        + (pick(string.ascii_lowercase, rng.randint(1, 3)))
    )


def luhn_card(prefix: str, length: int) -> str:
    body = prefix + pick(string.digits, length - len(prefix) - 1)
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def cn_id() -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    area = rng.choice(["110101", "310104", "440305", "330106", "510107", "320102"])
    born = f"{rng.randint(1960, 2005)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
    body = area + born + pick(string.digits, 3)
    check = "10X98765432"[sum(int(d) * w for d, w in zip(body, weights)) % 11]
    return body + check


def ssn() -> str:
    area = rng.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def jwt() -> str:
    def part(obj: str) -> str:
        return base64.urlsafe_b64encode(obj.encode()).decode().rstrip("=")

    head = part('{"alg":"HS256","typ":"JWT"}')
    body = part(f'{{"sub":"{rng.randint(1000, 99999)}","name":"user{rng.randint(1, 999)}"}}')
    return f"{head}.{body}.{mixed(43, '_-')}"


def pem() -> str:
    lines = [mixed(64, "+/") for _ in range(3)]
    return (
        "-----BEGIN RSA PRIVATE KEY-----\\n"
        + "\\n".join(lines)
        + "\\n-----END RSA PRIVATE KEY-----"
    )


# --- generators: kind -> (value maker, English templates, Chinese templates) -----------------

Gen = tuple[str, Callable[[], str], list[str], list[str]]
GENERATORS: list[Gen] = [
    (
        "api_key",
        lambda: "sk-proj-" + mixed(48, "_-"),
        [
            "export OPENAI_API_KEY={v}",
            "my OpenAI key is {v}, keep it safe",
            'client = OpenAI(api_key="{v}")',
        ],
        ["我的 OpenAI key 是 {v}", "把这个 key 配到环境变量里：{v}"],
    ),
    (
        "api_key",
        lambda: "sk-ant-api03-" + mixed(80, "_-"),
        ["ANTHROPIC_API_KEY={v}", "use the Anthropic key {v} for the eval run"],
        ["Claude 的密钥是 {v}", "测试用的 anthropic key：{v}"],
    ),
    (
        "api_key",
        lambda: "ghp_" + mixed(36),
        ["git clone https://{v}@github.com/acme/app.git", "GitHub token: {v}"],
        ["GitHub 令牌 {v} 下周过期", "用 {v} 推代码到仓库"],
    ),
    (
        "api_key",
        lambda: "github_pat_11" + mixed(20) + "_" + mixed(59),
        ["fine-grained PAT {v}"],
        ["新的 GitHub 细粒度令牌：{v}"],
    ),
    ("api_key", lambda: "gho_" + mixed(36), ["oauth token {v} from the app"], ["OAuth 令牌 {v}"]),
    (
        "api_key",
        lambda: "xoxb-" + pick(string.digits, 12) + "-" + pick(string.digits, 13) + "-" + mixed(24),
        ["slack bot token {v}", "SLACK_BOT_TOKEN={v}"],
        ["Slack 机器人令牌是 {v}"],
    ),
    (
        "api_key",
        lambda: "sk_live_" + mixed(24),
        ["stripe secret {v}", "Stripe.api_key = '{v}'"],
        ["Stripe 正式环境密钥 {v}"],
    ),
    (
        "api_key",
        lambda: "rk_live_" + mixed(24),
        ["restricted stripe key {v}"],
        ["受限的 Stripe key：{v}"],
    ),
    (
        "api_key",
        lambda: "whsec_" + mixed(32),
        ["webhook signing secret {v}"],
        ["webhook 签名密钥 {v}"],
    ),
    (
        "api_key",
        lambda: "AIza" + mixed(35, "_-"),
        ["Google Maps key AIza... full: {v}", "GOOGLE_API_KEY={v}"],
        ["谷歌地图的 key 是 {v}"],
    ),
    (
        "api_key",
        lambda: "GOCSPX-" + mixed(28, "_-"),
        ["google oauth client secret {v}"],
        ["谷歌 OAuth 客户端密钥 {v}"],
    ),
    (
        "api_key",
        lambda: "AKIA" + pick(string.ascii_uppercase + string.digits, 16),
        ["AWS access key id {v}", "aws_access_key_id = {v}"],
        ["AWS 访问密钥 ID：{v}"],
    ),
    (
        "api_key",
        lambda: "ASIA" + pick(string.ascii_uppercase + string.digits, 16),
        ["temporary AWS key {v} from STS"],
        ["STS 临时凭证 {v}"],
    ),
    (
        "api_key",
        lambda: mixed(40, "/+"),
        ["AWS_SECRET_ACCESS_KEY={v}", "aws_secret_access_key: {v}"],
        ["AWS 秘密访问密钥：{v}"],
    ),
    (
        "api_key",
        jwt,
        ["Authorization: Bearer {v}", "the session JWT is {v}"],
        ["登录后拿到的 JWT：{v}"],
    ),
    (
        "api_key",
        lambda: f"{rng.randint(100000000, 9999999999)}:AA" + mixed(33, "_-"),
        ["telegram bot token {v}", "TELEGRAM_BOT_TOKEN={v}", "bot = Bot('{v}')"],
        ["Telegram 机器人的 token：{v}", "电报机器人令牌 {v}"],
    ),
    (
        "api_key",
        lambda: rng.choice("MNO") + mixed(25, "_-") + "." + mixed(6, "_-") + "." + mixed(38, "_-"),
        ["discord bot token {v}", "client.run('{v}')"],
        ["Discord 机器人令牌 {v}"],
    ),
    (
        "api_key",
        lambda: base64.b64encode(rng.randbytes(64)).decode(),
        [
            "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={v};EndpointSuffix=core.windows.net"
        ],
        ["Azure 存储连接串 AccountName=acme;AccountKey={v};"],
    ),
    (
        "api_key",
        lambda: pick(ALNUM, 3) + str(rng.randint(0, 9)) + "Q~" + mixed(34, "_-."),
        ["AZURE_CLIENT_SECRET={v}", "azure app registration client secret {v}"],
        ["Azure 应用的客户端密码 {v}"],
    ),
    (
        "api_key",
        lambda: "dop_v1_" + pick(LOWER_HEX, 64),
        ["DIGITALOCEAN_TOKEN={v}", "doctl auth init -t {v}"],
        ["DigitalOcean 的 API 令牌 {v}"],
    ),
    (
        "api_key",
        lambda: "LTAI" + mixed(20),
        ["aliyun access key id {v}"],
        ["阿里云 AccessKey ID：{v}", "阿里云的 AK 是 {v}"],
    ),
    (
        "api_key",
        lambda: "AKID" + mixed(32),
        ["tencent cloud SecretId {v}"],
        ["腾讯云 SecretId {v}", "腾讯云密钥 ID 是 {v}"],
    ),
    (
        "api_key",
        lambda: "key-" + pick(LOWER_HEX, 32),
        ["mailgun api key {v}", "MAILGUN_API_KEY={v}"],
        ["Mailgun 的密钥 {v}"],
    ),
    (
        "api_key",
        lambda: "shpat_" + pick(LOWER_HEX, 32),
        ["shopify admin token {v}"],
        ["Shopify 店铺令牌 {v}"],
    ),
    (
        "api_key",
        lambda: "shpss_" + pick(LOWER_HEX, 32),
        ["shopify shared secret {v}"],
        ["Shopify 共享密钥 {v}"],
    ),
    ("api_key", lambda: "glpat-" + mixed(20, "_-"), ["gitlab token {v}"], ["GitLab 访问令牌 {v}"]),
    (
        "api_key",
        lambda: "npm_" + mixed(36),
        ["//registry.npmjs.org/:_authToken={v}"],
        ["npm 发布令牌 {v}"],
    ),
    ("api_key", lambda: "hf_" + mixed(34), ["HF_TOKEN={v}"], ["Hugging Face 的 token {v}"]),
    (
        "api_key",
        lambda: "SG." + mixed(22, "_-") + "." + mixed(43, "_-"),
        ["sendgrid key {v}"],
        ["SendGrid 密钥 {v}"],
    ),
    (
        "api_key",
        lambda: "SK" + pick(LOWER_HEX, 32),
        ["twilio api key sid {v}"],
        ["Twilio 的 API key {v}"],
    ),
    ("api_key", lambda: "hvs." + mixed(24), ["VAULT_TOKEN={v}"], ["Vault 令牌 {v}"]),
    (
        "api_key",
        lambda: "pypi-AgEIcHlwaS5vcmc" + mixed(60, "_-"),
        ["twine upload -p {v} dist/*"],
        ["PyPI 上传令牌 {v}"],
    ),
    (
        "api_key",
        lambda: mixed(32),
        [
            '{{"api_key": "{v}", "region": "eu"}}',
            "X-Api-Key: {v}",
            "curl -H 'X-API-Key: {v}' https://api.example.com",
        ],
        ['{{"密钥": "{v}"}}', "接口密钥：{v}"],
    ),
    (
        "api_key",
        lambda: mixed(28, "-_"),
        ["the token for the staging cluster is {v}", "set the secret to {v} before deploy"],
        ["测试环境的令牌是 {v}", "私钥口令 {v}，不要外传"],
    ),
    (
        "api_key",
        lambda: mixed(24),
        ["https://api.example.com/v1/items?token={v}&page=2", "--token={v}", "--api-key {v}"],
        ["请求地址 https://api.example.cn/q?access_token={v}&id=3"],
    ),
    (
        "password",
        password,
        [
            "my password is {v}",
            "the wifi password is {v}",
            "password: {v}",
            "Login: alice / password {v}",
        ],
        ["我的密码是{v}", "WiFi 密码：{v}", "邮箱登录口令为 {v}", "新密码改成了 {v}"],
    ),
    (
        "password",
        password,
        ['{{"password": "{v}"}}', "{{'user': 'bob', 'password': '{v}'}}", 'password = "{v}"'],
        ['{{"密码": "{v}"}}', '配置文件里写着 password: "{v}"'],
    ),
    (
        "password",
        password,
        [
            "DB_PASSWORD={v}",
            "export PGPASSWORD={v}",
            "MYSQL_ROOT_PASSWORD={v}",
            "REDIS_PASSWORD={v}",
            "spring.datasource.password={v}",
        ],
        ["数据库环境变量 DB_PASSWORD={v}", "启动前先 export PGPASSWORD={v}"],
    ),
    (
        "password",
        password,
        [
            "mysql -u root -p{v} shop",
            "sshpass -p '{v}' ssh deploy@10.0.0.5",
            "redis-cli -a {v} ping",
            "docker login -u bob -p {v} registry.example.com",
            "psql --password {v}",
            "./run --password {v} --verbose",
            "zip -P {v} backup.zip notes.txt",
        ],
        ["用这个命令连库：mysql -uroot -p{v}", "执行 sshpass -p {v} ssh root@host"],
    ),
    (
        "password",
        password,
        ["curl -u admin:{v} https://ci.example.com/api", "smbclient //nas/share -U bob%{v}"],
        ["接口要认证：curl -u admin:{v} http://内网地址"],
    ),
    (
        "password",
        password,
        [
            "postgres://app:{v}@db.internal:5432/app",
            "mongodb+srv://admin:{v}@cluster0.example.net/test",
            "redis://:{v}@cache:6379/0",
            "amqp://guest:{v}@mq:5672/",
        ],
        ["数据库连接串 mysql://root:{v}@127.0.0.1:3306/shop", "连接 postgresql://dev:{v}@pg/dev"],
    ),
    (
        "password",
        password,
        ["Server=db;Database=shop;User Id=sa;Password={v};"],
        ["连接字符串 Server=db;User Id=sa;Password={v};"],
    ),
    (
        "api_key",
        lambda: base64.b64encode(f"admin:{password()}".encode()).decode(),
        ["Authorization: Basic {v}", 'curl -H "Authorization: Basic {v}" https://x.example.com'],
        ["请求头带上 Authorization: Basic {v}"],
    ),
    (
        "api_key",
        lambda: mixed(40, "-_."),
        ["Authorization: Bearer {v}", "headers = {{'Authorization': 'Bearer {v}'}}"],
        ["接口鉴权头 Authorization: Bearer {v}"],
    ),
    ("private_key", pem, ["here is the deploy key {v}"], ["部署私钥：{v}"]),
    (
        "card_number",
        lambda: luhn_card("4", 16),
        ["my visa card {v}", "card number: {v}"],
        ["我的信用卡号 {v}"],
    ),
    (
        "card_number",
        lambda: luhn_card("5", 16),
        ["mastercard {v} expires 09/28"],
        ["银行卡 {v}，有效期 09/28"],
    ),
    (
        "cn_id",
        cn_id,
        ["my Chinese ID number is {v}"],
        ["身份证号 {v}", "我的身份证是{v}，帮我填表"],
    ),
    (
        "ssn",
        ssn,
        ["my SSN is {v}", "social security number {v}", "SSN: {v} for the tax form"],
        ["美国社会安全号 {v}", "他的 SSN 是 {v}"],
    ),
    (
        "passport",
        lambda: (
            rng.choice(["E", "EA", "G", "K"]) + pick(string.digits, 8 if rng.random() < 0.5 else 7)
        ),
        ["passport number {v}", "my passport is {v}, expires 2031"],
        ["护照号码：{v}", "我的护照号是 {v}"],
    ),
    (
        "passport",
        lambda: str(rng.randint(100000000, 999999999)),
        ["US passport no. {v}"],
        ["美国护照号 {v}"],
    ),
]


def rows(target: int) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    while len(out) < target:
        for kind, make, en, zh in GENERATORS:
            for template in en + zh:
                value = make()
                if value in seen:
                    continue
                seen.add(value)
                secret = value.split("\\n")[1] if kind == "private_key" else value
                out.append((kind, template.format(v=value), secret))
    return out


def main() -> None:
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 320
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# kind\ttext\tsecret  (made-up values; \\n in a text stands for a line break)"]
    lines += ["\t".join(row) for row in rows(target)]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} lines -> {OUT}")


if __name__ == "__main__":
    main()
