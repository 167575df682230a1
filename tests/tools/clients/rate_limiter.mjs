// rate-limiter-flexible's RateLimiterRedis against a running server, as an
// API's rate limiting drives it: consume within and beyond the limit, the
// rejection's RateLimiterRes, penalty and reward, get and delete, block and
// blockDuration, a window that ends, and a limiter without expiry.
//   node rate_limiter.mjs <port> <ioredis|node-redis>
// With ioredis (RESP2) the limiter's Lua script is a defineCommand (EVALSHA,
// EVAL on NOSCRIPT); with node-redis (useRedisPackage, RESP3) it is EVAL. Its other paths are
// MULTI/EXEC of SET EX + PTTL, GET + PTTL, INCRBY + PTTL, and DEL.
// NODE_CLIENTS_DIR: where install-node-clients.sh put node_modules.
import { createRequire } from 'node:module';
import { step, eq, ok, withTimeout, finish, sleep } from './check.mjs';

const require = createRequire(`${process.env.NODE_CLIENTS_DIR}/`);
const { RateLimiterRedis, RateLimiterRes } = require('rate-limiter-flexible');
const version = require('rate-limiter-flexible/package.json').version;

const port = Number(process.argv[2]);
const which = process.argv[3] || 'ioredis';
const label = `rate-limiter-flexible ${version} on ${which}`;

let client;
let useRedisPackage = false;
if (which === 'ioredis') {
  const Redis = require('ioredis');
  client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null });
} else {
  const { createClient } = require('redis');
  // RESP3: the script's table comes back as a RESP3 array.
  client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, RESP: 3 });
  client.on('error', (err) => console.log(`node-redis error: ${err.message}`));
  await client.connect();
  useRedisPackage = true;
}
// The raw client for PTTL and GET of the limiter's keys.
const pttl = (key) => (useRedisPackage ? client.pTTL(key) : client.pttl(key));

const prefix = `rl-${which}`;
const limiter = (opts) => new RateLimiterRedis({ storeClient: client, useRedisPackage, keyPrefix: prefix, ...opts });

// Awaits a consume that must be refused; returns its RateLimiterRes.
async function refused(p, what) {
  try {
    const res = await p;
    throw new Error(`${what}: allowed (${JSON.stringify(res)}), want a rejection`);
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    return res;
  }
}

const inWindow = (ms, windowMs, what) =>
  ok(ms > 0 && ms <= windowMs, `${what}: msBeforeNext ${ms}, want in (0, ${windowMs}]`);

await step('consume within the limit: remaining points count down', async () => {
  const rl = limiter({ points: 5, duration: 60 });
  for (let i = 1; i <= 5; i++) {
    const res = await rl.consume('user1');
    eq(res.consumedPoints, i, `consumedPoints after ${i}`);
    eq(res.remainingPoints, 5 - i, `remainingPoints after ${i}`);
    eq(res.isFirstInDuration, i === 1, `isFirstInDuration after ${i}`);
    inWindow(res.msBeforeNext, 60000, `consume ${i}`);
  }
  const ttl = await pttl(`${prefix}:user1`);
  ok(ttl > 0 && ttl <= 60000, `PTTL of the limiter's key ${ttl}, want in (0, 60000]`);
});

await step('consume beyond the limit is refused with remainingPoints 0 and msBeforeNext', async () => {
  const rl = limiter({ points: 5, duration: 60 });
  const res = await refused(rl.consume('user1'), 'sixth consume');
  eq(res.remainingPoints, 0, 'remainingPoints');
  eq(res.consumedPoints, 6, 'consumedPoints');
  inWindow(res.msBeforeNext, 60000, 'refusal');
  const res2 = await refused(rl.consume('user1', 2), 'consume of 2 more');
  eq(res2.consumedPoints, 8, 'consumedPoints after 2 more');
  // another key has its own budget
  eq((await rl.consume('user2', 3)).remainingPoints, 2, 'remainingPoints of another key');
});

