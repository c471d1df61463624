// openclaw-memory: an OpenClaw plugin that forwards memory hooks and tools to the Python
// service (`openclaw-memory serve`, 127.0.0.1:8765 by default). No npm dependencies.
//
// Fail open: every call has a short timeout; on any failure the plugin logs one line and OpenClaw
// carries on without memory. Writes that fail (captures, tool events, session ends) are spooled
// to a JSONL file and replayed after the next successful call.
//
// Who a memory belongs to: the channel sender (ctx.senderId). Runs without a sender (local CLI,
// web chat, cron) fall back to $OPENCLAW_MEMORY_USER, then to "anonymous".

import { createHash } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PLUGIN_ID = "openclaw-memory";
const ID_RE = /^[A-Za-z0-9_.:@+\-]{1,128}$/;
const MAX_MESSAGE_CHARS = 8000;
const RECENT_MESSAGES = 6;
const CAPTURE_MESSAGES = 40;
const MAX_OUTCOME_CHARS = 2000;
const MAX_SPOOL_BYTES = 20 * 1024 * 1024;
const STALE_DRAIN_MS = 5 * 60 * 1000;
const OWN_TOOLS = ["memory_search", "memory_get", "memory_store", "memory_forget"];

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

/** An id the service accepts: kept as is when valid, else a stable hash of it. */
export function safeId(value, fallback) {
  const text = value === undefined || value === null ? "" : String(value).trim();
  if (!text) return fallback;
  if (ID_RE.test(text)) return text;
  return "h-" + createHash("sha256").update(text).digest("hex").slice(0, 40);
}

/** Plain text of a message content: a string, or parts with {type: "text", text}. */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter((p) => p && typeof p === "object" && typeof p.text === "string" && (p.type ?? "text") === "text")
      .map((p) => p.text)
      .join("\n");
  }
  if (content && typeof content === "object" && "content" in content) return textOf(content.content);
  return "";
}

const ROLES = { user: "user", assistant: "assistant", system: "system", tool: "tool", toolResult: "tool" };

/** OpenClaw transcript messages -> [{role, content}] text only, the last `limit` kept. */
export function toMessages(messages, { limit = CAPTURE_MESSAGES, roles = ["user", "assistant"] } = {}) {
  if (!Array.isArray(messages)) return [];
  const out = [];
  for (const m of messages) {
    const role = ROLES[m?.role];
    if (!role || !roles.includes(role)) continue;
    const content = textOf(m.content).trim();
    if (content) out.push({ role, content: content.slice(0, MAX_MESSAGE_CHARS) });
  }
  return out.slice(-limit);
}

/** Who and which agent a hook or tool call is for. */
export function createScopes(env = process.env) {
  const bySession = new Map();
  return {
    resolve(ctx, sessionKey) {
      const sender = ctx?.senderId || ctx?.channelContext?.sender?.id || ctx?.requester?.senderId
        || ctx?.requesterSenderId;
      if (!sender && sessionKey && bySession.has(sessionKey)) return bySession.get(sessionKey);
      const scope = {
        user_id: safeId(sender || env.OPENCLAW_MEMORY_USER, "anonymous"),
        agent_id: safeId(ctx?.agentId || agentOfSessionKey(sessionKey), "main"),
      };
      if (sessionKey) {
        bySession.delete(sessionKey);
        bySession.set(sessionKey, scope);
        if (bySession.size > 1000) bySession.delete(bySession.keys().next().value);
      }
      return scope;
    },
    forget(sessionKey) {
      bySession.delete(sessionKey);
    },
  };
}

function agentOfSessionKey(key) {
  const m = /^agent:([^:]+):/.exec(key || "");
  return m ? m[1] : undefined;
}

function sessionOf(ctx, event) {
  return safeId(ctx?.sessionKey || event?.sessionKey || ctx?.sessionId || event?.sessionId, "default");
}

/** A JSONL file of failed writes, replayed after the next successful call. */
export function createSpool(dir, logger) {
  const file = join(dir, "spool.jsonl");
  let draining = null;
  async function add(path, body) {
    try {
      await mkdir(dir, { recursive: true });
      const size = await stat(file).then((s) => s.size, () => 0);
      if (size > MAX_SPOOL_BYTES) {
        logger.warn(`${PLUGIN_ID}: spool ${file} is full (${size} bytes); dropping a ${path} write`);
        return;
      }
      await appendFile(file, JSON.stringify({ path, body }) + "\n", "utf8");
    } catch (err) {
      logger.warn(`${PLUGIN_ID}: cannot spool a ${path} write to ${file}: ${describe(err)}`);
    }
  }
  async function claim() {
    const claimed = [];
    const mine = join(dir, `spool.${process.pid}.${Date.now()}.draining`);
    if (await rename(file, mine).then(() => true, () => false)) claimed.push(mine);
    for (const name of await readdir(dir).catch(() => [])) {
      const path = join(dir, name);
      if (!name.endsWith(".draining") || path === mine) continue;
      const age = await stat(path).then((s) => Date.now() - s.mtimeMs, () => 0);
      const taken = `${path}.${process.pid}`;
      if (age > STALE_DRAIN_MS && (await rename(path, taken).then(() => true, () => false))) {
        claimed.push(taken);
      }
    }
    return claimed;
  }
  async function replay(send) {
    for (const path of await claim()) {
      const lines = (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);
      for (const line of lines) {
        let entry;
        try { entry = JSON.parse(line); } catch { continue; }
        if (!(await send(entry.path, entry.body))) await add(entry.path, entry.body);
      }
      await unlink(path).catch(() => {});
    }
  }
  return {
    add,
    file,
    drain(send) {
      if (!draining) draining = replay(send).finally(() => { draining = null; });
      return draining;
    },
  };
}

