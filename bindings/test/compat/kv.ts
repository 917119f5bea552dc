// Key-Value written for nats.js 3.4 (@nats-io/kv): create, put, get,
// update with a revision, create refused for an existing key, delete,
// purge, keys, history, watch and status.
import { connect } from "@nats-io/transport-node";
import { JetStreamApiError } from "@nats-io/jetstream";
import { Kvm, type KV, type KvEntry } from "@nats-io/kv";

export async function keyValue(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const kvm = new Kvm(nc);
  const kv: KV = await kvm.create("profiles", { history: 5 });
  const first = await kv.put("sue.color", "blue");
  const entry: KvEntry | null = await kv.get("sue.color");
  seen.push(`${entry?.key} @ ${entry?.revision} -> ${entry?.string()} ${entry?.operation}`);
  try {
    await kv.update("sue.color", "red", first + 100);
  } catch (err) {
    seen.push(`update refused: ${err instanceof JetStreamApiError ? err.apiError().err_code : err}`);
  }
  await kv.update("sue.color", "green", first);
  try {
    await kv.create("sue.color", "pink");
  } catch (err) {
    seen.push(`create refused: ${err instanceof JetStreamApiError ? err.apiError().err_code : err}`);
  }
  await kv.create("sue.food", "pizza");
  await kv.delete("sue.food");
  await kv.purge("sue.food");
  const keys: string[] = [];
  for await (const k of await kv.keys()) keys.push(k);
  seen.push(`keys ${keys.sort().join(",")}`);
  const history: string[] = [];
  for await (const e of await kv.history({ key: "sue.color" })) history.push(e.string());
  seen.push(`history ${history.join(",")}`);
  const watch = await kv.watch({ key: "sue.>" });
  const done = (async () => {
    for await (const e of watch) {
      if (e.isUpdate) return `watch ${e.key} ${e.string()}`;
    }
    return "watch ended";
  })();
  await kv.put("sue.color", "yellow");
  seen.push(await done);
  const status = await kv.status();
  seen.push(`status ${status.bucket} history ${status.history} values ${status.values}`);
  const opened = await kvm.open("profiles");
  seen.push(`opened ${(await opened.get("sue.color"))?.string()}`);
  await kv.destroy();
  await nc.drain();
  return seen;
}
