// node-redis (the `redis` package) against a running server, as a cache user
// drives it.
//   node node_redis.mjs <port> <RESP 2|3>
// NODE_CLIENTS_DIR: where install-node-clients.sh put node_modules.
// LAWNKV_REFERENCE=1: the server is redis-server; lawnkv-only steps
// (DEBUG ADVANCE-TIME, REDE.*) are skipped.
// The server must run with notify-keyspace-events Ex and, for lawnkv,
// enable-debug-command yes.
import { createRequire } from 'node:module';
import { step, eq, ok, rejects, withTimeout, connectedClients, finish } from './check.mjs';

const require = createRequire(`${process.env.NODE_CLIENTS_DIR}/`);
const { createClient } = require('redis');
const version = require('redis/package.json').version;

const port = Number(process.argv[2]);
const RESP = Number(process.argv[3] || 2);
const reference = process.env.LAWNKV_REFERENCE === '1';
const label = `node-redis ${version} RESP${RESP}`;

// No reconnects, so a server fault fails the step at once. Connection errors
// are collected and reported by the last step.
const clientErrors = [];
function client() {
  const c = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, RESP });
  c.on('error', (err) => clientErrors.push(err));
  return c;
}
const prefix = `nr${RESP}:`;
const k = (s) => prefix + s;
const EX = (value) => ({ expiration: { type: 'EX', value } });
const PX = (value) => ({ expiration: { type: 'PX', value } });

const admin = client();
const redis = client();
let sub;

await step('connect (handshake: HELLO, CLIENT SETINFO)', async () => {
  await admin.connect();
  await redis.connect();
  eq(await redis.ping(), 'PONG', 'PING');
});

await step(`the connection speaks RESP${RESP} (CLIENT INFO, HELLO)`, async () => {
  const info = String(await redis.sendCommand(['CLIENT', 'INFO']));
  eq(/ resp=(\d+)/.exec(info)?.[1], String(RESP), `resp= in CLIENT INFO '${info.trim()}'`);
  const hello = await redis.sendCommand(['HELLO']);
  // RESP3: a map (an object here); RESP2: a flat array of names and values.
  const fields = RESP === 3 ? hello : Object.fromEntries(
    Array.from({ length: hello.length / 2 }, (_, i) => [hello[2 * i], hello[2 * i + 1]]));
  eq(fields.proto, RESP, 'HELLO proto');
  eq(fields.server, 'redis', 'HELLO server');
});

await step('CONFIG GET (a map in RESP3)', async () => {
  // node-redis 5 gives an object without a prototype: compare a copy
  eq({ ...(await redis.configGet('notify-keyspace-events')) }, { 'notify-keyspace-events': 'xE' }, 'CONFIG GET');
});

await step('SET with EX and PX, GET, TTL, PTTL', async () => {
  eq(await redis.set(k('ex'), 'v1', EX(100)), 'OK', 'SET EX');
  eq(await redis.set(k('px'), 'v2', PX(5000)), 'OK', 'SET PX');
  eq(await redis.get(k('ex')), 'v1', 'GET');
  eq(await redis.ttl(k('ex')), 100, 'TTL of EX 100');
  const pttl = await redis.pTTL(k('px'));
  ok(pttl > 4000 && pttl <= 5000, `PTTL of PX 5000 = ${pttl}`);
  eq(await redis.get(k('missing')), null, 'GET missing');
  eq(await redis.set(k('ex'), 'v3', { ...EX(100), condition: 'NX' }), null, 'SET NX on an existing key');
  eq(await redis.set(k('ex'), 'v1', { GET: true, expiration: 'KEEPTTL' }), 'v1', 'SET GET KEEPTTL');
  eq(await redis.ttl(k('ex')), 100, 'TTL after SET KEEPTTL');
});

await step('MGET', async () => {
  eq(await redis.mGet([k('ex'), k('missing'), k('px')]), ['v1', null, 'v2'], 'MGET');
});

await step('INCR, and INCR on a non-integer is an error', async () => {
  eq(await redis.incr(k('n')), 1, 'INCR');
  eq(await redis.incr(k('n')), 2, 'INCR');
  eq(await redis.incrBy(k('n'), 40), 42, 'INCRBY');
  await redis.set(k('word'), 'abc');
  await rejects(redis.incr(k('word')), 'ERR value is not an integer or out of range', 'INCR on "abc"');
  await rejects(redis.incrByFloat(k('word'), 1), 'ERR value is not a valid float', 'INCRBYFLOAT on "abc"');
});

await step('EXPIRE, TTL, PTTL, PERSIST', async () => {
  eq(await redis.ttl(k('n')), -1, 'TTL without expiry');
  eq(Number(await redis.expire(k('n'), 100)), 1, 'EXPIRE');
  eq(await redis.ttl(k('n')), 100, 'TTL after EXPIRE 100');
  const pttl = await redis.pTTL(k('n'));
  ok(pttl > 99000 && pttl <= 100000, `PTTL after EXPIRE 100 = ${pttl}`);
  eq(Number(await redis.pExpire(k('n'), 5000)), 1, 'PEXPIRE');
  eq(Number(await redis.expire(k('missing'), 100)), 0, 'EXPIRE on a missing key');
  eq(await redis.ttl(k('missing')), -2, 'TTL of a missing key');
  eq(Number(await redis.persist(k('n'))), 1, 'PERSIST');
  eq(await redis.ttl(k('n')), -1, 'TTL after PERSIST');
});

