// openclaw-memory: an OpenClaw plugin that forwards memory hooks and tools to the Python
// service (`openclaw-memory serve`, 127.0.0.1:8765 by default). No npm dependencies.
//
// Fail open: every call has a short timeout; on any failure the plugin logs one line and OpenClaw
// carries on without memory. Writes that fail (captures, tool events, session ends) are spooled
// to a JSONL file and replayed after the next successful call.
//
// Who a memory belongs to: the channel sender (ctx.senderId). Runs without a sender (local CLI,
// web chat, cron) fall back to $OPENCLAW_MEMORY_USER, then to "anonymous".

import { tmpdir } from "node:os";
import { join } from "node:path";

import { createClient, describe } from "./client.js";
import { createHooks } from "./hooks.js";
import { OWN_TOOLS, PLUGIN_ID, createScopes } from "./messages.js";
import { createTools } from "./tools.js";

/** Plugin config with defaults; env OPENCLAW_MEMORY_URL / OPENCLAW_MEMORY_TOKEN fill gaps. */
export function resolveConfig(raw, env = process.env) {
  const cfg = raw && typeof raw === "object" ? raw : {};
  return {
    enabled: cfg.enabled !== false,
    serviceUrl: String(cfg.serviceUrl || env.OPENCLAW_MEMORY_URL || "http://127.0.0.1:8765").replace(/\/+$/, ""),
    token: String(cfg.token || env.OPENCLAW_MEMORY_TOKEN || ""),
    inject: cfg.inject === "prepend_context" ? "prepend_context" : "append_system",
    recallTimeoutMs: positive(cfg.recallTimeoutMs, 1500),
    timeoutMs: positive(cfg.timeoutMs, 3000),
    spoolDir: String(cfg.spoolDir || join(tmpdir(), "openclaw-memory-spool")),
  };
}

function positive(value, fallback) {
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const plugin = {
  id: PLUGIN_ID,
  name: "OpenClaw Memory",
  description: "Long-term per-sender memory through the openclaw-memory service.",
  register(api) {
    const logger = api.logger ?? console;
    const cfg = resolveConfig(api.pluginConfig);
    if (!cfg.enabled) {
      logger.info(`${PLUGIN_ID}: disabled by config`);
      return;
    }
    const client = createClient(cfg, logger);
    const scopes = createScopes();
    const hooks = createHooks(cfg, client, scopes);
    for (const [name, handler] of Object.entries(hooks)) {
      api.on(name, async (event, ctx) => {
        try {
          return await handler(event, ctx);
        } catch (err) {
          logger.warn(`${PLUGIN_ID}: ${name} skipped: ${describe(err)}`);
          return undefined;
        }
      });
    }
    api.registerTool((toolCtx) => createTools(client, scopes, toolCtx), { names: OWN_TOOLS });
  },
};

export default plugin;
