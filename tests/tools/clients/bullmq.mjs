// BullMQ against a running server, as a job-queue user drives it: a Queue
// adds jobs, a Worker runs them, QueueEvents (XREAD BLOCK on the queue's
// event stream) reports them.
//   node bullmq.mjs <port> [ioredis|node-redis]
// ioredis (RESP2) by default; node-redis: one node-redis client handed to
// BullMQ's node-redis adapter, speaking RESP3 (node-redis 6; RESP2 with
// node-redis 5), so the scripts' replies and the event stream's come as RESP3.
// NODE_CLIENTS_DIR: where install-node-clients.sh put node_modules.
// Every wait is on a reply or an event, with a generous deadline: nothing
// assumes a fast machine. Delays are small (hundreds of ms) and checked only
// from below (a delayed job never runs before its time).
import { createRequire } from 'node:module';
import { step, eq, ok, withTimeout, finish } from './check.mjs';

const require = createRequire(`${process.env.NODE_CLIENTS_DIR}/`);
const { Queue, Worker, QueueEvents, Job, FlowProducer, MetricsTime } = require('bullmq');
const Redis = require('ioredis');
const version = require('bullmq/package.json').version;

const port = Number(process.argv[2]);
const driver = process.argv[3] || 'ioredis';
const label = `BullMQ ${version} on ${driver}`;
let connection = { host: '127.0.0.1', port };
if (driver === 'node-redis') {
  const { createClient } = require('redis');
  // node-redis 5 (the set for node < 20) over RESP3 throws "Some RESP3
  // results for Redis Query Engine responses may change" in BullMQ's
  // clients and no job completes, against redis-server too: RESP2 there.
  const major = Number(require('redis/package.json').version.split('.')[0]);
  connection = createClient({ socket: { host: '127.0.0.1', port }, RESP: major >= 6 ? 3 : 2 });
  // BullMQ adds listeners to the one shared client for each queue, worker and events.
  connection.setMaxListeners(100);
  connection.on('error', (err) => console.log(`node-redis error: ${err.message}`));
  await connection.connect();
}
const name = 'lawnkv-bullmq';
// Long enough for a loaded 2-core machine; a step may wait twice.
const WAIT_MS = 30000;
const STEP_MS = 2 * WAIT_MS + 5000;

// A queue with its QueueEvents and the helpers that wait on them. The first
// steps share one lane (the final counts add them up); each later step has
// a lane of its own, so one failing leaves no jobs behind for the next.
class Lane {
  constructor(queueName) {
    this.name = queueName;
    this.queue = new Queue(queueName, { connection });
    // From the stream's start, so no event is missed however late its first
    // XREAD BLOCK reaches the server (the default '$' would miss those).
    this.events = new QueueEvents(queueName, { connection, lastEventId: '0-0' });
  }

  async ready() {
    await this.queue.waitUntilReady();
    await this.events.waitUntilReady();
  }

  // Resolves with the QueueEvents payload of jobId's `event` ('completed'
  // or 'failed'); registered before the job can finish, so nothing is missed.
  eventFor(event, jobId) {
    return new Promise((resolve) => {
      const listener = (args) => {
        if (args.jobId !== jobId) return;
        this.events.off(event, listener);
        resolve(args);
      };
      this.events.on(event, listener);
    });
  }

  // Collects `count` `completed` events: job id -> returnvalue.
  completions(count) {
    const seen = new Map();
    return new Promise((resolve) => {
      const listener = (args) => {
        seen.set(args.jobId, args.returnvalue);
        if (seen.size === count) {
          this.events.off('completed', listener);
          resolve(seen);
        }
      };
      this.events.on('completed', listener);
    });
  }

  // A worker created with autorun: false and started here, after the jobs
  // a step added before it are all waiting.
  worker(processor, opts = {}) {
    const w = new Worker(this.name, processor, { connection, autorun: false, ...opts });
    w.on('error', (err) => console.log(`worker error: ${err.message}`));
    w.run().catch((err) => console.log(`worker run: ${err.message}`));
    return w;
  }

  async close() {
    await this.events.close();
    await this.queue.close();
  }
}

const main = new Lane(name);
const { queue, events } = main;
const eventFor = (event, jobId) => main.eventFor(event, jobId);
const completions = (count) => main.completions(count);
const worker = (processor, opts) => main.worker(processor, opts);
const admin = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null });

await step('connect: Queue, QueueEvents (waitUntilReady)', async () => {
  await main.ready();
  await queue.obliterate({ force: true });
  eq(await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed'),
    { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 }, 'counts of an empty queue');
}, STEP_MS);