await step('DEL, EXISTS', async () => {
  eq(await redis.exists([k('ex'), k('px'), k('missing')]), 2, 'EXISTS');
  eq(await redis.del([k('ex'), k('px'), k('missing')]), 2, 'DEL');
  eq(await redis.exists(k('ex')), 0, 'EXISTS after DEL');
});

await step('error replies: unknown command, arity', async () => {
  await rejects(redis.sendCommand(['NOSUCHCMD', 'a', 'b']),
    "ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b' ", 'NOSUCHCMD a b');
  await rejects(redis.sendCommand(['GET']), "ERR wrong number of arguments for 'get' command", 'GET without a key');
  await rejects(redis.sendCommand(['SET', k('x'), 'v', 'EX', '0']), "ERR invalid expire time in 'set' command", 'SET EX 0');
});

await step('MULTI/EXEC', async () => {
  const res = await redis.multi().set(k('t'), '10').incr(k('t')).expire(k('t'), 50).ttl(k('t')).get(k('t')).exec();
  eq(res.map((r) => (typeof r === 'boolean' ? Number(r) : r)), ['OK', 11, 1, 50, '11'], 'EXEC replies');
});

await step('MULTI/EXEC with a failing command inside', async () => {
  // node-redis rejects with a MultiErrorReply that holds every reply.
  let err;
  try {
    await redis.multi().set(k('t2'), 'x').incr(k('t2')).get(k('t2')).exec();
  } catch (e) {
    err = e;
  }
  eq(err?.constructor?.name, 'MultiErrorReply', `EXEC with a failing INCR: ${err}`);
  eq(err.errorIndexes, [1], 'MultiErrorReply.errorIndexes');
  const res = err.replies;
  eq(res.length, 3, 'EXEC reply count');
  eq(res[0], 'OK', 'SET in MULTI');
  ok(res[1] instanceof Error, `INCR in MULTI: want an error, got ${res[1]}`);
  eq(res[1].message, 'ERR value is not an integer or out of range', 'INCR in MULTI error');
  eq(res[2], 'x', 'GET in MULTI');
});

await step('WATCH: a key changed by another client aborts EXEC', async () => {
  await redis.set(k('w'), '1');
  eq(await redis.watch(k('w')), 'OK', 'WATCH');
  await admin.set(k('w'), '2');
  let err;
  try {
    await redis.multi().set(k('w'), '3').exec();
  } catch (e) {
    err = e;
  }
  eq(err?.constructor?.name, 'WatchError', `EXEC after the watched key changed: ${err}`);
  eq(await redis.get(k('w')), '2', 'value after the aborted EXEC');
});

await step('a pipeline of 1,000 commands (execAsPipeline)', async () => {
  const p = redis.multi();
  for (let i = 0; i < 500; i++) p.set(k(`p:${i}`), `v${i}`, PX(60000));
  for (let i = 0; i < 500; i++) p.get(k(`p:${i}`));
  const res = await p.execAsPipeline();
  eq(res.length, 1000, 'pipeline reply count');
  for (let i = 0; i < 500; i++) {
    eq(res[i], 'OK', `SET p:${i}`);
    eq(res[500 + i], `v${i}`, `GET p:${i}`);
  }
});

await step('1,000 concurrent commands (auto-pipelined)', async () => {
  const res = await Promise.all(Array.from({ length: 1000 }, (_, i) => redis.incr(k('auto'))));
  eq(res, Array.from({ length: 1000 }, (_, i) => i + 1), 'INCR replies in order');
});

await step('SCAN over 2,000 keys with scanIterator', async () => {
  const kv = {};
  for (let i = 0; i < 2000; i++) kv[k(`scan:${i}`)] = String(i);
  eq(await redis.mSet(kv), 'OK', 'MSET 2000 keys');
  const seen = new Set();
  // node-redis 5 and 6 yield one array per SCAN page (4 yielded single keys).
  for await (const batch of redis.scanIterator({ MATCH: k('scan:*'), COUNT: 100 })) {
    for (const key of [].concat(batch)) seen.add(key);
  }
  eq(seen.size, 2000, 'distinct keys from scanIterator');
  for (let i = 0; i < 2000; i++) ok(seen.has(k(`scan:${i}`)), `scanIterator missed scan:${i}`);
});

