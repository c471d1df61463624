// Shared helpers: ids the service accepts, text and identity of OpenClaw messages, and whose
// memory a call is for.

import { createHash } from "node:crypto";

export const PLUGIN_ID = "openclaw-memory";
export const OWN_TOOLS = ["memory_search", "memory_get", "memory_store", "memory_forget"];
const ID_RE = /^[A-Za-z0-9_.:@+\-]{1,128}$/;
const MAX_MESSAGE_CHARS = 8000;
const CAPTURE_MESSAGES = 40;
// Runs that are nobody's turn: what they say is the host's prompt, not a person's words.
const UNATTENDED_TRIGGERS = new Set(["heartbeat", "cron", "memory", "compaction", "system"]);

const sha256 = (text) => createHash("sha256").update(String(text)).digest("hex");

/**
 * An id the service accepts, one-to-one: a valid id that does not start with "h-" is kept as it
 * is (no trimming: " alice" is not "alice"); anything else becomes "h-" and the full sha256 of
 * it, which no kept id can equal. Absent or empty: null (nobody).
 */
export function safeId(value) {
  if (value === undefined || value === null) return null;
  const text = String(value);
  if (!text) return null;
  if (ID_RE.test(text) && !text.startsWith("h-")) return text;
  return "h-" + sha256(text);
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
const stampOf = (m) => (Number.isFinite(m?.timestamp) && m.timestamp >= 0 ? m.timestamp : undefined);

/**
 * A user turn's stable key: the hash of its text with the time of its first reply (OpenClaw
 * restamps a user message when it persists it, never the reply), else of the message itself.
 * The same turn gets the same key in every later transcript, however the window slid or what
 * a compaction dropped before it.
 */
export function turnKey(text, at) {
  return `t:${sha256(text).slice(0, 16)}:${at ?? "none"}`;
}

/**
 * OpenClaw transcript messages -> [{role, content, timestamp, id, sender}], text only, the last
 * `limit` kept. Each user message gets its turn key as `id` and, when known, its `sender`: the
 * person OpenClaw recorded for it (`__openclaw.senderId`, through `persons`), or `livePerson`
 * for the run's own message (the last one, which OpenClaw has not stamped yet).
 */
export function toMessages(messages, { limit = CAPTURE_MESSAGES, roles = ["user", "assistant"], persons, channel,
  livePerson } = {}) {
  if (!Array.isArray(messages)) return [];
  const out = [];
  let lastUser = -1;
  for (const m of messages) {
    const role = ROLES[m?.role];
    if (!role) continue;
    const content = textOf(m.content).trim();
    if (role === "user") {
      lastUser = out.length;
      const meta = m.__openclaw && typeof m.__openclaw === "object" ? m.__openclaw : {};
      const sender = meta.senderId && persons
        ? persons.of(meta.senderIdentity?.pluginId || channel, meta.senderId) : undefined;
      out.push({ role, content, at: stampOf(m), sender: sender || undefined, replyAt: undefined });
    } else if (role === "assistant" && lastUser >= 0 && out[lastUser].replyAt === undefined) {
      out[lastUser].replyAt = stampOf(m);
      out.push({ role, content, at: stampOf(m) });
    } else {
      out.push({ role, content, at: stampOf(m) });
    }
  }
  if (lastUser >= 0 && !out[lastUser].sender && livePerson) out[lastUser].sender = livePerson;
  const shaped = out
    .filter((m) => roles.includes(m.role) && m.content)
    .map((m) => {
      const msg = { role: m.role, content: m.content.slice(0, MAX_MESSAGE_CHARS) };
      if (m.at !== undefined) msg.timestamp = m.at;
      if (m.role === "user") {
        msg.id = turnKey(m.content, m.replyAt ?? m.at);
        if (m.sender) msg.sender = m.sender;
      }
      return msg;
    });
  return shaped.slice(-limit);
}

/** The keys of every user turn the transcript holds (what the model already has in context). */
export function liveTurns(messages) {
  return toMessages(messages, { limit: 5000, roles: ["user"] }).map((m) => m.id);
}

/**
 * Who a person is: the channel sender, one person across channels when OpenClaw's
 * `session.identityLinks` says so ({alice: ["telegram:123", "discord:987"]}).
 */
export function createPersons(identityLinks) {
  const links = new Map();
  for (const [canonical, peers] of Object.entries(identityLinks && typeof identityLinks === "object" ? identityLinks : {})) {
    for (const peer of Array.isArray(peers) ? peers : []) links.set(String(peer).toLowerCase(), canonical);
  }
  return {
    /** The person id for a sender on a channel, or null. */
    of(channel, senderId) {
      if (senderId === undefined || senderId === null || senderId === "") return null;
      const linked = channel ? links.get(`${String(channel).toLowerCase()}:${String(senderId).toLowerCase()}`) : undefined;
      return safeId(linked ?? senderId);
    },
  };
}

/**
 * Whose memory a hook or tool call is for. The sender of the run, never another run's: a run
 * without a sender is the operator's only when one is configured (`user` in the plugin config or
 * $OPENCLAW_MEMORY_USER) and a person started it; else it is nobody's and nothing is read or
 * written for it.
 */
export function createScopes({ persons, operator } = {}) {
  const people = persons ?? createPersons();
  const runs = new Map(); // runId -> scope, so the run's tool events go to the run's sender
  return {
    resolve(ctx, sessionKey) {
      const agent_id = safeId(ctx?.agentId || agentOfSessionKey(sessionKey)) || "main";
      const channel = ctx?.channel || ctx?.messageProvider || ctx?.requester?.channel || ctx?.messageChannel;
      const sender = ctx?.senderId || ctx?.channelContext?.sender?.id || ctx?.requester?.senderId
        || ctx?.requesterSenderId;
      let user_id = people.of(channel, sender);
      if (!user_id && ctx?.runId && runs.has(ctx.runId)) return runs.get(ctx.runId);
      if (!user_id && operator && !UNATTENDED_TRIGGERS.has(String(ctx?.trigger || ""))) user_id = safeId(operator);
      if (!user_id) return null;
      const scope = { user_id, agent_id };
      if (ctx?.runId) {
        runs.set(ctx.runId, scope);
        if (runs.size > 1000) runs.delete(runs.keys().next().value);
      }
      return scope;
    },
    endRun(runId) {
      runs.delete(runId);
    },
  };
}

function agentOfSessionKey(key) {
  const m = /^agent:([^:]+):/.exec(key || "");
  return m ? m[1] : undefined;
}

/** The agent a session key belongs to ("main" when it names none). */
export function agentOf(ctx, sessionKey) {
  return safeId(ctx?.agentId || agentOfSessionKey(sessionKey)) || "main";
}

/** The session a hook is about: OpenClaw's session key, else its session id. */
export function sessionOf(ctx, event) {
  return safeId(ctx?.sessionKey || event?.sessionKey || ctx?.sessionId || event?.sessionId) || "default";
}