await step('20 plain jobs: each return value through QueueEvents and Job', async () => {
  const jobs = [];
  for (let i = 0; i < 20; i++) jobs.push(await queue.add('sum', { a: i, b: 1000 }));
  eq(await queue.getWaitingCount(), 20, 'waiting jobs before any worker');
  eq(await jobs[0].getState(), 'waiting', 'state of a job with no worker');
  const done = completions(20);
  const w = worker(async (job) => job.data.a + job.data.b, { concurrency: 4 });
  const seen = await withTimeout(done, WAIT_MS, '20 completed events');
  await w.close();
  for (let i = 0; i < 20; i++) {
    eq(seen.get(jobs[i].id), i + 1000, `returnvalue of job ${jobs[i].id} in its completed event`);
    const job = await Job.fromId(queue, jobs[i].id);
    eq(job.returnvalue, i + 1000, `returnvalue of job ${jobs[i].id} read back`);
    eq(await job.getState(), 'completed', `state of job ${jobs[i].id}`);
    ok(job.finishedOn >= job.processedOn, `finishedOn ${job.finishedOn} >= processedOn ${job.processedOn}`);
  }
  eq(await queue.getJobCounts('waiting', 'active', 'completed'),
    { waiting: 0, active: 0, completed: 20 }, 'counts after the run');
}, STEP_MS);

await step('priorities: one worker takes 6 jobs in priority order', async () => {
  const order = [];
  const priorities = [5, 1, 3, 2, 6, 4];
  for (const p of priorities) await queue.add('prio', { p }, { priority: p });
  eq(await queue.getPrioritizedCount(), 6, 'prioritized jobs waiting');
  const done = completions(6);
  const w = worker(async (job) => { order.push(job.data.p); return job.data.p; }, { concurrency: 1 });
  await withTimeout(done, WAIT_MS, '6 completed events');
  await w.close();
  eq(order, [1, 2, 3, 4, 5, 6], 'processing order (lowest priority number first)');
}, STEP_MS);

await step('a delayed job waits in the delayed set, then runs no earlier than its delay', async () => {
  const delay = 400;
  const job = await queue.add('later', { x: 7 }, { delay });
  eq(await job.getState(), 'delayed', 'state right after add');
  eq(await queue.getDelayedCount(), 1, 'delayed count');
  const w = worker(async (j) => j.data.x * 6);
  const done = await withTimeout(eventFor('completed', job.id), WAIT_MS, 'completed event of the delayed job');
  await w.close();
  eq(done.returnvalue, 42, 'returnvalue in the event');
  const back = await Job.fromId(queue, job.id);
  ok(back.processedOn - back.timestamp >= delay,
    `processed ${back.processedOn - back.timestamp} ms after it was added, want >= ${delay}`);
  eq(await queue.getDelayedCount(), 0, 'delayed count after it ran');
}, STEP_MS);

await step('attempts with fixed backoff: fails twice, succeeds on the third attempt', async () => {
  const job = await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
  const w = worker(async (j) => {
    if (j.attemptsMade < 2) throw new Error(`attempt ${j.attemptsMade + 1} fails`);
    return 'third time';
  });
  const done = await withTimeout(eventFor('completed', job.id), WAIT_MS, 'completed event of the flaky job');
  await w.close();
  eq(done.returnvalue, 'third time', 'returnvalue in the event');
  const back = await Job.fromId(queue, job.id);
  eq(back.attemptsMade, 3, 'attemptsMade');
  ok(back.processedOn - back.timestamp >= 200,
    `third attempt ${back.processedOn - back.timestamp} ms after the add, want >= 2 backoffs of 100 ms`);
  eq(back.stacktrace.length, 2, 'stack traces kept of the two failures');
  ok(back.stacktrace[0].includes('attempt 1 fails'), `first stack trace: ${back.stacktrace[0]}`);
}, STEP_MS);