await step('subscriber receives __keyevent@0__:expired for a key with PX 50', async () => {
  sub = redis.duplicate();
  sub.on('error', (err) => clientErrors.push(err));
  await sub.connect();
  const channel = '__keyevent@0__:expired';
  const key = k('short');
  let resolve;
  const got = new Promise((r) => { resolve = r; });
  await sub.subscribe(channel, (message, ch) => { if (ch === channel && message === key) resolve(message); });
  const started = Date.now();
  eq(await redis.set(key, 'v', PX(50)), 'OK', 'SET PX 50');
  await withTimeout(got, 5000, 'the expired event');
  const lag = Date.now() - started;
  ok(lag >= 50, `expired event after ${lag} ms, before the 50 ms TTL`);
  eq(await redis.exists(key), 0, 'EXISTS after the expired event');
  await sub.unsubscribe(channel);
  if (RESP === 3) eq(await sub.ping(), 'PONG', 'PING on the RESP3 connection after UNSUBSCRIBE');
});

if (!reference) {
  await step('DEBUG ADVANCE-TIME expires a key with EX 100', async () => {
    await redis.set(k('adv'), 'v', EX(100));
    eq(await redis.sendCommand(['DEBUG', 'ADVANCE-TIME', '100001']), 'OK', 'DEBUG ADVANCE-TIME');
    eq(await redis.get(k('adv')), null, 'GET after 100.001 s');
  });

  await step('REDE.PUSH / REDE.POLL with DEBUG ADVANCE-TIME', async () => {
    const q = k('dehy');
    const cmd = (...args) => redis.sendCommand(args);
    eq(await cmd('REDE.PUSH', q, '1000', 'first', 'id1'), 'OK', 'REDE.PUSH id1');
    eq(await cmd('REDE.PUSH', q, '1000', 'second', 'id2'), 'OK', 'REDE.PUSH id2');
    await rejects(cmd('REDE.PUSH', q, '1000', 'again', 'id1'),
      'ERROR: Element already dehydrating.', 'REDE.PUSH of a dehydrating id');
    eq(await cmd('REDE.POLL', q), [], 'REDE.POLL before the TTL');
    eq(await cmd('REDE.LOOK', q, 'id2'), 'second', 'REDE.LOOK');
    eq(await redis.type(q), 'dehy-type', 'TYPE of a dehydrator');
    await rejects(redis.get(q), 'WRONGTYPE Operation against a key holding the wrong kind of value', 'GET on a dehydrator');
    eq(await cmd('DEBUG', 'ADVANCE-TIME', '500'), 'OK', 'DEBUG ADVANCE-TIME 500');
    eq(await cmd('REDE.POLL', q), [], 'REDE.POLL half way through the TTL');
    eq(await cmd('DEBUG', 'ADVANCE-TIME', '1000'), 'OK', 'DEBUG ADVANCE-TIME 1000');
    eq(await cmd('REDE.POLL', q), ['first', 'second'], 'REDE.POLL after the TTL, in push order');
    eq(await cmd('REDE.TTN', q), -1, 'REDE.TTN of an emptied dehydrator');
    eq(await redis.del(q), 1, 'DEL of the dehydrator');
  });
}

// node-redis's client-side cache (RESP3 only): the client turns CLIENT
// TRACKING on at connect, serves a repeated GET from its cache, and drops
// the entry when the server's invalidation push comes.
if (RESP === 3) {
  await step('client-side cache: tracking on, a cached GET invalidated by another client\'s SET', async () => {
    const csc = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, RESP: 3,
                               clientSideCache: { ttl: 0, maxEntries: 0 } });
    csc.on('error', (err) => clientErrors.push(err));
    await withTimeout(csc.connect(), 5000, 'connect with clientSideCache');
    const flags = / flags=(\S+)/.exec(String(await csc.sendCommand(['CLIENT', 'INFO'])))?.[1] ?? '';
    ok(flags.includes('t'), `CLIENT INFO flags '${flags}' of the caching client lack t`);
    const key = k('csc');
    await admin.set(key, 'one');
    eq(await csc.get(key), 'one', 'first GET (a miss)');
    eq(await csc.get(key), 'one', 'second GET (from the cache)');
    eq(csc.clientSideCache.stats().hitCount, 1, 'cache hits after two GETs');
    eq(csc.clientSideCache.size(), 1, 'cache entries after two GETs');
    await admin.set(key, 'two');
    // The push reaches the caching connection on its own: wait for it.
    for (const deadline = Date.now() + 5000; Date.now() < deadline && csc.clientSideCache.size() > 0;)
      await new Promise((r) => setTimeout(r, 5));
    eq(csc.clientSideCache.size(), 0, 'cache entries after another client\'s SET');
    eq(await csc.get(key), 'two', 'GET after the invalidation');
    await csc.close();
  });
}

await step('clean disconnect: close(), and the server drops the connections', async () => {
  const close = (c) => (typeof c.close === 'function' ? c.close() : c.quit());
  if (sub) await close(sub);
  await close(redis);
  ok(!redis.isOpen, 'client still open after close()');
  let n = -1;
  for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
    n = connectedClients(await admin.info('clients'));
    if (n === 1) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  eq(n, 1, 'connected_clients after close() (only this one left)');
  await close(admin);
  eq(clientErrors.map(String), [], "errors emitted on the clients' 'error' event");
});

finish(label);
