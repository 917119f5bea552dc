// N workers on ONE durable pull consumer, acking in confirmed batches: the
// JavaScript twin of examples/durable_workers.rs. The server hands each pull
// to whichever worker asked and redelivers what is never acked, so workers
// can come and go. Each worker holds what it processed until its
// (simulated) checkpoint is durable, then acks all of it in one batch.
//
// Usage: node service.mjs [ws://127.0.0.1:8080] [workers] [messages]
import { setTimeout as sleep } from "node:timers/promises";
import { connect, jetstream, jetstreamManager } from "natsjet";

const STREAM = "ORDERS";
const DURABLE = "order-processors";
const BATCH = 100;
const CHECKPOINT_MS = 200;

const [servers = "ws://127.0.0.1:8080", workerArg = "4", totalArg = "1000"] = process.argv.slice(2);
const [workers, total] = [Number(workerArg), Number(totalArg)];

const nc = await connect({ servers, name: "orders-admin" });
const jsm = await jetstreamManager(nc);
await jsm.streams.delete(STREAM).catch(() => {}); // start from an empty stream
await jsm.streams.add({ name: STREAM, subjects: ["orders.>"] });
await jsm.consumers.add(STREAM, {
  durable_name: DURABLE,
  ack_policy: "explicit",
  ack_wait: 10_000_000_000, // nanoseconds: longer than a checkpoint
  max_ack_pending: workers * BATCH * 2,
});

let acked = 0;
const running = await Promise.all(Array.from({ length: workers }, (_, id) => startWorker(id)));

console.log(`publishing ${total} orders to stream ${STREAM}`);
const js = jetstream(nc);
for (let i = 0; i < total; i += 256) {
  // up to 256 acks in flight; msgID makes a resend after a failure harmless
  const acks = [];
  for (let j = i; j < Math.min(total, i + 256); j++) {
    acks.push(js.publish(`orders.${j % 8}`, `order ${j}`, { msgID: `order-${j}` }));
  }
  await Promise.all(acks);
}

const deadline = Date.now() + 60_000;
while (acked < total) {
  if (Date.now() > deadline) throw new Error(`only ${acked} of ${total} acked after 60 s`);
  await sleep(50);
}
const counts = await Promise.all(running.map((worker) => worker.stop()));
console.log(`workers processed ${counts.join(" + ")} orders`);

const { ack_floor, num_ack_pending, num_redelivered } = await jsm.consumers.info(STREAM, DURABLE);
console.log(`consumer: ack floor ${ack_floor.stream_seq}, ${num_ack_pending} pending acks, ${num_redelivered} redelivered`);
await nc.drain();
if (ack_floor.stream_seq !== total || num_ack_pending !== 0) {
  console.error("not every order was acked");
  process.exit(1);
}
console.log(`all ${total} orders processed and acked`);

/** One worker: its own connection and reader on the shared durable consumer. */
async function startWorker(id) {
  const wc = await connect({ servers, name: `worker-${id}` });
  const js = jetstream(wc);
  const messages = await (await js.consumers.get(STREAM, DURABLE)).consume({ max_messages: BATCH });
  let batch = js.ackBatch();
  let held = 0;
  let processed = 0;
  const checkpoint = async () => {
    if (held === 0) return;
    const [full, count] = [batch, held];
    [batch, held] = [js.ackBatch(), 0];
    // The checkpoint is durable: ack everything it covers, confirmed by the server.
    await full.commit({ confirm: true });
    acked += count;
  };
  const timer = setInterval(() => checkpoint().catch((e) => console.error(`worker ${id}:`, e)), CHECKPOINT_MS);
  const reading = (async () => {
    for await (const msg of messages) {
      // ... process msg.string() ...
      batch.add(msg);
      held++;
      processed++;
    }
  })();
  return {
    async stop() {
      clearInterval(timer);
      messages.stop();
      await reading;
      await checkpoint();
      await wc.drain();
      return processed;
    },
  };
}
