// Type-checked (tsc --noEmit --strict, no DOM lib) by types.test.mjs, never run:
// what a TypeScript user of the package writes must compile, and misuse must not.
import {
  AckBatch,
  AckPolicy,
  CheckpointLedger,
  connect,
  credsAuthenticator,
  DeliverPolicy,
  DirectMsgHeaders,
  headers,
  isPullConsumer,
  isPushConsumer,
  JsHeaders,
  jetstream,
  jetstreamManager,
  Match,
  ConsumerNotFoundError,
  isMessageNotFound,
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamNotEnabled,
  JetStreamStatusError,
  NatsError,
  nkeyAuthenticator,
  PersistMode,
  PubHeaders,
  RepublishHeaders,
  NoRespondersError,
  PermissionViolationError,
  RequestError,
  StreamNotFoundError,
  TimeoutError,
  StorageType,
  type AckReport,
  type ApiError,
  type Batch,
  type BatchAck,
  type PredefinedSchedule,
  type ScheduleOptions,
  type ScheduleSpec,
  type BoundPushConsumerOptions,
  type ConnectionOptions,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type ConsumerResetResponse,
  type ConsumerStatus,
  OrderedConsumer,
  type OrderedConsumerOptions,
  PushConsumer,
  type OrderedPushConsumerOptions,
  type PushConsumerOptions,
  ReplayPolicy,
  type DeliveryInfo,
  type DirectMsgRequest,
  type ErrorKind,
  errors,
  jserrors,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type LedgerCounts,
  type LedgerEvent,
  type LedgerState,
  type LedgerWarning,
  outputMsgId,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type PubAck,
  type RequestManyOptions,
  type RequestStrategy,
  type ServerInfo,
  type Stats,
  type ClusterUpdateStatus,
  type DisconnectStatus,
  type Status,
  type StatusType,
  type StoredMsg,
  type StoredMsgs,
  type Stream,
  type StreamConfig,
  type StreamInfo,
  type StreamInfoRequestOptions,
  type Subscription,
  Kvm,
  KvWatchInclude,
  type KV,
  type KvDeleteOptions,
  type KvEntry,
  type KvLimits,
  type KvOptions,
  type KvPurgeOptions,
  type KvPutOptions,
  type KvStatus,
  type KvWatcher,
  type KvWatchEntry,
  type KvWatchOptions,
  type QueuedIterator,
  type RoKV,
  Objm,
  type ObjectInfo,
  type ObjectLink,
  type ObjectProgress,
  type ObjectResult,
  type ObjectStore,
  type ObjectStoreGetOpts,
  type ObjectStoreLink,
  type ObjectStoreMeta,
  type ObjectStoreMetaOptions,
  type ObjectStoreOptions,
  type ObjectStorePutOpts,
  type ObjectStoreStatus,
  type ObjectWatchInfo,
  type PurgeResponse,
} from "natsjet";

