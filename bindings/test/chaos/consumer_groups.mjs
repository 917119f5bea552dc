// Consumer groups under chaos, in Node (`bash scripts/chaos.sh consumer-groups
// node`; examples/consumer_group_chaos.rs is the Rust twin): an elastic group
// of 8 partitions over a stream of 200 keys; its members go 3 -> 5 -> 2 while
// the messages flow, each member instance a separate Node process; the pinned
// instance of a member with a standby is SIGKILLed, and another's is stalled
// (SIGSTOP, then SIGCONT once its standby took over). At the end every key's
// messages must have been processed in publish order (a redelivery may repeat
// one already processed, never skip ahead). Prints one line:
//
//   consumer-groups: published N, processed N, lost 0, out_of_order 0, redelivered R, failover_ms F, rebalance_ms B
//
// and exits non-zero on loss or disorder. NATSJET_CG_MESSAGES (20000) sizes
// the run. `node consumer_groups.mjs member URL NAME` is one instance: it
// prints `P <micros> <key> <index>` for each message, then acks it.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { connect, consumerGroups, jetstream, jetstreamManager } from "natsjet";

const KEYS = 200;
const STREAM = "ORDERS";
const GROUP = "chaos";
/** Wall-clock microseconds, comparable across the processes of one machine. */
const micros = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));

/** Messages in flight per member: `CHAOS_MAX_ACK_PENDING`, 1 unless set (more pipelines the partitions). */
const maxAckPending = Number(process.env.CHAOS_MAX_ACK_PENDING ?? 1);

/** One instance of `name`: consumes until the group is deleted. */
async function member(url, name) {
  const nc = await connect({ servers: url });
  const groups = consumerGroups(jetstream(nc));
  const messages = await groups.join("elastic", STREAM, GROUP, name, { config: { ack_wait: 2e9, max_ack_pending: maxAckPending } });
  for await (const m of messages) {
    const [key, index] = m.string().split(":");
    process.stdout.write(`P ${micros()} ${key} ${index}\n`);
    m.ack();
  }
  await nc.close();
}

async function main() {
  const { startJetStreamServer } = await import("../harness.mjs");
  const server = await startJetStreamServer();
  const instances = [];
  try {
    return await run(server.url, instances, Number(process.env.NATSJET_CG_MESSAGES ?? 20_000));
  } finally {
    for (const i of instances) i.child.kill("SIGKILL");
    await server.close();
  }
}

/** What the instances printed: rows (micros, tag, key, index) and the next index per key. */
class Seen {
  rows = [];
  next = new Map();

  add(tag, line) {
    const [p, at, key, index] = line.split(" ");
    if (p !== "P") return;
    const k = Number(key.slice(1));
    const i = Number(index);
    this.next.set(k, Math.max(this.next.get(k) ?? 0, i + 1));
    this.rows.push([BigInt(at), tag, k, i]);
  }

  processed() {
    let n = 0;
    for (const v of this.next.values()) n += v;
    return n;
  }

  /** When any of `tags` first processed a message after `since` (micros), or undefined. */
  firstAfter(tags, since) {
    let first;
    for (const [at, tag] of this.rows) if (at >= since && tags.includes(tag) && (first === undefined || at < first)) first = at;
    return first;
  }

  /** The instance of `member` that processed last. */
  active(member) {
    for (let r = this.rows.length - 1; r >= 0; r--) if (this.rows[r][1].startsWith(member)) return this.rows[r][1];
    return `${member}a`;
  }
}

function start(url, name, tag, seen) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "member", url, name], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  createInterface({ input: child.stdout }).on("line", (line) => seen.add(tag, line));
  return { tag, child };
}