await step('a job that always fails ends in the failed set with its reason', async () => {
  const job = await queue.add('doomed', {}, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
  const w = worker(async () => { throw new Error('no luck'); });
  const failed = await withTimeout(eventFor('failed', job.id), WAIT_MS, 'failed event');
  await w.close();
  eq(failed.failedReason, 'no luck', 'failedReason in the event');
  const back = await Job.fromId(queue, job.id);
  eq(await back.getState(), 'failed', 'state');
  eq(back.attemptsMade, 2, 'attemptsMade');
  eq(await queue.getFailedCount(), 1, 'failed count');
  const [listed] = await queue.getFailed();
  eq(listed.id, job.id, 'the job listed by getFailed');
}, STEP_MS);

await step('progress events and the final job counts', async () => {
  const job = await queue.add('progress', {});
  const progress = new Promise((resolve) => {
    events.on('progress', (args) => { if (args.jobId === job.id) resolve(args.data); });
  });
  const w = worker(async (j) => { await j.updateProgress(50); return 'done'; });
  eq(await withTimeout(progress, WAIT_MS, 'progress event'), 50, 'progress value');
  await withTimeout(eventFor('completed', job.id), WAIT_MS, 'completed event');
  await w.close();
  // 20 plain + 6 prioritized + 1 delayed + 1 flaky + 1 progress completed
  eq(await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized'),
    { waiting: 0, active: 0, completed: 29, failed: 1, delayed: 0, prioritized: 0 }, 'final counts');
}, STEP_MS);

// Runs body(lane) on a lane of its own, closed (and its workers with it)
// whatever the outcome.
async function inLane(laneName, body) {
  const lane = new Lane(`${name}-${laneName}`);
  const workers = [];
  const spawn = (processor, opts) => {
    const w = lane.worker(processor, opts);
    workers.push(w);
    return w;
  };
  try {
    await lane.ready();
    await body(lane, spawn);
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await lane.queue.obliterate({ force: true }).catch(() => {});
    await lane.close();
  }
}

await step('a flow: the parent waits for its 3 children, then sums their return values', () =>
  inLane('flow', async (lane, spawn) => {
    const flow = new FlowProducer({ connection });
    try {
      const tree = await flow.add({
        name: 'parent', queueName: lane.name, data: {},
        children: [1, 2, 3].map((x) => ({ name: 'child', queueName: lane.name, data: { x } })),
      });
      eq(await tree.job.getState(), 'waiting-children', 'state of the parent before its children ran');
      const before = await tree.job.getDependenciesCount();
      eq([before.processed, before.unprocessed], [0, 3], 'dependencies processed and unprocessed before');
      const done = lane.eventFor('completed', tree.job.id);
      spawn(async (job) => {
        if (job.name === 'child') return job.data.x * 10;
        const values = Object.values(await job.getChildrenValues());
        return values.reduce((x, y) => x + y, 0);
      });
      eq((await withTimeout(done, WAIT_MS, 'completed event of the parent')).returnvalue, 60, "the parent's sum");
      const after = await tree.job.getDependenciesCount();
      eq([after.processed, after.unprocessed], [3, 0], 'dependencies processed and unprocessed after');
    } finally {
      await flow.close();
    }
  }), STEP_MS);

await step('promote a job delayed by an hour; LIFO jobs run last-in first', () =>
  inLane('promote', async (lane, spawn) => {
    const late = await lane.queue.add('late', { v: 'promoted' }, { delay: 3600000 });
    eq(await late.getState(), 'delayed', 'state of the delayed job');
    await late.promote();
    eq(await late.getState(), 'waiting', 'state after promote');
    for (const n of [1, 2, 3]) await lane.queue.add('lifo', { v: n }, { lifo: true });
    const order = [];
    const done = lane.completions(4);
    spawn(async (job) => { order.push(job.data.v); return 'ok'; }, { concurrency: 1 });
    await withTimeout(done, WAIT_MS, '4 completed events');
    eq(order, [3, 2, 1, 'promoted'], 'processing order');
  }), STEP_MS);

await step('deduplication: a second add with the same id is not a new job; remove', () =>
  inLane('dedup', async (lane) => {
    const first = await lane.queue.add('dedup', { n: 1 }, { deduplication: { id: 'same' } });
    const second = await lane.queue.add('dedup', { n: 2 }, { deduplication: { id: 'same' } });
    eq(second.id, first.id, 'id of the deduplicated add');
    eq(await lane.queue.getWaitingCount(), 1, 'waiting jobs');
    eq(await lane.queue.getDeduplicationJobId('same'), first.id, 'the job behind the deduplication id');
    await first.remove();
    eq(await Job.fromId(lane.queue, first.id), undefined, 'the removed job read back');
    eq(await lane.queue.getWaitingCount(), 0, 'waiting jobs after remove');
  }), STEP_MS);

await step('retryJobs moves a failed job back; getJobs lists jobs; clean removes completed ones', () =>
  inLane('retry', async (lane, spawn) => {
    const doomed = await lane.queue.add('doomed', {});
    const failed = lane.eventFor('failed', doomed.id);
    let failing = true;
    spawn(async (job) => {
      if (failing) throw new Error('not yet');
      return `retried ${job.name}`;
    });
    await withTimeout(failed, WAIT_MS, 'failed event');
    eq(await lane.queue.getFailedCount(), 1, 'failed jobs before the retry');
    failing = false;
    const done = lane.completions(5);
    for (let i = 0; i < 4; i++) await lane.queue.add('more', { i });
    await lane.queue.retryJobs({ state: 'failed' });
    const seen = await withTimeout(done, WAIT_MS, '5 completed events');
    eq(seen.get(doomed.id), 'retried doomed', 'returnvalue of the retried job');
    eq(await lane.queue.getFailedCount(), 0, 'failed jobs after the retry');
    const listed = await lane.queue.getJobs(['completed'], 0, 2);
    eq(listed.length, 3, 'getJobs completed 0..2');
    const cleaned = await lane.queue.clean(0, 1000, 'completed');
    eq(cleaned.length, 5, 'ids clean returned');
    eq(await lane.queue.getCompletedCount(), 0, 'completed jobs after clean');
  }), STEP_MS);

await step('a job scheduler every 100 ms produces jobs until it is removed', () =>
  inLane('scheduler', async (lane, spawn) => {
    await lane.queue.upsertJobScheduler('ticker', { every: 100 }, { name: 'tick', data: { t: 1 } });
    eq(await lane.queue.getJobSchedulersCount(), 1, 'schedulers');
    const done = lane.completions(3);
    spawn(async (job) => job.name);
    const seen = await withTimeout(done, WAIT_MS, '3 ticks completed');
    eq([...seen.values()], ['tick', 'tick', 'tick'], 'returnvalues of the ticks');
    eq(await lane.queue.removeJobScheduler('ticker'), true, 'removeJobScheduler');
    eq(await lane.queue.getJobSchedulersCount(), 0, 'schedulers after removal');
  }), STEP_MS);

await step('a rate-limited worker (1 job per 300 ms) with metrics; getWorkers (CLIENT LIST)', () =>
  inLane('limited', async (lane, spawn) => {
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await lane.queue.add('limited', { i }));
    const done = lane.completions(3);
    spawn(async (job) => job.data.i, {
      limiter: { max: 1, duration: 300 },
      metrics: { maxDataPoints: MetricsTime.ONE_HOUR },
      name: 'limited-worker',
    });
    await withTimeout(done, WAIT_MS, '3 completed events');
    const times = [];
    for (const j of jobs) times.push((await Job.fromId(lane.queue, j.id)).processedOn);
    times.sort((a, b) => a - b);
    // Two full windows lie between the first start and the third: 600 ms,
    // less slack for the clock's granularity.
    ok(times[2] - times[0] >= 550, `3 jobs started within ${times[2] - times[0]} ms, want >= 550`);
    const metrics = await lane.queue.getMetrics('completed');
    eq(metrics.meta.count, 3, 'completed count in the metrics');
    const workers = await lane.queue.getWorkers();
    ok(workers.length >= 1, `getWorkers found ${workers.length} workers`);
    ok(workers.every((w) => w.rawname.includes('limited-worker')), `worker names: ${workers.map((w) => w.rawname)}`);
  }), STEP_MS);