export async function example(): Promise<void> {
  const options: ConnectionOptions = {
    servers: ["ws://127.0.0.1:8080"],
    name: "typed",
    authenticator: nkeyAuthenticator(new TextEncoder().encode("SUA…")),
    reconnectTimeWait: 250,
    maxReconnectAttempts: -1,
    reconnectJitterTLS: 1000,
    reconnectBufferSize: 1 << 20,
    tls: { ca: "-----BEGIN CERTIFICATE-----", cert: "…", key: "…" },
    subscriptionCapacity: 1000,
  };
  const nc: NatsConnection = await connect(options);
  const alsoCreds: ConnectionOptions = { authenticator: credsAuthenticator("-----BEGIN NATS USER JWT-----") };
  void alsoCreds;

  const h: MsgHdrs = headers();
  h.set("Trace-Id", "1");
  const first: string = h.get("trace-id", Match.IgnoreCase);
  void first;
  nc.publish("orders.new", "payload", { headers: h });
  nc.publish("orders.raw", new Uint8Array([1]), { reply: nc.newInbox() });

  const sub: Subscription = nc.subscribe("orders.>", { queue: "workers", max: 10, timeout: 5000 });
  const ended: void | NatsError = await sub.closed;
  void ended;
  for await (const m of sub) {
    const msg: Msg = m;
    const data: Uint8Array = msg.data;
    const body: { id: number } = msg.json<{ id: number }>();
    const names: string[] = [PubHeaders.MsgIdHdr, JsHeaders.RollupHdr, DirectMsgHeaders.Sequence, RepublishHeaders.Size];
    const persist: StreamConfig["persist_mode"] = PersistMode.Async;
    void [names, persist];
    void msg.json((key, value) => (key === "when" ? new Date(String(value)) : value));
    const replied: boolean = msg.respond("ok");
    void [data, body, replied, msg.headers?.code, msg.reply?.length];
  }
  nc.subscribe("events", { callback: (err: NatsError | null, msg: Msg) => void [err?.kind, msg.subject] });

  try {
    const answer: Msg = await nc.request("svc", "q", { timeout: 500, headers: h });
    void (await nc.request("svc", "q", { noMux: true, reply: nc.newInbox() }));
    nc.publish("svc", "q", { traceDestination: "trace", traceOnly: true });
    // @ts-expect-error: traceOnly is a boolean
    nc.publish("svc", "q", { traceOnly: "yes" });
    // @ts-expect-error: noMux is a boolean
    void (await nc.request("svc", "q", { noMux: "yes" }));
    void answer;
  } catch (e) {
    if (e instanceof NatsError) {
      const kind: ErrorKind = e.kind;
      switch (kind) {
        case "NO_RESPONDERS":
        case "TIMEOUT":
          void [e.name, e.message, e.cause];
          break;
      }
    }
    if (e instanceof RequestError && e.isNoResponders() && e.cause instanceof NoRespondersError) void e.cause.subject;
  }

  // Scatter-gather, as nats.js's requestMany: an async iterable of replies.
  const strategy: RequestStrategy = "stall";
  const many: Partial<RequestManyOptions> = { strategy, maxWait: 2000, stall: 100, headers: h, noMux: false };
  const replies: AsyncIterable<Msg> = await nc.requestMany("svc", "q", many);
  for await (const reply of replies) void reply.string();
  const counted = await nc.requestMany("svc", undefined, { strategy: "count", maxMessages: 3 });
  void counted.getProcessed();
  counted.stop();
  await nc.requestMany("svc");

  for await (const s of nc.status()) {
    const status: Status = s;
    if (status.type === "slowConsumer") void [status.sid, status.dropped];
    if (status.type === "error") void status.error.kind;
    // As nats.js v3: `server` (host:port) on disconnect, reconnect and ldm…
    if (status.type === "disconnect" || status.type === "reconnect" || status.type === "ldm") void status.server.length;
    if (status.type === "disconnect") void status.error?.kind;
    if (status.type === "reconnecting") void status.server;
    if (status.type === "update") void [status.added?.length, status.deleted.length];
    if (status.type === "ping") void status.pendingPings.toFixed();
    // @ts-expect-error: a stale connection names no server (the disconnect that follows does)
    if (status.type === "staleConnection") void status.server;
    // @ts-expect-error: pendingPings belongs to ping statuses
    if (status.type === "update") void status.pendingPings;
    const kind: StatusType = status.type;
    void kind;
  }
  const update: ClusterUpdateStatus = { type: "update", added: ["127.0.0.1:4222"], deleted: [] };
  // @ts-expect-error: a disconnect names its server
  const noServer: DisconnectStatus = { type: "disconnect" };
  void [update, noServer];
  // @ts-expect-error: no such status type
  const unknownKind: StatusType = "reconnected";
  void unknownKind;
  const info: ServerInfo = nc.info;
  const stats: Stats = nc.stats();
  void [info.max_payload, stats.inMsgs];
  await nc.flush();
  await nc.drain();
  const closedWith: void | NatsError = await nc.closed();
  void closedWith;

  await jetStreamExample(nc);
  await errorsExample(nc, await jetstreamManager(nc));

  // @ts-expect-error: payloads are strings or bytes
  nc.publish("x", 42);
  // @ts-expect-error: options use nats.js names
  await connect({ server: "ws://x" });
  // @ts-expect-error: strategies are nats.js's four
  await nc.requestMany("svc", "q", { strategy: "jitter" });
  // @ts-expect-error: maxWait is a number of milliseconds
  await nc.requestMany("svc", "q", { maxWait: "1s" });
  // @ts-expect-error: kinds are a closed set
  const wrong: ErrorKind = "NOPE";
  void wrong;
}

