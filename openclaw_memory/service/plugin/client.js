// HTTP to the memory service. post() never throws: on failure it logs one line and returns null;
// failed writes go to a JSONL spool that is replayed after the next successful call.

import { appendFile, mkdir, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

import { PLUGIN_ID } from "./messages.js";

const MAX_SPOOL_BYTES = 20 * 1024 * 1024;
const STALE_DRAIN_MS = 5 * 60 * 1000;

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
  return {
    add,
    file,
    /** Replay spooled writes with send(path, body) -> ok; one drain at a time per process. */
    drain(send) {
      if (!draining) draining = replay(dir, file, send, add).finally(() => { draining = null; });
      return draining;
    },
  };
}

const moved = (from, to) => rename(from, to).then(() => true, () => false);

/** Take the spool (atomic rename, so concurrent processes never replay the same file twice). */
async function claim(dir, file) {
  const mine = join(dir, `spool.${process.pid}.${Date.now()}.draining`);
  const claimed = (await moved(file, mine)) ? [mine] : [];
  for (const name of await readdir(dir).catch(() => [])) {
    const path = join(dir, name);
    if (!name.endsWith(".draining") || path === mine) continue;
    // A file left by a process that died while replaying it.
    const age = await stat(path).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > STALE_DRAIN_MS && (await moved(path, `${path}.${process.pid}`))) claimed.push(`${path}.${process.pid}`);
  }
  return claimed;
}

async function replay(dir, file, send, add) {
  for (const path of await claim(dir, file)) {
    const lines = (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);
    for (const line of lines) {
      let entry;
      try { entry = JSON.parse(line); } catch { continue; }
      if (!(await send(entry.path, entry.body))) await add(entry.path, entry.body);
    }
    await unlink(path).catch(() => {});
  }
}

function serviceMessage(text) {
  try {
    return String(JSON.parse(text).message || text).slice(0, 500);
  } catch {
    return text.slice(0, 500);
  }
}

/** A short reason for a failed call. */
export function describe(err) {
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
      err.detail = serviceMessage(text);
      throw err;
    }
    return text ? JSON.parse(text) : {};
  }
  // spool: keep a failed write for later. answerRejections: return {rejected, status, message}
  // for a 4xx instead of logging it (a tool's "not found" is an answer, not a failure).
  async function post(path, body, { timeoutMs = cfg.timeoutMs, spool: spoolIt = false, answerRejections = false } = {}) {
    try {
      const out = await send(path, body, timeoutMs);
      client.lastDrain = spool.drain(replayOne);
      return out;
    } catch (err) {
      const retryable = !(err?.status >= 400 && err?.status < 500);
      if (!retryable && answerRejections) return { rejected: true, status: err.status, message: err.detail };
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