await step('a worker dies holding a job: its lock expires, another worker takes the stalled job', () =>
  inLane('stalled', async (lane, spawn) => {
    const job = await lane.queue.add('orphan', { v: 5 });
    const active = new Promise((resolve) => {
      lane.events.on('active', (args) => { if (args.jobId === job.id) resolve(); });
    });
    // The first worker takes the job and never finishes it. Both workers
    // check for stalled jobs every 200 ms (the check's own key, PX the
    // interval, would hold the second worker's checks back otherwise).
    const first = lane.worker(() => new Promise(() => {}), { lockDuration: 1000, stalledInterval: 200 });
    await withTimeout(active, WAIT_MS, 'active event');
    eq(await job.getState(), 'active', 'state while the first worker holds it');
    await first.close(true);  // force: the job stays active, its lock no longer renewed
    const stalled = lane.eventFor('stalled', job.id);
    const done = lane.eventFor('completed', job.id);
    spawn(async (j) => j.data.v * 2, { lockDuration: 1000, stalledInterval: 200 });
    await withTimeout(stalled, WAIT_MS, 'stalled event');
    eq((await withTimeout(done, WAIT_MS, 'completed event')).returnvalue, 10, 'returnvalue from the second worker');
    const back = await Job.fromId(lane.queue, job.id);
    eq(back.stalledCounter, 1, 'stalledCounter');
  }), STEP_MS);

await step('obliterate removes every key of the queue', async () => {
  await events.close();
  await queue.obliterate({ force: true });
  const left = await admin.keys(`bull:${name}:*`);
  // The events stream may be recreated by a late event; nothing else.
  eq(left.filter((k) => !k.endsWith(':events')), [], 'keys left after obliterate');
}, STEP_MS);

await main.close();
admin.disconnect();
finish(label);