async function jetStreamExample(nc: NatsConnection): Promise<void> {
  const jsm: JetStreamManager = await jetstreamManager(nc, { domain: "hub", timeout: 2000 });
  const cfg: StreamConfig = { name: "ORDERS", subjects: ["orders.>"], storage: StorageType.File, max_age: 3600e9 };
  const si: StreamInfo = await jsm.streams.add(cfg);
  await jsm.streams.update("ORDERS", { ...si.config, max_msgs: 10 });
  await jsm.streams.update("ORDERS", { max_msgs: 10 });
  for await (const info of jsm.streams.list()) void [info.state.messages, info.config.subjects];
  for await (const info of jsm.streams.list("orders.*")) void info.config.name;
  const found: string = await jsm.streams.find("orders.new");
  const stream: Stream = await jsm.streams.get(found);
  const cached: StreamInfo = await stream.info(true);
  void [stream.name, cached.alternates?.[0]?.cluster, (await stream.best()).name];
  await (await stream.getConsumer("workers")).info();
  await (await jetstream(nc).streams.get("ORDERS")).deleteMessage(1, false);
  for await (const name of jsm.streams.names("orders.*")) void name.length;
  await jsm.streams.purge("ORDERS", { filter: "orders.old", keep: 1 });
  const stored: StoredMsg | null = await jsm.streams.getMessage("ORDERS", { last_by_subj: "orders.new" });
  if (stored) void [stored.seq, stored.header.get("Nats-Msg-Id"), stored.time.getTime()];
  const consumer: ConsumerConfig = { durable_name: "workers", ack_policy: AckPolicy.Explicit, ack_wait: 30e9 };
  const ci: ConsumerInfo = await jsm.consumers.add("ORDERS", { ...consumer, deliver_policy: DeliverPolicy.New });
  await jsm.consumers.pause("ORDERS", ci.name, new Date(Date.now() + 1000));
  await jsm.consumers.update("ORDERS", ci.name, { max_ack_pending: 10 });
  await jsm.consumers.addOrUpdate("ORDERS", { durable_name: "workers", description: "shared" });
  const shared: ConsumerInfo = await jsm.consumers.getOrCreate("ORDERS", "workers", { ack_wait: 30e9 });
  void [shared.name, (await jsm.streams.getOrCreate(cfg)).config.name];
  for await (const name of jsm.consumers.names("ORDERS")) void name.length;
  const unpinned: void = await jsm.consumers.unpin("ORDERS", ci.name, "group");
  void unpinned;
  const reset: ConsumerResetResponse = await jsm.consumers.reset("ORDERS", ci.name, 10);
  void [reset.reset_seq, reset.num_pending, (await stream.resetConsumer(ci.name)).reset_seq];
  const details: StreamInfoRequestOptions = { subjects_filter: "orders.>", deleted_details: true };
  const counts = (await jsm.streams.info("ORDERS", details)).state.subjects ?? {};
  void [counts["orders.new"], (await stream.info(false, { deleted_details: true })).state.deleted?.[0]];
  const query: DirectMsgRequest = { next_by_subj: "orders.*", seq: 10 };
  const direct: StoredMsg | null = await jsm.direct.getMessage("ORDERS", query);
  void [direct?.subject, (await jsm.direct.getMessage("ORDERS", { start_time: new Date() }))?.seq];
  const many: StoredMsgs = await jsm.direct.getBatch("ORDERS", { seq: 1, batch: 10, next_by_subj: "orders.eu" });
  for await (const m of many) void m.seq;
  for await (const m of await jsm.direct.getLastMessagesFor("ORDERS", { multi_last: ["orders.eu"], up_to_seq: 9 })) {
    const stored: StoredMsg = m;
    void stored;
  }
  void jsm.direct.getBatch("ORDERS", { seq: 1, callback: (done, m) => void (done ? done.err?.message : m.seq) });
  // @ts-expect-error: a batch starts at a sequence or a time, not both
  void jsm.direct.getBatch("ORDERS", { seq: 1, start_time: new Date() });

  const js: JetStreamClient = jetstream(nc, { maxAckInflight: 64 });
  const ack: PubAck = await js.publish("orders.new", "x", {
    msgID: "1",
    expect: { lastSequence: 0 },
    ttl: "1h",
    retries: 0,
  });
  void [ack.seq, ack.duplicate, ack.domain];
  const ordered: OrderedConsumer = await js.consumers.get("ORDERS");
  const orderedOpts: OrderedConsumerOptions = {
    filter_subjects: ["orders.eu", "orders.us"],
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: 10,
    replay_policy: ReplayPolicy.Instant,
    inactive_threshold: 60_000,
    headers_only: true,
    name_prefix: "audit_",
  };
  const fromTime: OrderedConsumer = await js.consumers.get("ORDERS", { opt_start_time: "2026-01-01T00:00:00Z" });
  const inOrder: ConsumerMessages = await (await js.consumers.get("ORDERS", orderedOpts)).consume({ max_messages: 10 });
  const orderedInfo: ConsumerInfo = await ordered.info(true);
  const orderedNext: JsMsg | null = await fromTime.next({ expires: 1000 });
  void [inOrder, orderedInfo, orderedNext, isPullConsumer(ordered), await ordered.fetch({ max_messages: 5 })];
  for await (const s of inOrder.status()) if (s.type === "ordered_consumer_recreated") void s.name.length;
  // @ts-expect-error: an ordered consumer starts by a deliver policy, not by any word
  await js.consumers.get("ORDERS", { deliver_policy: "sometimes" });
  // @ts-expect-error: filter_subjects are subjects
  await js.consumers.get("ORDERS", { filter_subjects: 7 });
  // @ts-expect-error: an ordered consumer has no ledger (no acks to hold)
  void new CheckpointLedger(ordered);
  const push: PushConsumer = await js.consumers.getPushConsumer("ORDERS", "monitor");
  const pushOpts: PushConsumerOptions = { abort_on_missing_resource: true, callback: (m: JsMsg) => m.ack() };
  const pushed: ConsumerMessages = await push.consume(pushOpts);
  const isPush: true = push.isPushConsumer();
  const notPull: false = push.isPullConsumer();
  void [pushed, isPush, notPull, await push.info(true), await push.delete(), isPushConsumer(push)];
  void (await (await jsm.streams.get("ORDERS")).getPushConsumer("monitor")).consume();
  for await (const s of (await push.consume()).status()) if (s.type === "consumer_deleted") void [s.code, s.description];
  // @ts-expect-error: a push consumer is not fetched from, the server sends
  await push.fetch();
  // @ts-expect-error: abort_on_missing_resource is a boolean
  await push.consume({ abort_on_missing_resource: "yes" });
  const orderedPush: PushConsumer = await js.consumers.getPushConsumer("ORDERS");
  const orderedPushOpts: OrderedPushConsumerOptions = { deliver_prefix: "audit", filter_subjects: "orders.>" };
  void (await (await jsm.streams.get("ORDERS")).getPushConsumer(orderedPushOpts)).consume({ callback: () => {} });
  for await (const s of (await orderedPush.consume()).status()) if (s.type === "ordered_consumer_recreated") void s.name;
  void [await orderedPush.info(), await orderedPush.delete()];
  // @ts-expect-error: deliver_prefix is a subject
  await js.consumers.getPushConsumer("ORDERS", { deliver_prefix: 7 });
  const boundOpts: BoundPushConsumerOptions = { deliver_subject: "deliver.monitor", idle_heartbeat: 5e9 };
  const bound: PushConsumer = await js.consumers.getBoundPushConsumer(boundOpts);
  void bound.consume({ callback: (m: JsMsg) => m.ack() });
  // @ts-expect-error: a bound consumer is known by its deliver subject
  await js.consumers.getBoundPushConsumer({ deliver_group: "workers" });
  // @ts-expect-error: idle_heartbeat is a number of nanoseconds
  await js.consumers.getBoundPushConsumer({ deliver_subject: "d", idle_heartbeat: "5s" });
  const c = await js.consumers.get("ORDERS", "workers");
  const pull: boolean = isPullConsumer(c) && c.isPullConsumer() && !c.isPushConsumer() && !isPushConsumer(c);
  void pull;
  const messages: ConsumerMessages = await c.consume({ max_messages: 100, idle_heartbeat: 5000, keep_waiting: true });
  for await (const s of messages.status()) {
    const status: ConsumerStatus = s;
    if (status.type === "heartbeats_missed") void status.count;
    if (status.type === "terminal") void [status.code, status.description];
  }
  const atomic: Batch = await js.startBatch("orders.1", "a", { msgID: "o-1", expect: { lastSequence: 0 } });
  atomic.add("orders.2", "b", { ttl: "1h" });
  const staged: Promise<void> = atomic.add("orders.3", "c", { ack: true, expect: { lastSubjectSequence: 0 } });
  // @ts-expect-error: a batch does not support expect.lastMsgID
  atomic.add("orders.4", "d", { expect: { lastMsgID: "o-0" } });
  const batchAck: BatchAck = await atomic.commit("orders.5", "e", { headers: headers() });
  void [staged, batchAck.batch, batchAck.count, batchAck.seq, atomic.id, atomic.count];
  const schedule: ScheduleOptions = { specification: { every: "5m" }, target: "orders.tick", ttl: "1h", rollup: "sub" };
  const specs: ScheduleSpec[] = [{ at: new Date() }, { cron: "0 0 5 * * *" }, { predefined: "@hourly" }];
  const daily: PredefinedSchedule = "@daily";
  void [specs, daily];
  await js.publish("schedules.tick", "t", { schedule });
  await js.publish("schedules.once", "t", { schedule: { specification: new Date(), target: "orders.once", timezone: "UTC" } });
  await js.publish("orders.cancelled", "t", { cancelSchedule: { scheduleSubject: "schedules.tick" } });
  // @ts-expect-error: the only rollup is "sub"
  await js.publish("schedules.tick", "t", { schedule: { ...schedule, rollup: "all" } });
  // @ts-expect-error: not an alias the server knows
  await js.publish("schedules.tick", "t", { schedule: { specification: { predefined: "@fortnightly" }, target: "t" } });
  const batch: AckBatch = js.ackBatch();
  void new AckBatch(js, { policy: "all" });
  for await (const m of messages) {
    const msg: JsMsg = m;
    const info: DeliveryInfo = msg.info;
    const nanos: bigint = info.timestampNanos;
    void [nanos, info.time.getTime(), msg.seq, msg.redelivered, msg.json<{ id: number }>().id];
    const deliveries: number = info.deliveryCount + messages.getPending() + messages.getReceived();
    const stored: [bigint, Date, string, string] = [msg.timestampNanos, msg.time, msg.timestamp, msg.reply];
    void [deliveries, stored];
    batch.add(msg, "nak", { delay: 1000 });
    batch.add(msg.ackToken());
  }
  await batch.commit();
  const report: AckReport = await new AckBatch(js).commit({ confirm: true, timeout: 1000 });
  void [report.confirmed, report.refused[0]?.[1]];
  const one: JsMsg | null = await c.next({ expires: 1000 });
  one?.ack();
  one?.next(nc.newInbox(), { batch: 2, expires: 1000, no_wait: false });
  // @ts-expect-error: batch is a number
  one?.next("inbox", { batch: "2" });
  const confirmed: boolean = ((await one?.ackAck()) ?? false) && ((await one?.ackAck({ timeout: 500 })) ?? false);
  void confirmed;
  for await (const m of await c.fetch({ max_messages: 10, expires: 1000 })) m.term("bad");
  await messages.close();
  messages.stop(new Error("done"));

  const ledger = new CheckpointLedger(c, { workers: 4, batch: 100, checkpointInterval: 5000 });
  const warnings: LedgerWarning[] = ledger.warnings();
  if (warnings[0]?.code === "ACK_WAIT_SHORTER_THAN_CHECKPOINT") void warnings[0].message;
  for await (const m of await c.fetch({ max_messages: 10 })) ledger.track(m, 1);
  const event: LedgerEvent | null = ledger.tryNextEvent();
  void [event?.token, ledger.length, ledger.isEmpty()];
  const committed: AckReport = await ledger.commit(1);
  void committed.confirmed;
  // Exactly-once: the states saved by the last checkpoint, restored; redeliveries of applied work filtered out.
  const saved: LedgerState[] = [JSON.parse("{}") as LedgerState];
  await ledger.restore(saved);
  for await (const m of ledger.filter(await c.fetch({ max_messages: 10 }))) {
    const id: string = outputMsgId(m, 1);
    await js.publish("out", m.data, { msgID: outputMsgId(m) + id });
    ledger.track(m, 2);
  }
  if (one && !ledger.admit(one)) void 0;
  try {
    const state: LedgerState = ledger.snapshot(2);
    const [first, last]: number[] = state.consumers[0]!.runs ?? [];
    void [state.version, state.consumers[0]?.stream, state.consumers[0]?.consumer, first, last];
  } catch (e) {
    // A message of the epoch may have reached another worker.
    if (e instanceof NatsError && e.kind === "AT_RISK") void (await ledger.abort(2));
  }
  const ledgerCounts: LedgerCounts = ledger.counts();
  void [ledgerCounts.skipped, ledgerCounts.aborted, ledgerCounts.atRisk, ledgerCounts.redelivered];
  if (event?.type === "redelivered" || event?.type === "redeliveryRisk") void event.token;
  ledger.close();

  // @ts-expect-error: durations in configs are nanosecond numbers
  await jsm.streams.add({ name: "X", max_age: "1h" });
  // @ts-expect-error: a new stream needs its name
  await jsm.streams.add({ subjects: ["x"] });
  // @ts-expect-error: ack kinds are a closed set
  batch.add("token", "ok");
  // @ts-expect-error: ack policies are a closed set
  js.ackBatch({ policy: "some" });
  // @ts-expect-error: the ledger needs the checkpoint interval
  new CheckpointLedger(c, { workers: 1, batch: 1 });
  // @ts-expect-error: a warning's code is a closed set
  if (warnings[0]?.code === "SLOW") void 0;
  // @ts-expect-error: ranges are [first, last] pairs
  await ledger.restore([{ version: 1, consumers: [{ stream: "S", consumer: "D", ranges: [1, 2] }] }]);
  await ledger.restore([{ version: 2, consumers: [{ stream: "S", consumer: "D", runs: [1, 2] }] }]);
  // @ts-expect-error: an event's type is a closed set
  if (event?.type === "lost") void 0;
  // @ts-expect-error: a confirmed commit reports, a plain one does not
  const nothing: AckReport = await batch.commit();
  void nothing;
}

