// What strict order per key costs in Node: 4 members of an elastic
// consumer group (8 partitions over 200 keys, a partition's next message
// handed out after the previous one's ack) against 4 workers on one
// durable (no order), same stream and messages, passes alternating,
// medians printed; as the groups row of benches/consume.rs. The drain is
// timed after the group's work-queue stream holds all messages (sourced
// from the stream); the sourcing is timed on its own and printed beside it.
//
//   GROUP_MAX_ACK_PENDING=1000   the members' max_ack_pending (1: one message in flight per member, as orbit.go's cg)
//   BENCH_PASSES=3  BENCH_SCALE as for node.mjs
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { benchServer, median, nodeClock, scale, withServerUsage } from "./common.mjs";
import { PAYLOAD, durableDrain } from "./workloads.mjs";

const natsjet = await import(pathToFileURL(resolve(import.meta.dirname, "../../pkg/node.js")).href);
const n = scale(20_000);
const KEYS = 200;
const MEMBERS = 4;
const passes = Math.max(1, Number(process.env.BENCH_PASSES ?? 3));
const maxAckPending = Number(process.env.GROUP_MAX_ACK_PENDING ?? 1000);
const server = await benchServer();

async function fillKeyed() {
  await server.freshStream("KEYED", ["keyed.*"]);
  for (let i = 0; i < n; i++) server.setup.publish(`keyed.k${i % KEYS}`, PAYLOAD);
  await server.setup.flush();
  while ((await server.jsm.streams.info("KEYED")).state.messages < n) await new Promise((r) => setTimeout(r, 10));
}

/** One drain of the group by `MEMBERS` members, each on its own connection. */
async function groupDrain() {
  const admin = await natsjet.connect({ servers: server.url });
  const groups = natsjet.consumerGroups(natsjet.jetstream(admin));
  const sourcingStart = performance.now();
  await groups.createElastic("KEYED", "bench", {
    max_members: 8,
    partitioning_filters: [{ filter: "keyed.*", partitioning_wildcards: [1] }],
  });
  const names = Array.from({ length: MEMBERS }, (_, i) => `m${i}`);
  await groups.addMembers("KEYED", "bench", names);
  while ((await server.jsm.streams.info("KEYED-bench")).state.messages < n) await new Promise((r) => setTimeout(r, 5));
  // The sourcing (untimed by the drain): the group's stream holds all n messages now.
  const sourcingMs = performance.now() - sourcingStart;
  const ncs = await Promise.all(names.map(() => natsjet.connect({ servers: server.url })));
  const readers = await Promise.all(
    names.map((name, i) =>
      natsjet.consumerGroups(natsjet.jetstream(ncs[i])).join("elastic", "KEYED", "bench", name, {
        config: { ack_wait: 30_000_000_000, max_ack_pending: maxAckPending },
      }),
    ),
  );
  try {
    return await withServerUsage(server, nodeClock, async (clock) => {
      const start = clock();
      let count = 0;
      await Promise.all(
        readers.map(async (messages) => {
          for await (const m of messages) {
            m.ack();
            if (++count >= n) break;
          }
          if (count >= n) for (const other of readers) other.stop();
        }),
      );
      await Promise.all(ncs.map((nc) => nc.flush()));
      const end = clock();
      return { n: count, wallMs: end[0] - start[0], cpuMs: end[1] - start[1], sourcingMs };
    });
  } finally {
    await Promise.all(ncs.map((nc) => nc.close()));
    await groups.delete("elastic", "KEYED", "bench");
    await admin.close();
  }
}

let durables = 0;
/** One drain of the same stream by `MEMBERS` workers on one durable. */
async function sharedDrain() {
  const durable = `shared_${++durables}`;
  await server.durable("KEYED", durable);
  const ncs = await Promise.all(Array.from({ length: MEMBERS }, () => natsjet.connect({ servers: server.url })));
  try {
    return await withServerUsage(server, nodeClock, (clock) =>
      durableDrain(ncs, ncs.map((nc) => natsjet.jetstream(nc)), "KEYED", durable, n, clock, undefined),
    );
  } finally {
    await Promise.all(ncs.map((nc) => nc.close()));
    await server.jsm.consumers.delete("KEYED", durable).catch(() => {});
  }
}

try {
  await fillKeyed();
  const grouped = [];
  const shared = [];
  for (let pass = 0; pass < passes; pass++) {
    if (pass % 2 === 0) {
      grouped.push(await groupDrain());
      shared.push(await sharedDrain());
    } else {
      shared.push(await sharedDrain());
      grouped.push(await groupDrain());
    }
  }
  const line = (r) =>
    `${Math.round(r.n / (r.wallMs / 1000))} /s, client ${((1000 * r.cpuMs) / r.n).toFixed(2)} µs, server ${((1000 * r.serverMs) / r.n).toFixed(2)} µs`;
  const [g, d] = [median(grouped), median(shared)];
  console.log(`order per key (Node), ${n} x 128 B over ${KEYS} keys, medians of ${passes} passes (natsjet both; CPU per message):`);
  console.log(`  elastic group, ${MEMBERS} members, strict order, max_ack_pending ${maxAckPending}: ${line(g)}`);
  console.log(`  ${MEMBERS} workers on one durable, no order: ${line(d)}`);
  // Sourcing then draining, one after the other: the group's rate end to end.
  const endToEnd = grouped.map((r) => r.n / ((r.wallMs + r.sourcingMs) / 1000)).sort((a, b) => a - b);
  const withSourcing = endToEnd[Math.floor((endToEnd.length - 1) / 2)];
  const sourcing = grouped.map((r) => r.n / (r.sourcingMs / 1000)).sort((a, b) => a - b)[Math.floor((grouped.length - 1) / 2)];
  console.log(`  sourcing into the group's work-queue stream: ${Math.round(sourcing)} /s; sourcing + drain: ${Math.round(withSourcing)} /s`);
  const rate = d.n / (d.wallMs / 1000);
  console.log(
    `  group / durable: ${(g.n / g.wallMs / (d.n / d.wallMs)).toFixed(2)}x (drain after sourcing), ${(withSourcing / rate).toFixed(2)}x (sourcing + drain)`,
  );
} finally {
  await server.close();
}
