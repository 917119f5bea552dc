// The small app that bench/js/size.mjs and feature_size.mjs bundle, in parts:
// core NATS, JetStream, a Key-Value part, an Object Store part and a
// services part (natsjet: from "natsjet/services").
export const core = (connect) => `
  const nc = await ${connect}({ servers: "ws://127.0.0.1:8080" });
  const sub = nc.subscribe("app.>");
  nc.publish("app.hello", "hi");
  for await (const m of sub) { console.log(m.subject, m.string()); break; }
`;
export const js = `
  const js = jetstream(nc);
  const ack = await js.publish("orders.new", "order", { msgID: "1" });
  console.log(ack.seq);
  const consumer = await js.consumers.get("ORDERS", "processor");
  const messages = await consumer.consume({ max_messages: 100 });
  for await (const m of messages) { console.log(m.subject); m.ack(); break; }
`;
export const kv = `
  const kv = await new Kvm(nc).create("profiles", { history: 5 });
  await kv.put("sue.color", "blue");
  console.log((await kv.get("sue.color"))?.string());
  for await (const e of await kv.watch({ key: "sue.>" })) { console.log(e.key, e.isUpdate); break; }
`;
export const obj = `
  const os = await new Objm(nc).create("files");
  await os.putBlob({ name: "a.txt" }, new TextEncoder().encode("hello"));
  console.log((await os.info("a.txt"))?.size, (await os.getBlob("a.txt"))?.length);
  for (const info of await os.list()) console.log(info.name);
`;

/** The core NATS app (no JetStream), importing `connect` from `from`. */
export const coreApp = (from, connect = "connect") => `import { ${connect} } from "${from}";${core(connect)}await nc.drain();`;

export const svc = `
  const svcm = new Svcm(nc);
  const srv = await svcm.add({ name: "calc", version: "1.0.0", metadata: { team: "a" } });
  srv.addGroup("calc").addEndpoint("sum", (_e, m) => m.respond(JSON.stringify(m.json().reduce((a, b) => a + b, 0))));
  (async () => { for await (const m of srv.addEndpoint("fail")) m.respondError(400, "no"); })();
  for await (const s of await svcm.client().stats("calc")) console.log(s.id, s.endpoints);
  await srv.stop();
`;

export const counters = `
  const hits = NewCounter(nc, "HITS");
  console.log(await hits.increment("hits.home", 1n), await hits.value("hits.home"));
  for await (const c of await hits.getCounters("hits.>")) console.log(c.subject, c.value, c.sources.size);
`;

export const fast = `
  const fast = NewFastPublisher(js, { flow: 100 });
  for (let i = 0; i < 1000; i++) await fast.add("events.raw", String(i));
  console.log((await fast.commit("events.raw", "end")).count);
`;

export const groups = `
  const groups = consumerGroups(js);
  await groups.createElastic("ORDERS", "by-account", { max_members: 4, partitioning_filters: [] }).catch(() => {});
  console.log(await groups.members("elastic", "ORDERS", "by-account"));
`;

/**
 * The natsjet app with JetStream and the parts in `parts` (of "kv", "obj",
 * "svc", "counters", "fast", "groups"), importing from the entry `from` (a tier:
 * "natsjet/jetstream" has no stores).
 */
export function natsjetApp(parts, from = "natsjet") {
  const imports = { kv: "Kvm", obj: "Objm", counters: "NewCounter", fast: "NewFastPublisher", groups: "consumerGroups" };
  const names = ["connect", "jetstream", ...parts.map((p) => imports[p]).filter(Boolean)];
  const bodies = { kv, obj, svc, counters, fast, groups };
  const body = parts.map((p) => bodies[p]).join("");
  const services = parts.includes("svc") ? `import { Svcm } from "natsjet/services";` : "";
  return `import { ${names.join(", ")} } from "${from}";${services}${core("connect")}${js}${body}await nc.drain();`;
}