// nats.js helpers and connection/subscription controls.
import { Empty, createInbox, millis, nanos, wsconnect, type Nanos } from "natsjet";

export async function controlsExample(): Promise<void> {
  const nc: NatsConnection = await wsconnect({
    servers: "nats://127.0.0.1:4222",
    tls: { caFile: "/ca.pem", certFile: "/client.pem", keyFile: "/client.key" },
  });
  const empty: Uint8Array = Empty;
  nc.publish(createInbox("app.replies"), empty);
  const inbox: string = createInbox();
  const ns: Nanos = nanos(250);
  const ms: number = millis(ns);
  void [inbox, ms];

  const sub: Subscription = nc.subscribe("work");
  const counts: number[] = [sub.getReceived(), sub.getPending(), sub.getProcessed()];
  const draining: boolean = sub.isDraining();
  void [counts, draining];
  const drained: Promise<void> = sub.drain();
  await drained;
  await sub[Symbol.asyncDispose]();

  const rtt: number = await nc.rtt();
  const server: string = nc.getServer();
  const ncDraining: boolean = nc.isDraining();
  void [rtt, server, ncDraining];
  await nc.reconnect();
  for await (const s of nc.status()) {
    const st: Status = s;
    if (st.type === "forceReconnect") break;
  }
  await nc[Symbol.asyncDispose]();

  // @ts-expect-error: nanos takes milliseconds as a number
  nanos("250");
  // @ts-expect-error: file options are paths
  await wsconnect({ tls: { caFile: 1 } });
}

