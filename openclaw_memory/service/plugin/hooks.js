// The hook handlers: recall before the prompt is built, capture after the turn, tool events,
// session boundaries and compaction.

import { OWN_TOOLS, PLUGIN_ID, agentOf, liveTurns, sessionOf, textOf, toMessages } from "./messages.js";

const RECENT_MESSAGES = 6;
const MAX_OUTCOME_CHARS = 2000;
const TRANSCRIPT_LIMIT = 1000;
// Tool Search (OpenClaw's default tool surface): the controls that only find or describe tools,
// and the call that runs the tool it names ({id: "<source>:<plugin>:<tool>", args}).
const TOOL_SEARCH_CONTROLS = new Set(["tool_search", "tool_describe", "tool_search_code"]);
const TOOL_SEARCH_CALL = "tool_call";

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

/** The tool a call really ran and its arguments: a Tool Search call is unwrapped; null: none to store. */
export function calledTool(name, params) {
  let tool = String(name || "");
  let args = params;
  if (tool === TOOL_SEARCH_CALL) {
    const target = params?.id ?? params?.name ?? params?.tool ?? "";
    tool = String(typeof target === "object" ? target?.id ?? target?.name ?? "" : target).split(":").pop().trim();
    args = params?.args ?? params?.arguments ?? params?.params ?? {};
  }
  if (!tool || TOOL_SEARCH_CONTROLS.has(tool) || tool === TOOL_SEARCH_CALL || OWN_TOOLS.includes(tool)) return null;
  return { tool, args };
}

// Each handler gets `deps` = {cfg, client, scopes, persons, runtime, logger, fresh, stored, skipped}:
// `fresh` holds sessions OpenClaw reported as started that have not had a prompt yet, `stored`
// the sessions whose current turn stored a memory through memory_store, `skipped` the sessions
// already logged as having no known sender.

function nobody(deps, session, what) {
  if (deps.skipped.has(session)) return undefined;
  deps.skipped.add(session);
  if (deps.skipped.size > 1000) deps.skipped.delete(deps.skipped.values().next().value);
  const hint = deps.cfg?.user ? "" : "; to give such runs an owner, run `openclaw-memory openclaw install --user <name>` "
    + `(or \`openclaw config set plugins.entries.${PLUGIN_ID}.config.user <name>\`) and restart the gateway`;
  deps.logger.warn(`${PLUGIN_ID}: ${what} in session ${session} has no known sender; no memory is read or written for it${hint}`);
  return undefined;
}

