// JetStream written for nats.js 3.4: streams and consumers through the
// manager, acked publishes with ids and expectations, fetch, consume and
// next, every ack kind, double ack, consumer info, ordered and push
// consumers, and the typed API errors.
import { connect } from "@nats-io/transport-node";
import { headers, nanos } from "@nats-io/nats-core";
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type ConsumerInfo,
  type JsMsg,
  type PubAck,
  type StreamConfig,
  type StreamInfo,
} from "@nats-io/jetstream";

export async function manageStreams(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  const config = {
    name: "ORDERS",
    subjects: ["orders.>"],
    storage: StorageType.Memory,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs: 100,
    max_age: nanos(60 * 60 * 1000),
    allow_direct: true,
  } satisfies Partial<StreamConfig>;
  const created: StreamInfo = await jsm.streams.add(config);
  seen.push(`created ${created.config.name}`);
  const js = jetstream(nc);
  for (let i = 1; i <= 5; i++) await js.publish(`orders.${i % 2}`, `order ${i}`, { msgID: `order-${i}` });
  const info = await jsm.streams.info("ORDERS");
  seen.push(`messages ${info.state.messages} first ${info.state.first_seq} last ${info.state.last_seq}`);
  const updated = await jsm.streams.update("ORDERS", { max_msgs: 50 });
  seen.push(`updated max_msgs ${updated.config.max_msgs}`);
  const stored = await jsm.streams.getMessage("ORDERS", { seq: 2 });
  seen.push(`stored ${stored?.seq} ${stored?.subject} ${stored?.string()}`);
  const last = await jsm.streams.getMessage("ORDERS", { last_by_subj: "orders.1" });
  seen.push(`last on orders.1 ${last?.seq}`);
  const direct = await jsm.direct.getMessage("ORDERS", { last_by_subj: "orders.0" });
  seen.push(`direct last on orders.0 ${direct?.seq}`);
  seen.push(`deleted 3 ${await jsm.streams.deleteMessage("ORDERS", 3)}`);
  const purged = await jsm.streams.purge("ORDERS", { filter: "orders.1" });
  seen.push(`purged ${purged.purged} ${purged.success}`);
  const names: string[] = [];
  for await (const name of jsm.streams.names()) names.push(name);
  seen.push(`names ${names.join(",")}`);
  const listed: string[] = [];
  for await (const si of jsm.streams.list()) listed.push(`${si.config.name}=${si.state.messages}`);
  seen.push(`streams ${listed.join(",")}`);
  seen.push(`by subject ${await jsm.streams.find("orders.1")}`);
  try {
    await jsm.streams.info("MISSING");
  } catch (err) {
    if (err instanceof JetStreamApiError && err.apiError().err_code === JetStreamApiCodes.StreamNotFound) seen.push("missing: not found");
    else seen.push(`missing: ${(err as Error).message}`);
  }
  seen.push(`deleted ${await jsm.streams.delete("ORDERS")}`);
  const account = await jsm.getAccountInfo();
  seen.push(`account streams ${account.streams}`);
  await nc.drain();
  return seen;
}

export async function consumersAndAcks(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "JOBS", subjects: ["jobs.>"] });
  const config: Partial<ConsumerConfig> = {
    durable_name: "worker",
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(10_000),
    max_deliver: 5,
  };
  const ci: ConsumerInfo = await jsm.consumers.add("JOBS", config);
  seen.push(`consumer ${ci.name} ${ci.config.ack_policy}`);

  const js = jetstream(nc);
  const ack: PubAck = await js.publish("jobs.a", "a", { expect: { streamName: "JOBS" } });
  seen.push(`pub ${ack.stream} ${ack.seq} ${ack.duplicate}`);
  // With one message stored, what the nak gives back is the next delivery,
  // whenever the server gets to the nak (it handles acks apart from pulls).
  const consumer = await js.consumers.get("JOBS", "worker");
  const first = await consumer.next({ expires: 2000 });
  if (first) {
    seen.push(`next ${first.subject} seq ${first.seq} delivered ${first.info.deliveryCount}`);
    first.nak();
  }
  const again: JsMsg | null = await consumer.next({ expires: 2000 });
  if (again) {
    seen.push(`redelivered ${again.redelivered} ${again.info.deliveryCount}`);
    again.working();
    seen.push(`double ack ${await again.ackAck()}`);
  }

  const h = headers();
  h.set("Origin", "compat");
  await js.publish("jobs.b", "b", { headers: h, msgID: "b-1" });
  const dup = await js.publish("jobs.b", "b", { msgID: "b-1" });
  seen.push(`duplicate ${dup.duplicate}`);
  await js.publish("jobs.c", "c", { expect: { lastSequence: 2 } });
  try {
    await js.publish("jobs.d", "d", { expect: { lastSequence: 1 } });
  } catch (err) {
    seen.push(err instanceof JetStreamApiError ? `refused ${err.apiError().err_code}` : `other ${err}`);
  }
  const batch = await consumer.fetch({ max_messages: 2, expires: 2000 });
  for await (const m of batch) {
    seen.push(`fetched ${m.subject} pending ${m.info.pending} stream ${m.info.stream}`);
    if (m.subject === "jobs.b") m.term("poison");
    else m.ack();
  }
  await jsm.streams.deleteMessage("JOBS", 4, false).catch(() => false);
  const info = await consumer.info();
  seen.push(`ack floor ${info.ack_floor.stream_seq} pending ${info.num_pending} ack pending ${info.num_ack_pending}`);
  const cached = await consumer.info(true);
  seen.push(`cached ${cached.name}`);

  for (let i = 0; i < 6; i++) await js.publish("jobs.more", `${i}`);
  const messages = await consumer.consume({ max_messages: 3 });
  let consumed = 0;
  for await (const m of messages) {
    m.ack();
    if (++consumed === 6) break;
  }
  seen.push(`consumed ${consumed}`);

  const ordered = await js.consumers.get("JOBS", { filter_subjects: ["jobs.more"] });
  const om = await ordered.consume();
  const sequences: number[] = [];
  for await (const m of om) {
    sequences.push(m.info.streamSequence);
    if (sequences.length === 6) break;
  }
  seen.push(`ordered ${sequences.length}`);

  const deliver = nc.info ? `deliver.${nc.info.client_id}` : "deliver.x";
  await jsm.consumers.add("JOBS", { durable_name: "pusher", deliver_subject: deliver, ack_policy: AckPolicy.Explicit });
  const push = await js.consumers.getPushConsumer("JOBS", "pusher");
  const pushed = await push.consume();
  let received = 0;
  for await (const m of pushed) {
    m.ack();
    if (++received === 3) break;
  }
  seen.push(`pushed ${received}`);

  const names: string[] = [];
  for await (const c of jsm.consumers.list("JOBS")) names.push(c.name);
  // The ordered consumer is there too, under a name the client made up.
  const durables = names.filter((name) => name === "worker" || name === "pusher");
  seen.push(`consumers ${names.length}, durables ${durables.sort().join(",")}`);
  seen.push(`deleted consumer ${await jsm.consumers.delete("JOBS", "worker")}`);
  try {
    await jsm.consumers.info("JOBS", "worker");
  } catch (err) {
    seen.push(err instanceof JetStreamApiError && err.apiError().err_code === JetStreamApiCodes.ConsumerNotFound ? "gone" : "other");
  }
  await nc.drain();
  return seen;
}
