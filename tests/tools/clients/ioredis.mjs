// ioredis against a running server, as a cache user drives it.
//   node ioredis.mjs <port> <protocol 2|3>
// NODE_CLIENTS_DIR: where install-node-clients.sh put node_modules.
// LAWNKV_REFERENCE=1: the server is redis-server; lawnkv-only steps
// (DEBUG ADVANCE-TIME, REDE.*) are skipped.
// The server must run with notify-keyspace-events Ex and, for lawnkv,
// enable-debug-command yes.
import { createRequire } from 'node:module';
import { step, eq, ok, rejects, withTimeout, connectedClients, finish } from './check.mjs';

const require = createRequire(`${process.env.NODE_CLIENTS_DIR}/`);
const Redis = require('ioredis');
const version = require('ioredis/package.json').version;
const major = Number(version.split('.')[0]);

const port = Number(process.argv[2]);
const protocol = Number(process.argv[3] || 2);
const reference = process.env.LAWNKV_REFERENCE === '1';
const label = `ioredis ${version} RESP${protocol}`;

if (protocol === 3 && major < 6) {
  console.log(`${label}: ioredis ${major} has no RESP3 option: skipped`);
  process.exit(0);
}

// No reconnects and one attempt per command, so a server fault fails the
// step at once instead of hanging in retries.
const options = {
  host: '127.0.0.1',
  port,
  lazyConnect: true,
  maxRetriesPerRequest: 0,
  retryStrategy: () => null,
  ...(major >= 6 ? { protocol } : {}),
};
const prefix = `io${protocol}:`;
const k = (s) => prefix + s;

const admin = new Redis(options);
const redis = new Redis(options);
let sub;

await step('connect (with the ready check: INFO)', async () => {
  await admin.connect();
  await redis.connect();
  eq(await redis.ping(), 'PONG', 'PING');
});

await step(`the connection speaks RESP${protocol} (CLIENT INFO)`, async () => {
  const info = await redis.client('INFO');
  eq(/ resp=(\d+)/.exec(info)?.[1], String(protocol), `resp= in CLIENT INFO '${info.trim()}'`);
});

await step('SET with EX and PX, GET, TTL, PTTL', async () => {
  eq(await redis.set(k('ex'), 'v1', 'EX', 100), 'OK', 'SET EX');
  eq(await redis.set(k('px'), 'v2', 'PX', 5000), 'OK', 'SET PX');
  eq(await redis.get(k('ex')), 'v1', 'GET');
  eq(await redis.ttl(k('ex')), 100, 'TTL of EX 100');
  const pttl = await redis.pttl(k('px'));
  ok(pttl > 4000 && pttl <= 5000, `PTTL of PX 5000 = ${pttl}`);
  eq(await redis.get(k('missing')), null, 'GET missing');
  eq(await redis.set(k('ex'), 'v3', 'EX', 100, 'NX'), null, 'SET NX on an existing key');
});

await step('MGET', async () => {
  eq(await redis.mget(k('ex'), k('missing'), k('px')), ['v1', null, 'v2'], 'MGET');
});

await step('INCR, and INCR on a non-integer is an error', async () => {
  eq(await redis.incr(k('n')), 1, 'INCR');
  eq(await redis.incr(k('n')), 2, 'INCR');
  eq(await redis.incrby(k('n'), 40), 42, 'INCRBY');
  await redis.set(k('word'), 'abc');
  await rejects(redis.incr(k('word')), 'ERR value is not an integer or out of range', 'INCR on "abc"');
  await rejects(redis.incrbyfloat(k('word'), 1), 'ERR value is not a valid float', 'INCRBYFLOAT on "abc"');
});

await step('EXPIRE, TTL, PTTL, PERSIST', async () => {
  eq(await redis.ttl(k('n')), -1, 'TTL without expiry');
  eq(await redis.expire(k('n'), 100), 1, 'EXPIRE');
  eq(await redis.ttl(k('n')), 100, 'TTL after EXPIRE 100');
  const pttl = await redis.pttl(k('n'));
  ok(pttl > 99000 && pttl <= 100000, `PTTL after EXPIRE 100 = ${pttl}`);
  eq(await redis.pexpire(k('n'), 5000), 1, 'PEXPIRE');
  eq(await redis.expire(k('missing'), 100), 0, 'EXPIRE on a missing key');
  eq(await redis.ttl(k('missing')), -2, 'TTL of a missing key');
  eq(await redis.persist(k('n')), 1, 'PERSIST');
  eq(await redis.ttl(k('n')), -1, 'TTL after PERSIST');
});

await step('DEL, EXISTS', async () => {
  eq(await redis.exists(k('ex'), k('px'), k('missing')), 2, 'EXISTS');
  eq(await redis.del(k('ex'), k('px'), k('missing')), 2, 'DEL');
  eq(await redis.exists(k('ex')), 0, 'EXISTS after DEL');
});

await step('error replies: unknown command, arity', async () => {
  await rejects(redis.call('NOSUCHCMD', 'a', 'b'),
    "ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b' ", 'NOSUCHCMD a b');
  await rejects(redis.call('GET'), "ERR wrong number of arguments for 'get' command", 'GET without a key');
  await rejects(redis.call('SET', k('x'), 'v', 'EX', '0'), "ERR invalid expire time in 'set' command", 'SET EX 0');
});

await step('MULTI/EXEC', async () => {
  const res = await redis.multi().set(k('t'), '10').incr(k('t')).expire(k('t'), 50).ttl(k('t')).get(k('t')).exec();
  eq(res, [[null, 'OK'], [null, 11], [null, 1], [null, 50], [null, '11']], 'EXEC replies');
});