function describe(err) {
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return "timed out";
  const cause = err?.cause?.code || err?.cause?.message;
  return cause ? `${err.message} (${cause})` : String(err?.message || err);
}

/** HTTP client: post() never throws; it returns the JSON body, or null after logging one line. */
export function createClient(cfg, logger, fetchImpl = globalThis.fetch) {
  const spool = createSpool(cfg.spoolDir, logger);
  async function send(path, body, timeoutMs) {
    const headers = { "content-type": "application/json" };
    if (cfg.token) headers.authorization = `Bearer ${cfg.token}`;
    const res = await fetchImpl(`${cfg.serviceUrl}${path}`, {
      method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) {
      const err = new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
      err.status = res.status;
      throw err;
    }
    return text ? JSON.parse(text) : {};
  }
  async function post(path, body, { timeoutMs = cfg.timeoutMs, spool: spoolIt = false } = {}) {
    try {
      const out = await send(path, body, timeoutMs);
      client.lastDrain = spool.drain(replayOne);
      return out;
    } catch (err) {
      const retryable = !(err?.status >= 400 && err?.status < 500);
      const note = spoolIt && retryable ? `; spooled to ${spool.file}` : "; continuing without memory";
      logger.warn(`${PLUGIN_ID}: POST ${cfg.serviceUrl}${path} failed: ${describe(err)}${note}`);
      if (spoolIt && retryable) await spool.add(path, body);
      return null;
    }
  }
  async function replayOne(path, body) {
    try {
      await send(path, body, cfg.timeoutMs);
      return true;
    } catch (err) {
      return err?.status >= 400 && err?.status < 500; // rejected for good: do not retry forever
    }
  }
  const client = { post, spool, lastDrain: Promise.resolve() };
  return client;
}

function isFreshSession(event) {
  return toMessages(event?.messages, { limit: 1 }).length === 0;
}

function filesOf(params) {
  const out = [];
  for (const key of ["path", "file", "file_path", "filePath", "paths", "files"]) {
    const v = params?.[key];
    for (const item of Array.isArray(v) ? v : [v]) {
      if (typeof item === "string" && item && out.length < 50) out.push(item.slice(0, 500));
    }
  }
  return out;
}

function jsonSafe(value) {
  try {
    const text = JSON.stringify(value ?? {});
    if (text.length <= 20000) return JSON.parse(text);
    return { truncated: text.slice(0, 2000) };
  } catch {
    return {};
  }
}

/** The hook handlers, bound to one client and one scope resolver. */
export function createHooks(cfg, client, scopes) {
  const fresh = new Set();
  return {
    async before_prompt_build(event, ctx) {
      const session = sessionOf(ctx, event);
      const scope = scopes.resolve(ctx, session);
      const timeoutMs = cfg.recallTimeoutMs;
      const recall = client.post("/v1/recall", {
        scope, session_id: session, prompt: String(event?.prompt ?? "").slice(0, 20000),
        messages: toMessages(event?.messages, { limit: RECENT_MESSAGES, roles: ["user", "assistant"] }),
      }, { timeoutMs });
      const starting = fresh.delete(session) || isFreshSession(event);
      const start = starting ? client.post("/v1/session/start", { scope, session_id: session }, { timeoutMs }) : null;
      const [recalled, started] = await Promise.all([recall, start]);
      // Recall already carries the profile and summaries; the session-start block (profile and
      // recent summaries alone) is the fallback when nothing passed recall's relevance bar.
      const block = (recalled?.block || started?.block || "").trim();
      if (!block) return undefined;
      return cfg.inject === "prepend_context" ? { prependContext: block } : { appendSystemContext: block };
    },
    async agent_end(event, ctx) {
      const session = sessionOf(ctx, event);
      const messages = toMessages(event?.messages);
      if (messages.length) {
        const scope = scopes.resolve(ctx, session);
        await client.post("/v1/capture", { scope, session_id: session, messages }, { spool: true });
      }
      await client.lastDrain; // a one-shot CLI run exits right after this hook
    },
    async after_tool_call(event, ctx) {
      const tool = String(event?.toolName || ctx?.toolName || "");
      if (!tool || OWN_TOOLS.includes(tool)) return;
      const session = sessionOf(ctx, event);
      const outcome = event?.error ? String(event.error) : textOf(event?.result);
      await client.post("/v1/tool-event", {
        scope: scopes.resolve(ctx, session), session_id: session, tool: tool.slice(0, 200),
        arguments: jsonSafe(event?.params), outcome: outcome.slice(0, MAX_OUTCOME_CHARS),
        ok: !event?.error, files: filesOf(event?.params),
        duration_ms: Number.isFinite(event?.durationMs) ? Math.max(0, event.durationMs) : null,
      }, { spool: true });
    },
    async session_start(event, ctx) {
      fresh.add(sessionOf(ctx, event));
    },
    async session_end(event, ctx) {
      const session = sessionOf(ctx, event);
      const body = { scope: scopes.resolve(ctx, session), session_id: session, reason: String(event?.reason || "unknown") };
      // The shutdown drain is 2 s for every plugin together: stay well inside it.
      const timeoutMs = event?.reason === "shutdown" || event?.reason === "restart" ? Math.min(cfg.timeoutMs, 1000) : cfg.timeoutMs;
      await client.post("/v1/session/end", body, { timeoutMs, spool: true });
      fresh.delete(session);
    },
    async before_compaction(event, ctx) {
      const session = sessionOf(ctx, event);
      await client.post("/v1/session/compact", {
        scope: scopes.resolve(ctx, session), session_id: session, messages: toMessages(event?.messages),
      }, { spool: true });
    },
    async gateway_stop() {
      fresh.clear();
    },
  };
}

function toolResult(text, details) {
  return { content: [{ type: "text", text }], details };
}

function formatMemories(memories) {
  if (!memories?.length) return "No matching memories.";
  return memories.map((m) => `- [${m.id}] (${m.type}, score ${m.score}) ${m.summary}`).join("\n");
}

/** The memory_* agent tools for one tool context (its sender and agent give the scope). */
export function createTools(client, scopes, toolCtx) {
  const session = safeId(toolCtx?.sessionKey || toolCtx?.sessionId, undefined);
  const scope = () => scopes.resolve(toolCtx, session);
  const unavailable = (name) => toolResult(`${name}: the memory service is unavailable right now.`, { ok: false });
  const str = (description) => ({ type: "string", description });
  return [
    {
      name: "memory_search", label: "Memory search",
      description: "Search this user's long-term memory (preferences, facts, decisions, past events).",
      parameters: { type: "object", additionalProperties: false, required: ["query"],
        properties: { query: str("What to look for."), limit: { type: "integer", minimum: 1, maximum: 20 } } },
      async execute(_id, params) {
        const out = await client.post("/v1/memory/search", { scope: scope(), query: String(params?.query || ""), limit: params?.limit ?? 5 });
        return out ? toolResult(formatMemories(out.memories), out) : unavailable("memory_search");
      },
    },
    {
      name: "memory_get", label: "Memory get",
      description: "Read one memory by id, with its provenance.",
      parameters: { type: "object", additionalProperties: false, required: ["id"], properties: { id: str("Memory id.") } },
      async execute(_id, params) {
        const out = await client.post("/v1/memory/get", { scope: scope(), id: String(params?.id || "") });
        return out ? toolResult(JSON.stringify(out.memory, null, 1), out) : unavailable("memory_get");
      },
    },
    {
      name: "memory_store", label: "Memory store",
      description: "Remember something the user explicitly asked you to remember.",
      parameters: { type: "object", additionalProperties: false, required: ["text"], properties: {
        text: str("The memory, one self-contained sentence."),
        type: { type: "string", enum: ["profile", "preference", "fact", "decision", "task"] },
        subject: str("Optional short subject key, e.g. 'diet'.") } },
      async execute(_id, params) {
        const body = { scope: scope(), text: String(params?.text || ""), session_id: session };
        if (params?.type) body.type = params.type;
        if (params?.subject) body.subject = params.subject;
        const out = await client.post("/v1/memory/remember", body);
        return out ? toolResult(`${out.action}: ${out.reason}`, out) : unavailable("memory_store");
      },
    },
    {
      name: "memory_forget", label: "Memory forget",
      description: "Forget a memory by id, or the memories matching a query, when the user asks.",
      parameters: { type: "object", additionalProperties: false, properties: { id: str("Memory id."), query: str("What to forget.") } },
      async execute(_id, params) {
        const body = { scope: scope() };
        if (params?.id) body.id = String(params.id);
        else body.query = String(params?.query || "");
        const out = await client.post("/v1/memory/forget", body);
        return out ? toolResult(`Forgot ${out.forgotten.length} memories.`, out) : unavailable("memory_forget");
      },
    },
  ];
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
