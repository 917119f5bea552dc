// Object Store written for nats.js 3.4 (@nats-io/obj): put from bytes and
// from a ReadableStream, get as a stream, info, links, list, watches,
// delete, seal and status.
import { connect } from "@nats-io/transport-node";
import { Objm, type ObjectInfo, type ObjectStore } from "@nats-io/obj";

async function readAll(data: ReadableStream<Uint8Array>): Promise<number> {
  let size = 0;
  const reader = data.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.length;
  }
}

export async function objectStore(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const objm = new Objm(nc);
  const os: ObjectStore = await objm.create("files", { description: "compat files" });
  const report = new Uint8Array(300 * 1024).fill(7);
  const info: ObjectInfo = await os.putBlob({ name: "report.bin", description: "a report" }, report);
  seen.push(`put ${info.name} ${info.size} bytes in ${info.chunks} chunks`);
  const notes = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("some notes"));
      controller.close();
    },
  });
  await os.put({ name: "notes.txt", metadata: { owner: "sue" } }, notes);
  const blob = await os.getBlob("report.bin");
  seen.push(`blob ${blob?.length}`);
  const result = await os.get("notes.txt");
  if (result) {
    seen.push(`get ${await readAll(result.data)} bytes`);
    seen.push(`error ${(await result.error) ?? "none"}`);
  }
  const notesInfo = await os.info("notes.txt");
  seen.push(`owner ${notesInfo?.metadata?.owner}`);
  if (notesInfo) await os.link("latest", notesInfo);
  const names: string[] = [];
  for (const i of await os.list()) names.push(i.name);
  seen.push(`list ${names.sort().join(",")}`);
  // Without history, a watch tells what changes after it starts.
  const watch = await os.watch();
  const changes = watch[Symbol.asyncIterator]();
  await os.delete("notes.txt");
  const { value: gone } = await changes.next();
  seen.push(`watch ${gone?.name} deleted ${gone?.deleted} update ${gone?.isUpdate}`);
  watch.stop();
  // With history, it starts with every object's latest meta.
  const history = await os.watch({ includeHistory: true });
  const metas = history[Symbol.asyncIterator]();
  for (let i = 0; i < 3; i++) {
    const { value } = await metas.next();
    seen.push(`history ${value?.name} deleted ${value?.deleted === true}`);
  }
  history.stop();
  seen.push(`deleted info ${(await os.info("notes.txt"))?.deleted}`);
  await os.seal();
  const status = await os.status();
  seen.push(`sealed ${status.sealed} size ${status.size >= 0}`);
  await os.destroy();
  await nc.drain();
  return seen;
}
