// Shared helpers: ids the service accepts, text of OpenClaw messages, and whose memory a call is for.

import { createHash } from "node:crypto";

export const PLUGIN_ID = "openclaw-memory";
export const OWN_TOOLS = ["memory_search", "memory_get", "memory_store", "memory_forget"];
const ID_RE = /^[A-Za-z0-9_.:@+\-]{1,128}$/;
const MAX_MESSAGE_CHARS = 8000;
const CAPTURE_MESSAGES = 40;

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

/** The session a hook is about: OpenClaw's session key, else its session id. */
export function sessionOf(ctx, event) {
  return safeId(ctx?.sessionKey || event?.sessionKey || ctx?.sessionId || event?.sessionId, "default");
}
