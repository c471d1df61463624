// The hook handlers: recall before the prompt is built, capture after the turn, tool events,
// session boundaries and compaction.

import { OWN_TOOLS, sessionOf, textOf, toMessages } from "./messages.js";

const RECENT_MESSAGES = 6;
const MAX_OUTCOME_CHARS = 2000;

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

// Each handler gets `deps` = {cfg, client, scopes, fresh}; `fresh` holds sessions that OpenClaw
// reported as started and that have not had a prompt yet.

async function beforePromptBuild({ cfg, client, scopes, fresh }, event, ctx) {
  const session = sessionOf(ctx, event);
  const scope = scopes.resolve(ctx, session);
  const timeoutMs = cfg.recallTimeoutMs;
  const recall = client.post("/v1/recall", {
    scope, session_id: session, prompt: String(event?.prompt ?? "").slice(0, 20000),
    messages: toMessages(event?.messages, { limit: RECENT_MESSAGES }),
  }, { timeoutMs });
  const starting = fresh.delete(session) || isFreshSession(event);
  const start = starting ? client.post("/v1/session/start", { scope, session_id: session }, { timeoutMs }) : null;
  const [recalled, started] = await Promise.all([recall, start]);
  // Recall already carries the profile and summaries; the session-start block (profile and
  // recent summaries alone) is the fallback when nothing passed recall's relevance bar.
  const block = (recalled?.block || started?.block || "").trim();
  if (!block) return undefined;
  return cfg.inject === "prepend_context" ? { prependContext: block } : { appendSystemContext: block };
}

async function agentEnd({ client, scopes }, event, ctx) {
  const session = sessionOf(ctx, event);
  const messages = toMessages(event?.messages);
  if (messages.length) {
    const scope = scopes.resolve(ctx, session);
    await client.post("/v1/capture", { scope, session_id: session, messages }, { spool: true });
  }
  await client.lastDrain; // a one-shot CLI run exits right after this hook
}

async function afterToolCall({ client, scopes }, event, ctx) {
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
}

async function sessionEnd({ cfg, client, scopes, fresh }, event, ctx) {
  const session = sessionOf(ctx, event);
  const body = { scope: scopes.resolve(ctx, session), session_id: session, reason: String(event?.reason || "unknown") };
  // The shutdown drain is 2 s for every plugin together: stay well inside it.
  const closing = event?.reason === "shutdown" || event?.reason === "restart";
  await client.post("/v1/session/end", body, { timeoutMs: closing ? Math.min(cfg.timeoutMs, 1000) : cfg.timeoutMs, spool: true });
  fresh.delete(session);
}

async function beforeCompaction({ client, scopes }, event, ctx) {
  const session = sessionOf(ctx, event);
  await client.post("/v1/session/compact", {
    scope: scopes.resolve(ctx, session), session_id: session, messages: toMessages(event?.messages),
  }, { spool: true });
}

// A subagent run ended: a deterministic process node, recorded as the task's new status.
const SUBAGENT_STATUS = { ok: "completed", error: "failed", timeout: "failed", killed: "cancelled",
  reset: "cancelled", deleted: "cancelled" };

async function subagentEnded({ client, scopes }, event, ctx) {
  const child = String(event?.targetSessionKey || event?.runId || "").slice(0, 200);
  if (!child) return;
  const session = sessionOf(ctx, {});
  const detail = String(event?.error || event?.reason || "").slice(0, 2000);
  await client.post("/v1/process-event", {
    scope: scopes.resolve(ctx, session), session_id: session, subject: `subagent ${child}`,
    status: SUBAGENT_STATUS[event?.outcome] || "ended", summary: detail ? `subagent run ended: ${detail}` : "subagent run ended",
    reason: detail,
  }, { spool: true });
}

// gateway_stop: the service's cleanup hook (queued writes flushed, index brought up to date),
// then this process's spool replayed; inside the 5 s the gateway gives this hook.
async function gatewayStop({ client, fresh }) {
  fresh.clear();
  await client.post("/service/cleanup", { wait_ms: 2000 }, { timeoutMs: 3500 });
  await client.lastDrain;
}

const HANDLERS = {
  before_prompt_build: beforePromptBuild,
  agent_end: agentEnd,
  after_tool_call: afterToolCall,
  session_start: async ({ fresh }, event, ctx) => { fresh.add(sessionOf(ctx, event)); },
  session_end: sessionEnd,
  before_compaction: beforeCompaction,
  subagent_ended: subagentEnded,
  gateway_stop: gatewayStop,
};

/** The hook handlers by OpenClaw hook name, bound to one client and one scope resolver. */
export function createHooks(cfg, client, scopes) {
  const deps = { cfg, client, scopes, fresh: new Set() };
  return Object.fromEntries(
    Object.entries(HANDLERS).map(([name, handler]) => [name, (event, ctx) => handler(deps, event, ctx)]),
  );
}