async function waitUntil(seen, what, done) {
  const deadline = Date.now() + 120_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: processed ${seen.processed()}`);
    await sleep(20);
  }
}

async function run(url, instances, total) {
  const nc = await connect({ servers: url });
  const js = jetstream(nc);
  await (await jetstreamManager(nc)).streams.add({ name: STREAM, subjects: ["orders.*"] });
  const groups = consumerGroups(js);
  await groups.createElastic(STREAM, GROUP, {
    max_members: 8,
    partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }],
  });
  await groups.addMembers(STREAM, GROUP, ["m1", "m2", "m3"]);
  const seen = new Seen();
  for (const [name, tag] of [["m1", "m1a"], ["m1", "m1b"], ["m2", "m2a"], ["m2", "m2b"], ["m3", "m3"], ["m4", "m4"], ["m5", "m5"]]) {
    instances.push(start(url, name, tag, seen));
  }
  const publishing = (async () => {
    for (let i = 0; i < total; i++) {
      const key = i % KEYS;
      await js.publish(`orders.k${key}`, `k${key}:${Math.floor(i / KEYS)}`);
    }
  })();
  await waitUntil(seen, "a quarter", () => seen.processed() >= total / 4);
  // 3 -> 5 members.
  const grown = micros();
  await groups.addMembers(STREAM, GROUP, ["m4", "m5"]);
  await waitUntil(seen, "the new members", () => seen.firstAfter(["m4", "m5"], grown) !== undefined);
  const rebalanceMs = (seen.firstAfter(["m4", "m5"], grown) - grown) / 1000n;
  await waitUntil(seen, "half", () => seen.processed() >= total / 2);
  // Kill m1's active instance; its standby takes over once the pin lapses.
  let active = seen.active("m1");
  let standby = active === "m1a" ? "m1b" : "m1a";
  const killed = micros();
  instances.find((i) => i.tag === active).child.kill("SIGKILL");
  await waitUntil(seen, "m1's standby", () => seen.firstAfter([standby], killed) !== undefined);
  const failoverMs = (seen.firstAfter([standby], killed) - killed) / 1000n;
  await waitUntil(seen, "60 %", () => seen.processed() >= (total * 6) / 10);
  // Stall m2's active instance.
  active = seen.active("m2");
  standby = active === "m2a" ? "m2b" : "m2a";
  const stalled = micros();
  const frozen = instances.find((i) => i.tag === active).child;
  frozen.kill("SIGSTOP");
  await waitUntil(seen, "m2's standby", () => seen.firstAfter([standby], stalled) !== undefined);
  console.log(`stalled ${active} replaced by ${standby} after ${(seen.firstAfter([standby], stalled) - stalled) / 1000n} ms`);
  frozen.kill("SIGCONT");
  await waitUntil(seen, "70 %", () => seen.processed() >= (total * 7) / 10);
  // 5 -> 2 members.
  await groups.dropMembers(STREAM, GROUP, ["m1", "m3", "m5"]);
  await publishing;
  await waitUntil(seen, "every message", () => seen.processed() >= total);
  await sleep(500);
  // Order per key by processing time (an instance prints before it acks, and
  // its partition's next message comes only after that ack).
  const rows = [...seen.rows].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const next = new Map();
  let outOfOrder = 0;
  let redelivered = 0;
  for (const [, , key, index] of rows) {
    const n = next.get(key) ?? 0;
    if (index === n) next.set(key, n + 1);
    else if (index < n) redelivered++;
    else {
      outOfOrder++;
      next.set(key, index + 1);
    }
  }
  let processed = 0;
  for (const v of next.values()) processed += v;
  const lost = Math.max(0, total - processed);
  console.log(
    `consumer-groups: published ${total}, processed ${processed}, lost ${lost}, out_of_order ${outOfOrder}, ` +
      `redelivered ${redelivered}, failover_ms ${failoverMs}, rebalance_ms ${rebalanceMs}`,
  );
  await groups.delete("elastic", STREAM, GROUP);
  await nc.close();
  return lost === 0 && outOfOrder === 0 ? 0 : 1;
}

// Last: the classes above are initialised before the top-level await runs.
if (process.argv[2] === "member") {
  await member(process.argv[3], process.argv[4]);
} else {
  process.exit(await main());
}