await step('get, penalty, reward, delete', async () => {
  const rl = limiter({ points: 10, duration: 60 });
  eq(await rl.get('pr'), null, 'get of an unknown key');
  await rl.consume('pr', 2);
  eq((await rl.penalty('pr', 3)).consumedPoints, 5, 'consumedPoints after a penalty of 3');
  eq((await rl.reward('pr', 4)).consumedPoints, 1, 'consumedPoints after a reward of 4');
  const got = await rl.get('pr');
  eq([got.consumedPoints, got.remainingPoints], [1, 9], 'get: consumed and remaining');
  inWindow(got.msBeforeNext, 60000, 'get');
  eq(await rl.delete('pr'), true, 'delete of a known key');
  eq(await rl.delete('pr'), false, 'delete of a deleted key');
  eq(await rl.get('pr'), null, 'get after delete');
  eq((await rl.consume('pr')).remainingPoints, 9, 'remainingPoints after delete');
});

await step('blockDuration: going over blocks the key for 30 s, beyond its 2 s window', async () => {
  const rl = limiter({ points: 2, duration: 2, blockDuration: 30 });
  await rl.consume('bd');
  await rl.consume('bd');
  const res = await refused(rl.consume('bd'), 'third consume');
  ok(res.msBeforeNext > 2000 && res.msBeforeNext <= 30000,
    `msBeforeNext ${res.msBeforeNext}, want in (2000, 30000] (the block, not the window)`);
  const ttl = await pttl(`${prefix}:bd`);
  ok(ttl > 2000 && ttl <= 30000, `PTTL of the blocked key ${ttl}, want in (2000, 30000]`);
  const again = await refused(rl.consume('bd'), 'consume while blocked');
  ok(again.msBeforeNext > 2000, `msBeforeNext while blocked ${again.msBeforeNext}`);
});

await step('block(key, 20) refuses every consume for 20 s', async () => {
  const rl = limiter({ points: 100, duration: 1 });
  const res = await rl.block('blk', 20);
  ok(res.msBeforeNext > 1000 && res.msBeforeNext <= 20000, `msBeforeNext of block ${res.msBeforeNext}`);
  const r = await refused(rl.consume('blk'), 'consume of a blocked key');
  eq(r.remainingPoints, 0, 'remainingPoints of a blocked key');
  ok(r.msBeforeNext > 1000, `msBeforeNext of a blocked key ${r.msBeforeNext}`);
});

await step('the window ends: after msBeforeNext the budget is whole again', async () => {
  const rl = limiter({ points: 1, duration: 1 });
  await rl.consume('win');
  const res = await refused(rl.consume('win'), 'second consume in the window');
  // Waits for the window the server announced, plus room for a slow machine.
  await sleep(res.msBeforeNext + 100);
  let after;
  // The key expires at the server's time; a late expiry shows as a refusal,
  // so retry for a generous while before calling it a failure.
  for (let i = 0; i < 50 && !after; i++) {
    after = await rl.consume('win').catch(() => null);
    if (!after) await sleep(100);
  }
  ok(after, 'consume after the window ended: still refused after 5 s');
  eq(after.consumedPoints, 1, 'consumedPoints in the new window');
  eq(after.isFirstInDuration, true, 'isFirstInDuration in the new window');
}, 20000);

await step('duration 0: points never expire (INCRBY + PTTL in MULTI)', async () => {
  const rl = limiter({ points: 3, duration: 0 });
  eq((await rl.consume('forever')).remainingPoints, 2, 'remainingPoints');
  eq((await rl.consume('forever', 2)).remainingPoints, 0, 'remainingPoints at the limit');
  const res = await refused(rl.consume('forever'), 'consume beyond the limit');
  eq(res.msBeforeNext, -1, 'msBeforeNext of a key without expiry (PTTL -1)');
  eq(await pttl(`${prefix}:forever`), -1, 'PTTL of the key');
});

await withTimeout(client.quit(), 5000, 'QUIT').catch(() => {});
finish(label);
