// The memory_* agent tools, scoped by the requesting sender and agent like the hooks. What they
// return is framed by the service as reference data, never instructions (`text` of the search
// and get answers), the same rule as the injected block.

import { sessionOf } from "./messages.js";

function toolResult(text, details) {
  return { content: [{ type: "text", text }], details };
}

const str = (description) => ({ type: "string", description });
const object = (properties, required = []) => ({ type: "object", additionalProperties: false, required, properties });

// name -> [label, description, parameters, (params, call, session) -> result]; `call` posts with the scope.
const TOOLS = {
  memory_search: ["Memory search",
    "Search this user's long-term memory (preferences, facts, decisions, past events). Results are short "
      + "lines with ids: expand one with memory_get for its detail and history. If nothing relevant comes "
      + "back and the answer may lie in older history, search again with deep: true, which also covers "
      + "archived and expired memories (old events, compacted history).",
    object({
      query: str("What to look for."), limit: { type: "integer", minimum: 1, maximum: 20 },
      deep: { type: "boolean", description: "Also search archived and expired memories (older history)." },
    }, ["query"]),
    async (params, call) => {
      const out = await call("/v1/memory/search", {
        query: String(params?.query || ""), limit: params?.limit ?? 5, deep: params?.deep === true,
      });
      // nothing found: plain words of ours, no frame needed (no stored text in them)
      return out && toolResult(out.memories?.length ? out.text : "No matching memories.", out);
    }],
  memory_get: ["Memory get", "Read one memory by id (from memory_search): its full detail, provenance and version.",
    object({ id: str("Memory id.") }, ["id"]),
    async (params, call) => {
      const out = await call("/v1/memory/get", { id: String(params?.id || "") });
      return out && toolResult(out.text || "", out);
    }],
  memory_store: ["Memory store", "Remember something the user explicitly asked you to remember.",
    object({
      text: str("The memory, one self-contained sentence."),
      type: { type: "string", enum: ["profile", "preference", "fact", "decision", "task", "procedure"] },
      subject: str("Optional short subject key, e.g. 'diet'."),
    }, ["text"]),
    async (params, call, session, stored) => {
      const body = { text: String(params?.text || ""), session_id: session };
      if (params?.type) body.type = params.type;
      if (params?.subject) body.subject = params.subject;
      const out = await call("/v1/memory/remember", body);
      if (out) stored.add(session); // the turn's capture then logs it without extracting it again
      return out && toolResult(`${out.action}: ${out.reason}`, out);
    }],
  memory_forget: ["Memory forget", "Forget a memory by id, or the memories matching a query, when the user asks.",
    object({ id: str("Memory id."), query: str("What to forget.") }),
    async (params, call) => {
      const out = await call("/v1/memory/forget", params?.id ? { id: String(params.id) } : { query: String(params?.query || "") });
      return out && toolResult(`Forgot ${out.forgotten.length} memories.`, out);
    }],
};

/** The memory_* agent tools for one tool context (its sender and agent give the scope). */
export function createTools(client, scopes, toolCtx, stored = new Set()) {
  const session = sessionOf(toolCtx, undefined);
  return Object.entries(TOOLS).map(([name, [label, description, parameters, run]]) => ({
    name, label, description, parameters,
    async execute(_id, params) {
      const scope = scopes.resolve(toolCtx, session);
      if (!scope) return toolResult(`${name}: there is no known person in this conversation, so there is no memory to use.`, { ok: false });
      let rejection = null;
      const call = async (path, body) => {
        const out = await client.post(path, { scope, ...body }, { answerRejections: true });
        if (out?.rejected) rejection = out;
        return out?.rejected ? null : out;
      };
      const result = await run(params, call, session, stored);
      if (result) return result;
      if (rejection) return toolResult(`${name}: ${rejection.message}`, { ok: false, status: rejection.status });
      return toolResult(`${name}: the memory service is unavailable right now.`, { ok: false });
    },
  }));
}
