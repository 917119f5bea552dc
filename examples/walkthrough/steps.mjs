// The JetStream walkthrough's steps, shared by the Node script
// (../walkthrough.mjs) and the browser page (index.html): the same steps as
// examples/walkthrough.rs. A stream, two durable pull consumers (ack all;
// replay instant and original), ten messages fetched from each, then the
// Key-Value store (put, get, delete, watch) and the object store (put with
// a progress bar, list, info, get, delete). `out.line(text)` prints a step;
// `out.bar(done, total)` draws the progress of a transfer in place.
import { Kvm, Objm, jetstream, jetstreamManager } from "natsjet";

/** Every step on connection `nc`, printed as it goes. */
export async function walkthrough(nc, out) {
  await streamsAndConsumers(nc, out);
  await keyValue(nc, out);
  await objects(nc, out);
}

async function streamsAndConsumers(nc, out) {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete("WALK").catch(() => {}); // each run starts from a clean slate
  await jsm.streams.add({ name: "WALK", subjects: ["walk.>"] });
  out.line("1. stream WALK stores walk.>");
  for (const [name, replay] of [
    ["instant", "instant"],
    ["original", "original"],
  ]) {
    await jsm.consumers.add("WALK", { durable_name: name, ack_policy: "all", replay_policy: replay });
    out.line(`2. durable pull consumer "${name}": ack policy all, replay ${replay}`);
  }
  const js = jetstream(nc);
  for (let i = 1; i <= 10; i++) await js.publish(`walk.${i}`, `message ${i}`);
  out.line("3. published 10 messages");
  for (const name of ["instant", "original"]) {
    const consumer = await js.consumers.get("WALK", name);
    let last;
    let count = 0;
    for await (const m of await consumer.fetch({ max_messages: 10, expires: 5000 })) {
      count++;
      last = m;
    }
    // Ack all: acking the last one acks every message before it.
    await last?.ackAck();
    out.line(`4. fetched ${count} messages from "${name}" and acked them with one ack`);
  }
}

async function keyValue(nc, out) {
  const kvm = new Kvm(nc);
  await (await kvm.open("walk").catch(() => null))?.destroy();
  const kv = await kvm.create("walk", { history: 5 });
  const watch = await kv.watch();
  const revision = await kv.put("color", "blue");
  out.line(`5. kv put color=blue at revision ${revision}`);
  out.line(`6. kv get color = ${(await kv.get("color"))?.string()}`);
  await kv.delete("color");
  // nats.js's shape: a deleted key's entry is its DEL marker.
  out.line(`7. kv delete color: get now says ${(await kv.get("color"))?.operation}`);
  let seen = 0;
  for await (const e of watch) {
    out.line(`8. kv watch saw ${e.operation} ${e.key} at revision ${e.revision}`);
    if (++seen === 2) break;
  }
}

async function objects(nc, out) {
  const objm = new Objm(nc);
  await (await objm.open("walk").catch(() => null))?.destroy();
  const os = await objm.create("walk");
  const data = new Uint8Array(3 << 20).fill(42);
  const info = await os.putBlob({ name: "photo.jpg" }, data, { progress: out.bar });
  out.line(`9. object put photo.jpg: ${info.size} bytes in ${info.chunks} chunks, ${info.digest}`);
  for (const listed of await os.list()) out.line(`10. object list: ${listed.name}`);
  const found = await os.info("photo.jpg");
  out.line(`11. object info: ${found.size} bytes, modified ${found.mtime}`);
  const object = await os.get("photo.jpg", { progress: out.bar });
  let read = 0;
  for (const reader = object.data.getReader(); ; ) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.length;
  }
  await object.error; // resolved: the bytes matched the meta's size and SHA-256
  out.line(`12. object get: ${read} bytes, size and digest checked`);
  await os.delete("photo.jpg");
  out.line(`13. object delete: get now says ${await os.get("photo.jpg")}`);
}

/** A progress bar of 30 characters and the percentage, as walkthrough.rs draws it. */
export function bar(done, total = done) {
  const filled = Math.floor((done * 30) / Math.max(total, 1));
  return `[${"#".repeat(filled)}${" ".repeat(30 - filled)}] ${String(Math.floor((done * 100) / Math.max(total, 1))).padStart(3)}%`;
}
