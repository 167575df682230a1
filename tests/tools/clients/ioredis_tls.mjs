// ioredis over TLS (its `tls` option) against a running server's tls-port,
// with a client certificate: SET/GET, a 1 MB value both ways, a pipeline of
// 1,000 commands, MULTI/EXEC, pub/sub on a second connection, and a client
// with the wrong CA refused.
//   node ioredis_tls.mjs <tls port> <certificate dir>
// NODE_CLIENTS_DIR: where install-node-clients.sh put node_modules.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { step, eq, ok, withTimeout, finish } from './check.mjs';

const require = createRequire(`${process.env.NODE_CLIENTS_DIR}/`);
const Redis = require('ioredis');

const port = Number(process.argv[2]);
const dir = process.argv[3];
const file = (name) => readFileSync(`${dir}/${name}`);
const tls = { ca: file('ca.crt'), cert: file('client.crt'), key: file('client.key'), servername: 'localhost' };
const options = { host: '127.0.0.1', port, tls, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null };

const redis = new Redis(options);
const sub = new Redis(options);

await step('connect over TLS', async () => {
  await redis.connect();
  await sub.connect();
  eq(await redis.ping(), 'PONG', 'PING');
});

await step('SET and GET', async () => {
  eq(await redis.set('tls:k', 'v', 'PX', 100000), 'OK', 'SET');
  eq(await redis.get('tls:k'), 'v', 'GET');
});

await step('a 1 MB value both ways', async () => {
  const big = 'x'.repeat(1 << 20);
  eq(await redis.set('tls:big', big), 'OK', 'SET');
  const back = await redis.get('tls:big');
  ok(back === big, `GET returned ${back === null ? 'null' : back.length + ' bytes'}`);
});

await step('a pipeline of 1,000 commands', async () => {
  const p = redis.pipeline();
  for (let i = 0; i < 1000; ++i) p.incr('tls:n');
  const replies = await p.exec();
  eq(replies.length, 1000, 'replies');
  eq(replies[999], [null, 1000], 'the last INCR');
});

await step('MULTI/EXEC', async () => {
  eq(await redis.multi().set('tls:m', '1').incr('tls:m').exec(), [[null, 'OK'], [null, 2]], 'EXEC');
});

await step('pub/sub', async () => {
  await sub.subscribe('tls:ch');
  const got = new Promise((resolve) => sub.on('message', (ch, msg) => resolve([ch, msg])));
  eq(await redis.publish('tls:ch', 'hello'), 1, 'PUBLISH receivers');
  eq(await withTimeout(got, 5000, 'the message'), ['tls:ch', 'hello'], 'message');
});

await step('a client that does not trust the server is refused', async () => {
  const stranger = new Redis({ ...options, tls: { ...tls, ca: file('other-ca.crt') } });
  let failed = false;
  stranger.on('error', () => {});
  try {
    await stranger.connect();
    await stranger.ping();
  } catch {
    failed = true;
  }
  stranger.disconnect();
  ok(failed, 'a client with another CA connected');
});

await redis.del('tls:k', 'tls:big', 'tls:n', 'tls:m');
redis.disconnect();
sub.disconnect();
finish('ioredis over TLS');