await step('MULTI/EXEC with a failing command inside', async () => {
  const res = await redis.multi().set(k('t2'), 'x').incr(k('t2')).get(k('t2')).exec();
  eq(res.length, 3, 'EXEC reply count');
  eq(res[0], [null, 'OK'], 'SET in MULTI');
  ok(res[1][0] instanceof Error, `INCR in MULTI: want an error, got ${res[1]}`);
  eq(res[1][0].message, 'ERR value is not an integer or out of range', 'INCR in MULTI error');
  eq(res[2], [null, 'x'], 'GET in MULTI');
});

await step('WATCH: a key changed by another client aborts EXEC', async () => {
  await redis.set(k('w'), '1');
  eq(await redis.watch(k('w')), 'OK', 'WATCH');
  await admin.set(k('w'), '2');
  eq(await redis.multi().set(k('w'), '3').exec(), null, 'EXEC after the watched key changed');
  eq(await redis.get(k('w')), '2', 'value after the aborted EXEC');
});

await step('a pipeline of 1,000 commands', async () => {
  const p = redis.pipeline();
  for (let i = 0; i < 500; i++) p.set(k(`p:${i}`), `v${i}`, 'PX', 60000);
  for (let i = 0; i < 500; i++) p.get(k(`p:${i}`));
  const res = await p.exec();
  eq(res.length, 1000, 'pipeline reply count');
  for (let i = 0; i < 500; i++) {
    eq(res[i], [null, 'OK'], `SET p:${i}`);
    eq(res[500 + i], [null, `v${i}`], `GET p:${i}`);
  }
});

await step('SCAN over 2,000 keys with scanStream', async () => {
  const args = [];
  for (let i = 0; i < 2000; i++) args.push(k(`scan:${i}`), String(i));
  eq(await redis.mset(...args), 'OK', 'MSET 2000 keys');
  const seen = new Set();
  await new Promise((resolve, reject) => {
    const s = redis.scanStream({ match: k('scan:*'), count: 100 });
    s.on('data', (keys) => keys.forEach((key) => seen.add(key)));
    s.on('end', resolve);
    s.on('error', reject);
  });
  eq(seen.size, 2000, 'distinct keys from scanStream');
  for (let i = 0; i < 2000; i++) ok(seen.has(k(`scan:${i}`)), `scanStream missed scan:${i}`);
});

await step('subscriber receives __keyevent@0__:expired for a key with PX 50', async () => {
  sub = redis.duplicate();
  await sub.connect();
  const channel = '__keyevent@0__:expired';
  const key = k('short');
  const got = new Promise((resolve) => {
    sub.on('message', (ch, msg) => { if (ch === channel && msg === key) resolve(msg); });
  });
  eq(await sub.subscribe(channel), 1, 'SUBSCRIBE count');
  const started = Date.now();
  eq(await redis.set(key, 'v', 'PX', 50), 'OK', 'SET PX 50');
  await withTimeout(got, 5000, 'the expired event');
  const lag = Date.now() - started;
  ok(lag >= 50, `expired event after ${lag} ms, before the 50 ms TTL`);
  eq(await redis.exists(key), 0, 'EXISTS after the expired event');
  eq(await sub.unsubscribe(channel), 0, 'UNSUBSCRIBE count');
});

if (!reference) {
  await step('DEBUG ADVANCE-TIME expires a key with EX 100', async () => {
    await redis.set(k('adv'), 'v', 'EX', 100);
    eq(await redis.call('DEBUG', 'ADVANCE-TIME', '100001'), 'OK', 'DEBUG ADVANCE-TIME');
    eq(await redis.get(k('adv')), null, 'GET after 100.001 s');
  });

  await step('REDE.PUSH / REDE.POLL with DEBUG ADVANCE-TIME', async () => {
    const q = k('dehy');
    eq(await redis.call('REDE.PUSH', q, '1000', 'first', 'id1'), 'OK', 'REDE.PUSH id1');
    eq(await redis.call('REDE.PUSH', q, '1000', 'second', 'id2'), 'OK', 'REDE.PUSH id2');
    await rejects(redis.call('REDE.PUSH', q, '1000', 'again', 'id1'),
      'ERROR: Element already dehydrating.', 'REDE.PUSH of a dehydrating id');
    eq(await redis.call('REDE.POLL', q), [], 'REDE.POLL before the TTL');
    eq(await redis.call('REDE.LOOK', q, 'id2'), 'second', 'REDE.LOOK');
    eq(await redis.type(q), 'dehy-type', 'TYPE of a dehydrator');
    await rejects(redis.get(q), 'WRONGTYPE Operation against a key holding the wrong kind of value', 'GET on a dehydrator');
    eq(await redis.call('DEBUG', 'ADVANCE-TIME', '500'), 'OK', 'DEBUG ADVANCE-TIME 500');
    eq(await redis.call('REDE.POLL', q), [], 'REDE.POLL half way through the TTL');
    eq(await redis.call('DEBUG', 'ADVANCE-TIME', '1000'), 'OK', 'DEBUG ADVANCE-TIME 1000');
    eq(await redis.call('REDE.POLL', q), ['first', 'second'], 'REDE.POLL after the TTL, in push order');
    eq(await redis.call('REDE.TTN', q), -1, 'REDE.TTN of an emptied dehydrator');
    eq(await redis.del(q), 1, 'DEL of the dehydrator');
  });
}

await step('clean disconnect: QUIT, and the server drops the connections', async () => {
  if (sub) eq(await sub.quit(), 'OK', 'QUIT (subscriber)');
  eq(await redis.quit(), 'OK', 'QUIT');
  let n = -1;
  for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
    n = connectedClients(await admin.info('clients'));
    if (n === 1) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  eq(n, 1, 'connected_clients after QUIT (only this one left)');
  eq(await admin.quit(), 'OK', 'QUIT (admin)');
});

finish(label);
