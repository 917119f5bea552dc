// Core NATS written for nats.js 3.4: publish/subscribe with headers and
// replies, queue groups, request/reply with a responder, the typed errors
// of requests, flush, drain and the connection's status.
import { connect } from "@nats-io/transport-node";
import {
  Empty,
  RequestError,
  TimeoutError,
  headers,
  type Msg,
  type NatsConnection,
} from "@nats-io/nats-core";

export async function publishSubscribe(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc: NatsConnection = await connect({ servers, name: "compat-pubsub" });
  const sub = nc.subscribe("greet.*", { max: 3 });
  const h = headers();
  h.set("Trace-Id", "42");
  h.append("X-Multi", "a");
  h.append("X-Multi", "b");
  nc.publish("greet.joe", "hello");
  nc.publish("greet.ann", new TextEncoder().encode("hi"), { headers: h });
  nc.publish("greet.bob", "yo", { reply: "greet.replies" });
  for await (const m of sub) {
    seen.push(`${m.subject} ${m.string()} ${m.reply ?? "-"}`);
    if (m.headers) {
      seen.push(`headers ${m.headers.get("Trace-Id")} ${m.headers.values("X-Multi").join(",")}`);
    }
  }
  seen.push(`processed ${sub.getProcessed()}`);
  await nc.flush();
  await nc.drain();
  return seen;
}

export async function queueGroups(servers: string): Promise<string[]> {
  const nc = await connect({ servers });
  let taken = 0;
  const count = (_err: Error | null, _m: Msg) => {
    taken++;
  };
  nc.subscribe("jobs", { queue: "workers", callback: count });
  nc.subscribe("jobs", { queue: "workers", callback: count });
  await nc.flush();
  for (let i = 0; i < 10; i++) nc.publish("jobs", `job ${i}`);
  await nc.flush();
  await nc.drain();
  return [`queue members took ${taken}`];
}

export async function requestReply(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers, timeout: 5000 });
  nc.subscribe("svc.echo", {
    callback: (err, m) => {
      if (err) return;
      const who = m.headers?.get("Who");
      m.respond(who ? `${m.string().toUpperCase()} for ${who}` : m.string().toUpperCase());
    },
  });
  nc.subscribe("svc.silent");
  await nc.flush();

  const answer = await nc.request("svc.echo", "ping");
  seen.push(answer.string());
  const h = headers();
  h.set("Who", "ann");
  const withHeaders = await nc.request("svc.echo", "hello", { timeout: 2000, headers: h });
  seen.push(withHeaders.string());
  const json = await nc.request("svc.echo", JSON.stringify({ a: 1 }));
  seen.push(json.string());

  try {
    await nc.request("svc.nobody", Empty, { timeout: 1000 });
    seen.push("an answer from nobody");
  } catch (err) {
    if (err instanceof RequestError && err.isNoResponders()) seen.push("no responders");
    else seen.push(`other: ${err instanceof Error ? err.message : err}`);
  }
  try {
    await nc.request("svc.silent", "hello?", { timeout: 200 });
    seen.push("an answer from the silent");
  } catch (err) {
    seen.push(err instanceof TimeoutError ? "timed out" : `other: ${err instanceof Error ? err.message : err}`);
  }
  await nc.close();
  const closed = await nc.closed();
  seen.push(`closed cleanly: ${closed === undefined}`);
  return seen;
}

export async function statusEvents(servers: string): Promise<string[]> {
  const nc = await connect({ servers, name: "compat-status", maxReconnectAttempts: 2 });
  const kinds: string[] = [];
  (async () => {
    for await (const s of nc.status()) kinds.push(s.type);
  })();
  const info = nc.info;
  const rtt = await nc.rtt();
  const stats = nc.stats();
  await nc.drain();
  return [`server ${info?.server_id !== undefined}`, `rtt ${rtt >= 0}`, `out ${stats.outMsgs >= 0}`, `closed ${nc.isClosed()}`];
}