async function beforePromptBuild(deps, event, ctx) {
  const { cfg, client, scopes, fresh } = deps;
  const session = sessionOf(ctx, event);
  const scope = scopes.resolve(ctx, session);
  if (!scope) return nobody(deps, session, `a ${ctx?.trigger || "run"}`);
  const timeoutMs = cfg.recallTimeoutMs;
  // The first prompt after a gateway start waits (bounded) for a service still warming up.
  await client.waitReady?.();
  // Writes that failed earlier go first, so this very recall sees what they carry.
  await client.replaySpool(Math.floor(timeoutMs / 2));
  const recall = client.post("/v1/recall", {
    scope, session_id: session, prompt: String(event?.prompt ?? "").slice(0, 20000),
    messages: toMessages(event?.messages, { limit: RECENT_MESSAGES }),
    live_turns: liveTurns(event?.messages),
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

async function agentEnd(deps, event, ctx) {
  const { client, scopes, persons, stored } = deps;
  const session = sessionOf(ctx, event);
  const scope = scopes.resolve(ctx, session);
  if (ctx?.runId) scopes.endRun(ctx.runId);
  const toolStored = stored.delete(session);
  if (!scope) return nobody(deps, session, `a ${ctx?.trigger || "run"}`);
  const channel = ctx?.channel || ctx?.messageProvider;
  const messages = toMessages(event?.messages, { persons, channel, livePerson: scope.user_id });
  if (messages.length) {
    const body = { scope, session_id: session, messages };
    const last = [...messages].reverse().find((m) => m.role === "user");
    if (toolStored && last) body.stored_turns = [last.id];
    await client.post("/v1/capture", body, { spool: true });
  }
  await client.lastDrain; // a one-shot CLI run exits right after this hook
  await client.lastReport; // and its count of calls made without memory with it
}

async function afterToolCall({ client, scopes }, event, ctx) {
  const called = calledTool(event?.toolName || ctx?.toolName, event?.params);
  if (!called) return;
  const session = sessionOf(ctx, event);
  const scope = scopes.resolve(ctx, session);
  if (!scope) return;
  const outcome = event?.error ? String(event.error) : textOf(event?.result);
  await client.post("/v1/tool-event", {
    scope, session_id: session, tool: called.tool.slice(0, 200),
    arguments: jsonSafe(called.args), outcome: outcome.slice(0, MAX_OUTCOME_CHARS),
    ok: !event?.error, files: filesOf(called.args),
    duration_ms: Number.isFinite(event?.durationMs) ? Math.max(0, event.durationMs) : null,
  }, { spool: true });
}

async function sessionEnd({ cfg, client, scopes, fresh }, event, ctx) {
  const session = sessionOf(ctx, event);
  fresh.delete(session);
  const scope = scopes.resolve(ctx, session);
  // OpenClaw's session_end names no sender: then the service ends it for each person in it.
  const body = { scope: scope ?? { agent_id: agentOf(ctx, session) }, session_id: session,
    reason: String(event?.reason || "unknown") };
  // The shutdown drain is 2 s for every plugin together: stay well inside it.
  const closing = event?.reason === "shutdown" || event?.reason === "restart";
  await client.post("/v1/session/end", body, { timeoutMs: closing ? Math.min(cfg.timeoutMs, 1000) : cfg.timeoutMs, spool: true });
}

/** The transcript OpenClaw is about to compact: from the event, else through the Gateway's API. */
async function transcriptOf({ runtime, cfg, logger }, event, ctx) {
  if (Array.isArray(event?.messages) && event.messages.length) return event.messages;
  const read = runtime?.subagent?.getSessionMessages;
  if (!ctx?.sessionKey || typeof read !== "function") return [];
  try {
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), cfg.timeoutMs).unref?.());
    const out = await Promise.race([read({ sessionKey: ctx.sessionKey, limit: TRANSCRIPT_LIMIT }), timeout]);
    return Array.isArray(out?.messages) ? out.messages : [];
  } catch (err) {
    logger.info(`${PLUGIN_ID}: before_compaction could not read the transcript (${err?.message || err}); summarising what was captured`);
    return [];
  }
}

async function beforeCompaction(deps, event, ctx) {
  const { client, persons } = deps;
  const session = sessionOf(ctx, event);
  const messages = toMessages(await transcriptOf(deps, event, ctx), { limit: 2000, persons, channel: ctx?.channel });
  // OpenClaw names no sender here: the service summarises each person who spoke in the session.
  await client.post("/v1/session/compact", {
    scope: { agent_id: agentOf(ctx, session) }, session_id: session, messages,
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
  // Start waiting for the service with the gateway, so the first prompt finds it ready.
  gateway_start: async ({ client }) => { client.waitReady?.(); },
  session_end: sessionEnd,
  before_compaction: beforeCompaction,
  subagent_ended: subagentEnded,
  gateway_stop: gatewayStop,
};

/** The hook handlers by OpenClaw hook name, bound to one client and one scope resolver. */
export function createHooks(cfg, client, scopes, { persons, runtime, logger, stored } = {}) {
  const deps = {
    cfg, client, scopes, persons, runtime, logger: logger ?? console,
    fresh: new Set(), stored: stored ?? new Set(), skipped: new Set(),
  };
  return Object.fromEntries(
    Object.entries(HANDLERS).map(([name, handler]) => [name, (event, ctx) => handler(deps, event, ctx)]),
  );
}
