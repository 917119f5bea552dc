// Publishing written for nats.js 3.4: an atomic batch (startBatch, add,
// acked add, commit with headers) and its failures, and message schedules
// of every kind (a Date, every, cron with a time zone, a predefined alias,
// a source, TTL, rollup) with a cancellation and a stream that refuses them.
import { connect } from "@nats-io/transport-node";
import { headers } from "@nats-io/nats-core";
import { JetStreamApiError, jetstream, jetstreamManager, type Batch, type BatchAck } from "@nats-io/jetstream";

/** What an error says across both clients: the API's code, or that there was one. */
const said = (e: unknown): string => (e instanceof JetStreamApiError ? `api error ${e.code}` : "refused");

export async function atomicBatches(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "BATCH", subjects: ["batch.>"], allow_atomic: true });
  await jsm.streams.add({ name: "PLAIN", subjects: ["plain.>"] });

  const batch: Batch = await js.startBatch("batch.a", "1", { msgID: "first" });
  batch.add("batch.b", "2");
  await batch.add("batch.c", "3", { ack: true });
  const h = headers();
  h.set("X-Last", "yes");
  const ack: BatchAck = await batch.commit("batch.d", "4", { headers: h });
  seen.push(`committed: ${ack.stream} seq ${ack.seq}, ${ack.count} messages, its id ${ack.batch === batch.id}, count ${batch.count}`);
  for (let seq = 1; seq <= 4; seq++) {
    const m = await jsm.streams.getMessage("BATCH", { seq });
    const names = m ? [...m.header.keys()].sort() : [];
    const values = names.map((k) => `${k}=${k === "Nats-Batch-Id" ? m?.header.get(k) === batch.id : m?.header.get(k)}`);
    seen.push(`stored ${seq}: ${m?.subject} ${m?.string()} ${values.join(" ")}`);
  }
  try {
    batch.add("batch.e", "5");
    seen.push("added after the commit");
  } catch (e) {
    seen.push(`after the commit: ${(e as Error).message}`);
  }

  try {
    await js.startBatch("plain.a", "x");
  } catch (e) {
    seen.push(`a stream without allow_atomic: ${said(e)} ${(e as Error).message}`);
  }

  const stale = await js.startBatch("batch.e", "5", { expect: { lastSequence: 1 } });
  stale.add("batch.f", "6");
  await stale.commit("batch.g", "7").then(
    () => seen.push("stale batch committed"),
    () => seen.push("stale batch refused"),
  );

  const big = await js.startBatch("batch.h", "x");
  for (let i = 0; i < 1000; i++) big.add("batch.h", "x");
  await big.commit("batch.h", "x").then(
    () => seen.push("a batch over the limit committed"),
    () => seen.push("a batch over the limit refused"),
  );
  seen.push(`the stream holds ${(await jsm.streams.info("BATCH")).state.messages} messages`);
  await nc.close();
  return seen;
}

export async function schedules(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "SCHED", subjects: ["sched.>"], allow_msg_schedules: true, allow_msg_ttl: true });
  await jsm.streams.add({ name: "NOSCHED", subjects: ["nosched.>"] });

  await js.publish("sched.source", "sampled");
  const h = headers();
  h.set("X-Kind", "delayed");
  await js.publish("sched.at", "later", {
    headers: h,
    schedule: { specification: new Date(Date.now() + 1000), target: "sched.out.at", ttl: "5m" },
  });
  await js.publish("sched.every", "tick", { schedule: { specification: { every: "1s" }, target: "sched.out.every", rollup: "sub" } });
  await js.publish("sched.cron", "cron", {
    schedule: { specification: { cron: "*/1 * * * * *" }, target: "sched.out.cron", timezone: "Europe/Amsterdam" },
  });
  await js.publish("sched.hourly", "hour", { schedule: { specification: { predefined: "@hourly" }, target: "sched.out.hourly" } });
  await js.publish("sched.sample", "", { schedule: { specification: "@every 1s", target: "sched.out.sample", source: "sched.source" } });
  const doomed = await js.publish("sched.doomed", "never", {
    schedule: { specification: new Date(Date.now() + 2500), target: "sched.out.doomed" },
  });
  await js.publish("sched.cancelled", "stopped", {
    cancelSchedule: { scheduleSubject: "sched.doomed" },
    expect: { lastSubjectSequence: doomed.seq, lastSubjectSequenceSubject: "sched.doomed" },
  });
  await new Promise((resolve) => setTimeout(resolve, 3000));

  const subjects = (await jsm.streams.info("SCHED", { subjects_filter: "sched.>" })).state.subjects ?? {};
  const stored = Object.keys(subjects).sort();
  seen.push(`subjects: ${stored.join(" ")}`);
  seen.push(`rolled up: ${subjects["sched.out.every"]}, fired once: ${subjects["sched.out.at"]}`);
  for (const subject of ["sched.out.at", "sched.out.every", "sched.out.cron", "sched.out.sample"]) {
    const m = await jsm.streams.getMessage("SCHED", { last_by_subj: subject });
    const next = m?.header.get("Nats-Schedule-Next");
    const fields = [m?.string(), m?.header.get("Nats-Scheduler"), next === "purge" ? next : `next ${next !== ""}`];
    seen.push(`${subject}: ${fields.join(" ")} ttl ${m?.header.get("Nats-TTL")} rollup ${m?.header.get("Nats-Rollup")} kind ${m?.header.get("X-Kind")}`);
  }

  const refuse = (what: string, p: Promise<unknown>) =>
    p.then(
      () => seen.push(`${what}: stored`),
      (e) => seen.push(`${what}: ${said(e)}`),
    );
  await refuse("on a stream without schedules", js.publish("nosched.a", "x", { schedule: { specification: { every: "5s" }, target: "nosched.b" } }));
  await refuse("@every 10ms", js.publish("sched.fast", "x", { schedule: { specification: { every: "10ms" }, target: "sched.out.fast" } }));
  await refuse("cancel of its own subject", js.publish("sched.every", "x", { cancelSchedule: { scheduleSubject: "sched.every" } }));
  await nc.close();
  return seen;
}