/** nats.js v3's error idioms, and where natsjet's string `code` differs. */
async function errorsExample(nc: NatsConnection, jsm: JetStreamManager): Promise<void> {
  try {
    await nc.request("svc");
  } catch (e) {
    if (e instanceof TimeoutError) void e.kind;
    if (e instanceof RequestError && e.isNoResponders()) void e.message;
    if (e instanceof RequestError && e.cause instanceof NoRespondersError) void e.cause.subject;
    if (e instanceof NoRespondersError) {
      const subject: string = e.subject;
      const nats: NatsError = e;
      void [subject, nats];
    }
  }
  try {
    await jsm.streams.info("S");
  } catch (e) {
    if (e instanceof StreamNotFoundError || e instanceof ConsumerNotFoundError) void e.status;
    if (e instanceof JetStreamNotEnabled && e.cause instanceof JetStreamApiError) void e.cause.code;
    if (e instanceof JetStreamStatusError) void (e.code === 409);
    if (e instanceof Error && isMessageNotFound(e)) void e.message;
    if (e instanceof JetStreamApiError) {
      const api: ApiError = e.apiError();
      const same: boolean = api.err_code === JetStreamApiCodes.StreamNotFound || e.code === JetStreamApiCodes.StreamNotFound;
      const status: number = e.status;
      const kind: ErrorKind = e.kind;
      void [same, status, kind];
      // @ts-expect-error: `code` is nats.js's number, natsjet's string is `kind`
      void (e.code === "JETSTREAM");
    }
    if (e instanceof errors.TimeoutError || e instanceof jserrors.JetStreamApiError) void e.message;
  }
  for await (const s of nc.status()) {
    if (s.type === "error" && s.error instanceof PermissionViolationError) {
      const op: "publish" | "subscription" = s.error.operation;
      void [op, s.error.subject, s.error.queue];
    }
  }
}

