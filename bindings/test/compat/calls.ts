// Calls of nats.js 3.4 that natsjet took on later: publishMessage and
// respondMessage, setServers, reconnectDelayHandler and reconnectToServer, Key-Value buckets made with sources, a mirror, placement,
// republish and codecs, purgeDeletes, and the JetStream advisories.
import { connect } from "@nats-io/transport-node";
import { AdvisoryKind, jetstreamManager } from "@nats-io/jetstream";
import { Base64KeyCodec, Bucket, Kvm, NoopKvCodecs } from "@nats-io/kv";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function messages(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const echo = nc.subscribe("echo", {
    callback: (_err, m) => {
      seen.push(`responded ${nc.respondMessage(m)}`);
    },
  });
  let copied = false;
  const copies = nc.subscribe("copies", { max: 2 });
  await nc.flush();
  const answer = await nc.request("echo", "hello", { timeout: 2000 });
  seen.push(`answer ${answer.string()}`);
  nc.publish("echo", "nobody asks");
  nc.publish("copies", "copy me", { reply: "back" });
  for await (const m of copies) {
    seen.push(`copy ${m.subject} ${m.string()} reply ${m.reply}`);
    if (!copied) nc.publishMessage(m);
    copied = true;
  }
  await nc.flush();
  echo.unsubscribe();
  await nc.drain();
  return seen;
}

export async function buckets(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  const kvm = new Kvm(nc);
  const east = await kvm.create("east");
  await east.put("e", "from east");
  const all = await kvm.create("all", { sources: [{ name: "east" }], placement: { cluster: "", tags: ["anywhere"] } });
  let entry = await all.get("e");
  for (let i = 0; i < 100 && !entry; i++) {
    await sleep(50);
    entry = await all.get("e");
  }
  seen.push(`sourced ${entry?.key} ${entry?.string()}`);
  const config = (await jsm.streams.info("KV_all")).config;
  seen.push(`sources ${config.sources?.map((s) => `${s.name} ${s.subject_transforms?.[0]?.dest}`)}`);
  seen.push(`placement ${config.placement?.tags}`);
  await kvm.create("copy", { mirror: { name: "east" } });
  const mirror = (await jsm.streams.info("KV_copy")).config;
  seen.push(`mirror ${mirror.mirror?.name} direct ${mirror.mirror_direct} subjects ${mirror.subjects?.length ?? 0}`);
  const changes = nc.subscribe("changes.>", { max: 1 });
  const told = await kvm.create("told", { republish: { src: "$KV.told.>", dest: "changes.>" } });
  await told.put("k", "v");
  for await (const m of changes) seen.push(`republished ${m.subject} ${m.string()}`);
  // nats.js has purgeDeletes on its Bucket, not on the KV type.
  const kv = (await kvm.create("purging", { history: 5 })) as Bucket;
  await kv.put("gone", "1");
  await kv.delete("gone");
  await kv.put("wiped", "1");
  await kv.purge("wiped");
  const recent = await kv.purgeDeletes();
  const old = await kv.purgeDeletes(0);
  seen.push(`purged ${recent.purged} then ${old.purged}; values ${(await kv.status()).values}`);
  const coded = await kvm.create("coded", { codec: { key: Base64KeyCodec(), value: NoopKvCodecs().value } });
  await coded.put("a.b", "v");
  const codedEntry = await coded.get("a.b");
  seen.push(`coded ${codedEntry?.key} stored as ${codedEntry?.rawKey} -> ${codedEntry?.string()}`);
  for await (const k of await coded.keys()) seen.push(`coded key ${k}`);
  await nc.drain();
  return seen;
}

export async function advisories(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  const advisories = jsm.advisories()[Symbol.asyncIterator]();
  await nc.flush();
  await jsm.streams.add({ name: "ADVISED", subjects: ["advised.>"] });
  await jsm.consumers.add("ADVISED", { durable_name: "watcher" });
  while (seen.length < 2) {
    const { value } = await advisories.next();
    if (value.kind !== AdvisoryKind.API) seen.push(`${value.kind} ${(value.data as { action: string }).action}`);
  }
  await nc.close();
  return seen;
}

export async function serverPool(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const name = (listen: string) => (listen === new URL(servers).host ? "the server" : listen);
  const nc = await connect({
    servers,
    reconnectDelayHandler: () => 20,
    reconnectToServer: (pool, info) => {
      seen.push(`pick of ${pool.map((s) => `${name(s.listen)} ${s.didConnect}`)} with${info ? "" : "out"} info`);
      return pool[0] ?? null;
    },
  });
  const reconnected = (async () => {
    for await (const s of nc.status()) if (s.type === "reconnect") return;
  })();
  nc.setServers([servers]);
  await nc.reconnect();
  await reconnected;
  seen.push(`on ${name(nc.getServer())}`);
  await nc.close();
  return seen;
}
