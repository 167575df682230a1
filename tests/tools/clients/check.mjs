// Small harness shared by the node client tests: named steps that print
// "ok <name>" or "FAIL <name>: <why>", assertions that say what they got, and
// a timeout for anything that waits on the server. A failed step ends the
// run with exit code 1 after the remaining cleanup.
import { inspect } from 'node:util';
import { isDeepStrictEqual } from 'node:util';

export const failures = [];

// Runs one named step; a thrown error, or no end within ms, marks it failed
// and the run goes on.
export async function step(name, fn, ms = 10000) {
  const started = Date.now();
  try {
    await withTimeout(fn(), ms, `step '${name}'`);
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (err) {
    failures.push(name);
    console.log(`FAIL ${name}: ${err && err.stack ? err.stack : err}`);
  }
}

const show = (v) => inspect(v, { depth: 4, breakLength: Infinity, maxArrayLength: 8 });

export function eq(got, want, what) {
  if (!isDeepStrictEqual(got, want)) {
    throw new Error(`${what}: got ${show(got)}, want ${show(want)}`);
  }
}

export function ok(cond, what) {
  if (!cond) throw new Error(what);
}

// Awaits p and expects it to reject with exactly the message `want`.
export async function rejects(p, want, what) {
  let got;
  try {
    const v = await p;
    throw new Error(`${what}: resolved with ${show(v)}, want the error '${want}'`);
  } catch (err) {
    if (err.message.startsWith(`${what}: resolved`)) throw err;
    got = err;
  }
  eq(got.message, want, `${what} error message`);
  return got;
}

// Rejects with a message naming `what` if p has not settled within ms.
export function withTimeout(p, ms, what) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

// The number of connected clients, from INFO clients, as the server sees it.
export function connectedClients(info) {
  const m = /connected_clients:(\d+)/.exec(info);
  if (!m) throw new Error(`no connected_clients in INFO: ${info.slice(0, 200)}`);
  return Number(m[1]);
}

export function finish(label) {
  if (failures.length) {
    console.log(`${label}: ${failures.length} failed: ${failures.join(', ')}`);
    process.exit(1);
  }
  console.log(`${label}: all checks passed`);
  process.exit(0);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