/** Every Key-Value call, typed as with nats.js's @nats-io/kv. */
export async function keyValue(nc: NatsConnection): Promise<void> {
  const kvm = new Kvm(nc);
  const alsoKvm = new Kvm(jetstream(nc, { timeout: 2000 }));
  const limits: Partial<KvLimits> = { history: 5, ttl: 60_000, markerTTL: 5000, max_bytes: -1, maxValueSize: 1024 };
  const opts: Partial<KvOptions> = { ...limits, storage: StorageType.Memory, replicas: 1, description: "d", compression: true };
  const kv: KV = await kvm.create("profiles", { ...opts, metadata: { team: "a" }, timeout: 3000, allow_direct: true });
  const ro: RoKV = await alsoKvm.open("profiles", { bindOnly: true, streamName: "KV_profiles" });
  // @ts-expect-error: natsjet has no codecs
  await kvm.create("coded", { codec: {} });
  // @ts-expect-error: history is a number
  await kvm.create("bad", { history: "5" });

  const put: KvPutOptions = { previousSeq: 0, timeout: 1000 };
  const r1: number = await kv.put("sue.color", "blue", put);
  const r2: number = await kv.put("sue.color", new Uint8Array([1]), { previousSeq: r1 });
  const r3: number = await kv.update("sue.color", "green", r2, 1000);
  const r4: number = await kv.create("sue.ttl", "short", "10s");
  void [r3, r4, await kv.create("sue.plain", "")];
  const entry: KvEntry | null = await kv.get("sue.color", { revision: r1 });
  if (entry) {
    const op: "PUT" | "DEL" | "PURGE" = entry.operation;
    const fields: [string, string, Uint8Array, Date, number, number | undefined, number, string] = [
      entry.bucket, entry.key, entry.value, entry.created, entry.revision, entry.delta, entry.length, entry.rawKey,
    ];
    void [op, fields, entry.string(), entry.json<{ c: string }>().c];
  }
  const del: Partial<KvDeleteOptions> = { previousSeq: r3 };
  await kv.delete("sue.color", del);
  const purge: Partial<KvPurgeOptions> = { previousSeq: r3, ttl: "1m" };
  await kv.purge("sue.color", purge);
  await kv.purge("sue.*");

  const keys: QueuedIterator<string> = await kv.keys(["sue.>", "bob.*"]);
  for await (const k of keys) void k.length;
  void [keys.getProcessed(), keys.getPending(), keys.getReceived(), await kv.keys(), await kv.keys("a.*")];
  const history: QueuedIterator<KvWatchEntry> = await ro.history({ key: ["sue.color"], headers_only: true });
  for await (const e of history) void [e.isUpdate, e.delta];
  void (await ro.history());

  const include: KvWatchInclude = KvWatchInclude.AllHistory;
  const watchOpts: KvWatchOptions = { key: "sue.>", include, ignoreDeletes: true, headers_only: false, resumeFromRevision: r1 };
  const watch: KvWatcher = await kv.watch(watchOpts);
  await watch.caughtUp();
  for await (const e of watch) {
    const w: KvWatchEntry = e;
    if (w.isUpdate) watch.stop();
  }
  void [await kv.watch(), await kv.watch({ key: ["a", "b"], include: KvWatchInclude.UpdatesOnly })];
  // @ts-expect-error: include takes KvWatchInclude's values
  await kv.watch({ include: "all" });

  const status: KvStatus = await ro.status();
  void [status.bucket, status.values, status.history, status.ttl, status.markerTTL, status.size, status.streamInfo.config.name];
  void [status.storage, status.replicas, status.description, status.max_bytes, status.maxValueSize, status.metadata?.team];
  for await (const s of kvm.list()) void s.bucket;
  const listed: KvStatus[] = await kvm.list().next();
  void listed;
  const gone: boolean = await kv.destroy();
  void gone;
  await kv.close();
}

