// HTTP to the memory service. post() never throws: on failure it returns null (and says so once
// per outage, see below).
//
// Delivered means answered 200 or 202: the service journals a 202 ("queued") write, fsync'd,
// before it answers, and replays it after a crash. Anything else (a timeout, a reset, a 5xx,
// a token not yet accepted) leaves a capture undelivered, and it goes to a private spool and is
// replayed before the next recall and after the next successful call. Each capture carries a
// capture_id made here, kept in the spool, so a resend of a write whose answer was lost (a
// timeout after the service had journaled it) is taken once.
// - where: <OpenClaw state dir>/openclaw-memory/spool/ ($OPENCLAW_STATE_DIR, else ~/.openclaw),
//   a 0700 directory of the OS user running OpenClaw, files 0600;
// - what: only the capture routes (SPOOL_ROUTES); every line carries an HMAC-SHA256 made with a
//   random key kept beside it (spool.key, 0600), and a line that fails the check or names another
//   route is dropped, so nothing written there by anyone else is ever posted with the token.
//   The key is not the service token on purpose: a capture refused for a wrong token must still
//   replay once the token is fixed;
// - encrypted: the captured text is never on disk in the clear. Each line's body is sealed with
//   AES-256-GCM under a key derived from the spool key (HKDF-SHA256), a fresh 12-byte IV a line;
//   the HMAC covers the sealed bytes. Encryption, not a port of the service's secret filter:
//   a JavaScript copy of the filter would lag behind the Python one (whose patterns keep
//   growing) and would still leave the rest of the turn readable, while sealing keeps no byte of
//   any turn readable, whatever secret format it holds, with the key that is already there. The
//   key sits in the same private directory, so this keeps the text out of backups, indexes and
//   scans of the spool file, not from the OS user who owns both; the service's filter runs on
//   the replayed write as on any other;
// - how much: at most MAX_SPOOL_BYTES; past that a write is dropped with a warning;
// - purge: each line remembers when it was spooled (spooled_at); the service refuses with 410
//   the replay of a line spooled before its user was purged, and the line is dropped.
//
// Fail open, visibly: when the service cannot be reached (refused, timed out, 5xx) the agent
// runs on without memory. Each such call is counted in failopen.json beside the spool (calls,
// writes spooled, first and last time, the last error; `openclaw-memory doctor` shows it), and
// the user sees one warning when an outage starts and one when the service answers again, not
// a line per turn.

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { appendFile, chmod, mkdir, open, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

import { PLUGIN_ID } from "./messages.js";

const MAX_SPOOL_BYTES = 20 * 1024 * 1024;
const MAX_LINE_BYTES = 2 * 1024 * 1024;
const STALE_DRAIN_MS = 5 * 60 * 1000;
/** The routes a spooled line may replay to: writes of captured conversation only. */
export const SPOOL_ROUTES = new Set(["/v1/capture", "/v1/tool-event", "/v1/session/end", "/v1/session/compact"]);
/** Failures worth a retry: the service down or overloaded, or the token not (yet) accepted. */
const RETRY_STATUSES = new Set([401, 403, 408, 429]);

/** The spool's default place: under OpenClaw's state dir, which is the OS user's own. */
export function defaultSpoolDir(env = process.env) {
  const state = env.OPENCLAW_STATE_DIR || join(env.HOME || homedir(), ".openclaw");
  return join(state, "openclaw-memory", "spool");
}

const retryable = (err) => !(err?.status >= 400 && err?.status < 500) || RETRY_STATUSES.has(err.status);

async function privateDir(dir) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

async function loadKey(dir) {
  const path = join(dir, "spool.key");
  try {
    return Buffer.from((await readFile(path, "utf8")).trim(), "hex");
  } catch {
    const key = randomBytes(32);
    try {
      const fh = await open(path, "wx", 0o600);
      await fh.writeFile(key.toString("hex") + "\n");
      await fh.close();
      return key;
    } catch {
      return Buffer.from((await readFile(path, "utf8")).trim(), "hex"); // another process won
    }
  }
}

const macOf = (key, path, at, body) => createHmac("sha256", key).update(JSON.stringify([path, at, body])).digest("hex");
const sealKey = (key) => Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), "openclaw-memory spool seal", 32));

