// ioredis and node-redis finding the primary through Sentinel, across a
// failover (tests/tools/sentinel_clients.sh).
//   node sentinel_clients.mjs <sentinel port> <primary port> <replica port> <password>
// NODE_CLIENTS_DIR: where install-node-clients.sh put node_modules.
// Each client connects by the sentinel ("m") alone and writes; SENTINEL
// FAILOVER m promotes the replica; each client must then write to the new
// primary within a bound (ioredis with failoverDetector, which follows
// +switch-master; node-redis's sentinel client follows the events it
// subscribes to). Which server a client talks to is read from the server
// itself (CLIENT INFO's laddr). The old primary stays a primary for ~8 s
// (Sentinel's grace before it reconfigures a server that says so): a
// client that did not move would still write there, and fail the check
// (ioredis without failoverDetector moves only after ~11 s).
import { createRequire } from 'node:module';
import { step, eq, withTimeout, finish, sleep } from './check.mjs';

const require = createRequire(`${process.env.NODE_CLIENTS_DIR}/`);
const Redis = require('ioredis');
const { createSentinel } = require('redis');
const ioVersion = require('ioredis/package.json').version;
const nrVersion = require('redis/package.json').version;

const [sentinelPort, primaryPort, replicaPort] = process.argv.slice(2, 5).map(Number);
const password = process.argv[5];
const host = '127.0.0.1';
const label = `ioredis ${ioVersion} and node-redis ${nrVersion} through Sentinel`;

// The port of the server a connection talks to, as that server says.
const serverPort = (clientInfo) => Number(/ laddr=[^ ]*:(\d+) /.exec(clientInfo)?.[1]);

const admin = new Redis({ host, port: sentinelPort, lazyConnect: true });
const direct = (port) => new Redis({ host, port, password, lazyConnect: true, maxRetriesPerRequest: 0 });

const io = new Redis({
  sentinels: [{ host, port: sentinelPort }],
  name: 'm',
  password,
  failoverDetector: true,
  lazyConnect: true,
});
const nr = createSentinel({
  name: 'm',
  sentinelRootNodes: [{ host, port: sentinelPort }],
  nodeClientOptions: { password },
});
nr.on('error', () => {}); // connection errors during the failover are expected

const clients = {
  ioredis: {
    info: () => io.client('INFO'),
    set: (k, v) => io.set(k, v),
  },
  'node-redis': {
    info: () => nr.sendCommand(false, ['CLIENT', 'INFO']),
    set: (k, v) => nr.set(k, v),
  },
};

// A flat [field, value, ...] reply as an object.
const fields = (flat) => Object.fromEntries(flat.flatMap((x, i) => (i % 2 ? [] : [[x, flat[i + 1]]])));

await step('the sentinel knows the replica, up and linked to the primary', async () => {
  await admin.connect();
  for (;;) {
    const up = (await admin.sentinel('REPLICAS', 'm')).map(fields).filter((r) =>
      Number(r.port) === replicaPort && r.flags === 'slave' && r['master-link-status'] === 'ok');
    if (up.length === 1) return;
    await sleep(50);
  }
}, 20000);

await step('each client connects through the sentinel to the primary and writes', async () => {
  await io.connect();
  await nr.connect();
  for (const [name, c] of Object.entries(clients)) {
    eq(serverPort(await c.info()), primaryPort, `${name}'s server`);
    eq(await c.set(`${name}:before`, '1'), 'OK', `${name} SET`);
  }
});

const failoverAt = Date.now();
await step('SENTINEL FAILOVER m', async () => {
  eq(await admin.sentinel('FAILOVER', 'm'), 'OK', 'SENTINEL FAILOVER');
});

// Each client, retried every 50 ms, both at once, until its write lands on
// the replica (now the primary). The bound is under Sentinel's 8 s grace
// before it turns the old primary into a replica (whose CLIENT KILL would
// move any client): only a client that follows Sentinel's events passes.
const kMoveBoundMs = 6000;
await Promise.all(Object.entries(clients).map(([name, c]) =>
  step(`${name} finds the new primary and writes to it`, async () => {
    let last;
    for (;;) {
      try {
        const port = serverPort(await withTimeout(c.info(), 1000, 'CLIENT INFO'));
        if (port === replicaPort) {
          eq(await c.set(`${name}:after`, '2'), 'OK', `${name} SET`);
          console.log(`     ${name}: writing to the new primary ${Date.now() - failoverAt} ms after SENTINEL FAILOVER`);
          return;
        }
        last = `talks to port ${port}`;
      } catch (err) {
        last = err.message;
      }
      if (Date.now() - failoverAt > kMoveBoundMs) throw new Error(`not within ${kMoveBoundMs} ms (last: ${last})`);
      await sleep(50);
    }
  }, kMoveBoundMs + 2000)));

await step('the new primary holds every write; the sentinel names it', async () => {
  const addr = await admin.sentinel('GET-MASTER-ADDR-BY-NAME', 'm');
  eq(Number(addr[1]), replicaPort, 'the primary Sentinel names');
  const p = direct(replicaPort);
  await p.connect();
  eq((await p.role())[0], 'master', 'ROLE of the promoted replica');
  for (const name of Object.keys(clients)) {
    eq(await p.get(`${name}:before`), '1', `${name}:before`);
    eq(await p.get(`${name}:after`), '2', `${name}:after`);
  }
  p.disconnect();
});

io.disconnect();
await nr.destroy().catch(() => {});
admin.disconnect();
finish(label);
