#!/usr/bin/env bash
# Follow the README's OpenClaw setup literally, in a fresh $HOME, and check that memory works.
#
# Runs the lines between <!-- setup:begin --> and <!-- setup:end --> of README.md with bash, from
# the repository root, as a new user would. The README's one prerequisite (a model provider in
# OpenClaw) is met by a fake OpenAI-compatible server on 127.0.0.1 (tests/e2e/fake_model.py) and
# the Gateway's own settings (loopback, a token, the HTTP chat endpoint) are written first.
# Then two chats go through the Gateway; the second one's model request must carry the first's
# memory. Node and OpenClaw come from $OPENCLAW_CACHE when set (default: the real
# ~/.cache/openclaw-memory, so they are not downloaded again).
#
# Usage: scripts/check-readme-setup.sh        (exit 0 when memory reached the model)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export OPENCLAW_CACHE="${OPENCLAW_CACHE:-$HOME/.cache/openclaw-memory}"
WORK=$(mktemp -d)
export HOME="$WORK/home" OPENCLAW_NO_UPDATE_CHECK=1 NO_COLOR=1
unset OPENCLAW_MEMORY_TOKEN OPENCLAW_MEMORY_USER OPENCLAW_MEMORY_URL XDG_CONFIG_HOME XDG_DATA_HOME OPENCLAW_STATE_DIR
mkdir -p "$HOME/.openclaw"
PIDS=()
cleanup() {
  # the fake model, and what the README started in the background (the service, the gateway)
  if [ -f "$WORK/jobs.pid" ]; then while read -r pid; do PIDS+=("$pid"); done < "$WORK/jobs.pid"; fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 2
  rm -rf "$WORK"
}
trap cleanup EXIT

python3 -m tests.e2e.fake_model "$WORK/model.port" "$WORK/model.json" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/model.port" ] && break; sleep 0.1; done
MODEL_PORT=$(cat "$WORK/model.port")
GW_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$HOME/.openclaw/openclaw.json" <<JSON
{
  "models": {"providers": {"fake": {"baseUrl": "http://127.0.0.1:$MODEL_PORT/v1", "apiKey": "sk-fake",
    "api": "openai-completions", "models": [{"id": "fake-model", "name": "Fake", "input": ["text"],
    "contextWindow": 128000, "maxTokens": 4096, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}},
  "agents": {"defaults": {"model": {"primary": "fake/fake-model"}}},
  "memory": {"search": {"provider": "none"}},
  "gateway": {"mode": "local", "port": $GW_PORT, "bind": "loopback", "auth": {"mode": "token", "token": "readme-check"},
    "http": {"endpoints": {"chatCompletions": {"enabled": true}}}}
}
JSON

echo "check-readme-setup: running the README's setup block in $HOME" >&2
sed -n '/<!-- setup:begin -->/,/<!-- setup:end -->/p' README.md | sed '1,2d;$d' | sed '$d' > "$WORK/setup.sh"
started=$(date +%s)
bash -euo pipefail -c "source '$WORK/setup.sh'; jobs -p > '$WORK/jobs.pid'"
echo "check-readme-setup: setup block done in $(( $(date +%s) - started )) s" >&2

PATH="$HOME/.openclaw-memory/venv/bin:$PATH" python3 - "$GW_PORT" "$WORK/model.json" <<'PY'
import json, sys, time, urllib.request

port, log = sys.argv[1], sys.argv[2]

def chat(text, session="agent:main:readme"):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        data=json.dumps({"model": "openclaw/main", "messages": [{"role": "user", "content": text}]}).encode(),
        headers={"content-type": "application/json", "authorization": "Bearer readme-check",
                 "x-openclaw-session-key": session})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)

deadline = time.time() + 300
while True:
    try:
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/v1/models",
                               headers={"authorization": "Bearer readme-check"}), timeout=5)
        break
    except Exception:
        if time.time() > deadline:
            sys.exit("check-readme-setup: the gateway did not come up within 300 s")
        time.sleep(1)
chat("请记住：我对花生过敏，推荐菜的时候要避开花生")
time.sleep(2)
chat("今晚推荐一道菜？", session="agent:main:readme-2")
bodies = json.load(open(log))
system = "\n".join(str(m.get("content")) for m in bodies[-1]["messages"] if m.get("role") in ("system", "developer"))
if "花生" not in system:
    sys.exit("check-readme-setup: FAILED: the second chat's model request has no memory of the first")
print("check-readme-setup: OK: the memory of the first chat reached the model in the second")
PY