/** The body sealed with AES-256-GCM: base64 of IV (12) | ciphertext | tag (16). */
function seal(key, body) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(key), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(body), "utf8"), cipher.final()]);
  return Buffer.concat([iv, data, cipher.getAuthTag()]).toString("base64");
}

function unseal(key, sealed) {
  const raw = Buffer.from(sealed, "base64");
  if (raw.length < 29) throw new Error("sealed spool body too short");
  const decipher = createDecipheriv("aes-256-gcm", sealKey(key), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
  return JSON.parse(text.toString("utf8"));
}

/** A spool line's body, or null when the line was not written by this plugin with this key. */
function opened(key, entry) {
  if (!entry || typeof entry.mac !== "string" || !SPOOL_ROUTES.has(entry.path)) return null;
  const sealed = typeof entry.sealed === "string";
  const want = Buffer.from(macOf(key, entry.path, entry.at, sealed ? entry.sealed : entry.body), "hex");
  const got = Buffer.from(entry.mac, "hex");
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
  if (!sealed) return entry.body; // a line spooled in the clear by an earlier version
  try { return unseal(key, entry.sealed); } catch { return null; }
}

/** A private JSONL spool of failed writes (see the header). */
export function createSpool(dir, logger) {
  const file = join(dir, "spool.jsonl");
  let key = null;
  let draining = null;
  const ready = async () => {
    await privateDir(dir);
    key ??= await loadKey(dir);
    return key;
  };
  async function write(lines) {
    const size = await stat(file).then((s) => s.size, () => 0);
    const data = lines.join("");
    if (size + Buffer.byteLength(data) > MAX_SPOOL_BYTES) {
      logger.warn(`${PLUGIN_ID}: spool ${file} is full (${size} bytes); dropping ${lines.length} write(s)`);
      return;
    }
    await appendFile(file, data, { encoding: "utf8", mode: 0o600 });
    await chmod(file, 0o600);
  }
  async function add(path, body, at = Date.now() / 1000) {
    if (!SPOOL_ROUTES.has(path)) return;
    try {
      const k = await ready();
      const sealed = seal(k, body);
      const line = JSON.stringify({ path, at, sealed, mac: macOf(k, path, at, sealed) }) + "\n";
      if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
        logger.warn(`${PLUGIN_ID}: a ${path} write of ${Buffer.byteLength(line)} bytes is too large to spool; dropped`);
        return;
      }
      await write([line]);
    } catch (err) {
      logger.warn(`${PLUGIN_ID}: cannot spool a ${path} write to ${file}: ${describe(err)}`);
    }
  }
  const size = () => stat(file).then((s) => s.size, () => 0);
  async function pending() {
    return (await size()) > 0;
  }
  return {
    add,
    file,
    pending,
    size,
    /** Replay with send(path, body) -> "done" | "retry"; one drain at a time per process. */
    drain(send) {
      if (!draining) {
        draining = (async () => replay(dir, file, await ready(), send, write, logger))()
          .catch((err) => logger.warn(`${PLUGIN_ID}: spool replay failed: ${describe(err)}`))
          .finally(() => { draining = null; });
      }
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
    if (age > STALE_DRAIN_MS && (await moved(path, `${path}.${process.pid}.draining`))) {
      claimed.push(`${path}.${process.pid}.draining`);
    }
  }
  return claimed;
}

async function replay(dir, file, key, send, write, logger) {
  for (const path of await claim(dir, file)) {
    const lines = (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);
    const keep = [];
    let forged = 0;
    for (const line of lines) {
      let entry;
      try { entry = JSON.parse(line); } catch { forged += 1; continue; }
      const body = opened(key, entry);
      if (body === null) { forged += 1; continue; }
      // Once one write fails the service is still away: keep the rest in order, untried.
      if (keep.length || (await send(entry.path, { ...body, spooled_at: entry.at })) === "retry") {
        keep.push(line + "\n");
      }
    }
    if (forged) logger.warn(`${PLUGIN_ID}: dropped ${forged} spool line(s) that failed the check (not written by this plugin)`);
    if (keep.length) await write(keep);
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

/** Delivered: answered 200, or 202 (queued, and journaled by the service before it answered). */
const DELIVERED = new Set([200, 202]);

/** Calls that ran without the service, kept in failopen.json beside the spool (see the header). */
export function createFailOpen(dir, logger) {
  const file = join(dir, "failopen.json");
  let outage = false;
  let begun = 0; // outages started so far
  let during = 0;
  let writing = Promise.resolve();
  const read = async () => {
    try { return JSON.parse(await readFile(file, "utf8")); } catch { return {}; }
  };
  async function record(path, err, spooled, starting) {
    const now = new Date().toISOString();
    const was = await read();
    const next = {
      count: (Number(was.count) || 0) + 1,
      spooled: (Number(was.spooled) || 0) + (spooled ? 1 : 0),
      outages: (Number(was.outages) || 0) + (starting ? 1 : 0),
      first_at: was.first_at || now,
      last_at: now,
      last_error: `${path}: ${describe(err)}`.slice(0, 300),
    };
    await privateDir(dir);
    await writeFile(file, JSON.stringify(next) + "\n", { mode: 0o600 });
    await chmod(file, 0o600);
    return next;
  }
  return {
    file,
    read,
    /** One failed call: counted; the first of an outage is a warning the user sees. */
    failed(path, err, spooled) {
      const starting = !outage;
      if (starting) begun += 1;
      during += 1;
      writing = writing.then(() => record(path, err, spooled, starting)).catch(() => {});
      outage = true;
      if (starting) {
        logger.warn(`${PLUGIN_ID}: the memory service cannot be reached (${path}: ${describe(err)}); ` +
          `agents run WITHOUT long-term memory until it answers again` +
          `${spooled ? "; captures are spooled and replayed then" : ""} (counted in ${file})`);
      }
      return writing;
    },
    /** Which outage is current, taken when a call is sent (see recovered). */
    ticket: () => begun,
    /** A call was delivered: an outage, if there was one, is over. A reply to a call sent before
     * the outage began says nothing about now (a slow answer landing after a refusal) and ends
     * nothing. */
    recovered(sentDuring = begun) {
      if (!outage || sentDuring !== begun) return;
      logger.warn(`${PLUGIN_ID}: the memory service answers again; ${during} call(s) ran without it during the outage`);
      outage = false;
      during = 0;
    },
    settled: () => writing,
  };
}

/** HTTP client: post() never throws; it returns the JSON body, or null after a failure. */
export function createClient(cfg, logger, fetchImpl = globalThis.fetch) {
  const spool = createSpool(cfg.spoolDir, logger);
  const failOpen = createFailOpen(cfg.spoolDir, logger);
  async function send(path, body, timeoutMs) {
    const headers = { "content-type": "application/json" };
    if (cfg.token) headers.authorization = `Bearer ${cfg.token}`;
    const sentDuring = failOpen.ticket();
    const res = await fetchImpl(`${cfg.serviceUrl}${path}`, {
      method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!DELIVERED.has(res.status)) {
      const err = new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
      err.status = res.status;
      err.detail = serviceMessage(text);
      throw err;
    }
    failOpen.recovered(sentDuring);
    return text ? JSON.parse(text) : {};
  }
  // spool: keep a failed write for later. answerRejections: return {rejected, status, message}
  // for a 4xx instead of logging it (a tool's "not found" is an answer, not a failure).
  // Calls that went on without memory, told to the service (its /metrics) once it answers again.
  let failedOpen = 0;
  async function report() {
    const count = failedOpen;
    failedOpen = 0;
    try {
      await send("/service/report", { fail_open: count, spool_bytes: await spool.size() }, cfg.timeoutMs);
    } catch (err) {
      if (retryable(err)) failedOpen += count; // an older service without the route: dropped
    }
  }
  async function post(path, body, { timeoutMs = cfg.timeoutMs, spool: spoolIt = false, answerRejections = false } = {}) {
    if (spoolIt && SPOOL_ROUTES.has(path) && !body.capture_id) body = { ...body, capture_id: randomUUID().replaceAll("-", "") };
    try {
      const out = await send(path, body, timeoutMs);
      client.lastDrain = spool.drain(replayOne);
      if (failedOpen) client.lastReport = report();
      return out;
    } catch (err) {
      const again = retryable(err);
      if (!again && answerRejections) return { rejected: true, status: err.status, message: err.detail };
      const spooled = spoolIt && again;
      if (spooled) await spool.add(path, body);
      const unauthorized = err?.status === 401 || err?.status === 403;
      if (again && !unauthorized) {
        failedOpen += 1; // for the service's /metrics, once it answers again
        await failOpen.failed(path, err, spooled); // the service is away: counted, warned once
        return null;
      }
      const note = spooled ? `; spooled to ${spool.file}` : "; continuing without memory";
      const hint = unauthorized
        ? " (the token does not match the service's: run `openclaw-memory openclaw install` again)" : "";
      logger.warn(`${PLUGIN_ID}: POST ${cfg.serviceUrl}${path} failed: ${describe(err)}${hint}${note}`);
      failedOpen += 1;
      return null;
    }
  }
  async function replayOne(path, body) {
    try {
      await send(path, body, cfg.timeoutMs);
      return "done";
    } catch (err) {
      if (retryable(err)) return "retry";
      if (err?.status !== 410) logger.warn(`${PLUGIN_ID}: a spooled ${path} write was refused for good: ${describe(err)}`);
      return "done"; // refused for good (410: its user was purged since): dropped
    }
  }
  /** Replay what the spool holds now, within budgetMs (the recall that follows sees it). */
  async function replaySpool(budgetMs) {
    if (!(await spool.pending())) return;
    const drained = spool.drain(replayOne);
    await Promise.race([drained, new Promise((r) => setTimeout(r, budgetMs).unref?.())]);
  }
  const client = { post, spool, failOpen, replaySpool, lastDrain: Promise.resolve(), lastReport: Promise.resolve() };
  client.waitReady = createReadiness(cfg, logger, fetchImpl);
  return client;
}

// not unref'd: a one-shot run waiting for the service must stay alive through the wait (bounded)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** waitReady(): resolves true once GET /health says the service is ready (it opens its port
 * only after its warm-up), polling for at most cfg.startupWaitMs once per process; after that
 * wait ran out it resolves false at once, so a service that is down costs one wait, not one a turn. */
function createReadiness(cfg, logger, fetchImpl) {
  let state = cfg.startupWaitMs > 0 ? "unknown" : "ready"; // unknown | ready | gave-up
  let waiting = null;
  async function probe() {
    try {
      const res = await fetchImpl(`${cfg.serviceUrl}/health`, { signal: AbortSignal.timeout(1000) });
      return res.ok && (await res.json().catch(() => ({}))).ready !== false;
    } catch {
      return false;
    }
  }
  async function poll() {
    const started = Date.now();
    let waited = false;
    while (Date.now() - started < cfg.startupWaitMs) {
      if (await probe()) {
        if (waited) logger.info(`${PLUGIN_ID}: the service at ${cfg.serviceUrl} is ready after ${Date.now() - started} ms`);
        state = "ready";
        return true;
      }
      waited = true;
      await sleep(250);
    }
    state = "gave-up";
    logger.warn(`${PLUGIN_ID}: the service at ${cfg.serviceUrl} was not ready within ${cfg.startupWaitMs} ms; `
      + "continuing without memory until it answers (start it: ~/.config/openclaw-memory/serve.sh)");
    return false;
  }
  return function waitReady() {
    if (state !== "unknown") return Promise.resolve(state === "ready");
    waiting ??= poll().finally(() => { waiting = null; });
    return waiting;
  };
}