/** Every Object Store call, typed as with nats.js's @nats-io/obj, and natsjet's progress. */
export async function objectStore(nc: NatsConnection, rs: ReadableStream<Uint8Array>): Promise<void> {
  const objm = new Objm(nc);
  const alsoObjm = new Objm(jetstream(nc, { timeout: 2000 }));
  const opts: Partial<ObjectStoreOptions> = {
    description: "files",
    ttl: nanos(60_000),
    storage: StorageType.Memory,
    replicas: 1,
    max_bytes: -1,
    placement: { cluster: "c", tags: ["a"] },
    metadata: { team: "a" },
    compression: true,
  };
  const os: ObjectStore = await objm.create("files", opts);
  const other: ObjectStore = await alsoObjm.open("other");
  void [await objm.open("files", false), await objm.open("files", { check: true })];
  // @ts-expect-error: ttl is nanoseconds, a number
  await objm.create("bad", { ttl: "1h" });

  const options: ObjectStoreMetaOptions = { max_chunk_size: 64 * 1024 };
  const h = headers();
  h.set("Content-Type", "text/plain");
  const meta: ObjectStoreMeta = { name: "a.txt", description: "d", headers: h, options, metadata: { k: "v" } };
  const progress: ObjectProgress = (done: number, total?: number) => void [done, total];
  const putOpts: ObjectStorePutOpts = { timeout: 5000, previousRevision: 0, progress, size: 3 };
  const put: ObjectInfo = await os.put(meta, rs, putOpts);
  const blob: ObjectInfo = await os.putBlob({ name: "b" }, new Uint8Array([1, 2, 3]), { progress });
  void (await os.putBlob({ name: "empty" }, null));
  // @ts-expect-error: a put takes a ReadableStream, not bytes
  await os.put({ name: "c" }, new Uint8Array(1));
  const fields: [string, string, string, number, number, string, boolean, string, number, string] = [
    put.name, put.bucket, put.nuid, put.size, put.chunks, put.digest, put.deleted, put.mtime, put.revision, put.description,
  ];
  void [fields, put.headers.get("Content-Type"), put.metadata.k, put.options?.max_chunk_size, blob.options?.link?.bucket];

  const info: ObjectInfo | null = await os.info("a.txt");
  const getOpts: ObjectStoreGetOpts = { progress };
  const result: ObjectResult | null = await os.get("a.txt", getOpts);
  if (result) {
    const data: ReadableStream<Uint8Array> = result.data;
    const failed: Error | null = await result.error;
    void [data, failed, result.info.size];
  }
  const bytes: Uint8Array | null = await os.getBlob("a.txt", { progress });
  const all: ObjectInfo[] = await os.list();
  void [info, bytes, all];

  const deleted: PurgeResponse = await os.delete("b");
  void [deleted.success, deleted.purged];
  if (info) {
    const link: ObjectInfo = await os.link("link", info);
    const target: ObjectStoreLink | undefined = link.options?.link;
    const alias: ObjectLink | undefined = target;
    void alias;
  }
  void (await os.linkStore("all", other));
  const ack: PubAck = await os.update("a.txt", { name: "b.txt", description: "e", metadata: {}, headers: h });
  void [ack.seq, ack.stream, await os.update("b.txt", {})];

  const watch: QueuedIterator<ObjectWatchInfo> = await os.watch({ includeHistory: true, ignoreDeletes: true });
  for await (const w of watch) {
    if (w.isUpdate) watch.stop();
    void [w.name, w.deleted, w.revision];
  }
  void (await os.watch());

  const status: ObjectStoreStatus = await os.status({ subjects_filter: "$O.files.M.>" });
  void [status.bucket, status.description, status.ttl, status.storage, status.replicas, status.sealed, status.size];
  void [status.backingStore, status.streamInfo.config.name, status.metadata?.team, status.compression];
  const sealed: ObjectStoreStatus = await os.seal();
  void sealed;
  for await (const s of objm.list()) void s.bucket;
  const listed: ObjectStoreStatus[] = await objm.list().next();
  void listed;
  const gone: boolean = await os.destroy();
  void gone;
}

// The services API, from its own entry (nats.js: "@nats-io/services").
import {
  ServiceError,
  ServiceErrorCodeHeader,
  ServiceErrorHeader,
  ServiceResponseType,
  ServiceVerb,
  Svcm,
  type Endpoint,
  type EndpointInfo,
  type NamedEndpointStats,
  type Service,
  type ServiceClient,
  type ServiceGroup,
  type ServiceIdentity,
  type ServiceInfo,
  type ServiceMsg,
  type ServiceStats,
} from "natsjet/services";

export async function servicesExample(nc: NatsConnection): Promise<void> {
  const svcm = new Svcm(nc);
  const srv: Service = await svcm.add({
    name: "calc",
    version: "1.0.0",
    description: "d",
    metadata: { a: "b" },
    queue: "",
    statsHandler: async (ep: Endpoint) => ({ subject: ep.subject, queue: ep.queue }),
  });
  const group: ServiceGroup = srv.addGroup("calc", "q").addGroup("deep");
  group.addEndpoint("sum", (err: Error | null, m: ServiceMsg) => {
    if (err) return;
    const numbers = m.json<number[]>();
    if (!Array.isArray(numbers)) m.respondError(400, "numbers please", "", { headers: headers() });
    else m.respond(`${numbers.length}`);
  });
  const requests: QueuedIterator<ServiceMsg> = srv.addEndpoint("upper", { subject: "text.upper", metadata: { x: "y" }, queue: "q2" });
  for await (const m of requests) {
    const subject: string = m.subject;
    void [subject, m.reply, m.headers?.get(ServiceErrorHeader), m.string()];
    throw new ServiceError(500, "nope");
  }
  const stopped: Error | null = await srv.stopped;
  const running: boolean = srv.isStopped;
  const info: ServiceInfo = srv.info();
  const endpoint: EndpointInfo | undefined = info.endpoints[0];
  const identity: ServiceIdentity = srv.ping();
  const stats: ServiceStats = await srv.stats();
  const named: NamedEndpointStats | undefined = stats.endpoints?.[0];
  void [stopped, running, endpoint?.queue_group, identity.id, named?.average_processing_time, stats.started];
  srv.reset();
  const err: Error | null = await srv.stop(new Error("done"));
  void err;

  const client: ServiceClient = svcm.client({ strategy: "stall", maxWait: 1000 }, "$SRV");
  for await (const p of await client.ping("calc")) if (p.type === ServiceResponseType.PING) void p.name;
  for await (const s of await client.stats("calc", "id")) void s.endpoints?.map((e) => e.num_requests);
  for await (const i of await client.info()) void i.endpoints.map((e) => e.subject);
  const reply = await nc.request(`$SRV.${ServiceVerb.INFO}`);
  const e: ServiceError | null = ServiceError.toServiceError(reply);
  void [e?.code, ServiceError.isServiceError(reply), ServiceErrorCodeHeader];

  // @ts-expect-error: a service needs a version
  await svcm.add({ name: "calc" });
  // @ts-expect-error: verbs are a closed set
  const verb: ServiceVerb = "HELLO";
  void verb;
  // @ts-expect-error: a handler takes an error and a message
  srv.addEndpoint("x", (m: ServiceMsg) => m.respond());
}
