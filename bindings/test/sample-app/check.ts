// Type-checked by ../pack.test.mjs against the installed tarball (tsc --noEmit
// --strict, Node's and a bundler's resolution): the names a program imports
// from "natsjet" and "natsjet/services" and the types they carry. Never run.
import { connect, jetstream, jetstreamManager, Kvm, Objm, NatsError, type JsMsg, type NatsConnection } from "natsjet";
import { Svcm } from "natsjet/services";

const nc: NatsConnection = await connect({ servers: "ws://127.0.0.1:8080" });
const js = jetstream(nc);
await (await jetstreamManager(nc)).streams.add({ name: "S", subjects: ["s.>"] });
const handle = (m: JsMsg): number => (m.ack(), m.seq);
for await (const m of await (await js.consumers.get("S", "c")).consume()) handle(m);
const revision: number = await (await new Kvm(nc).create("b")).put("k", "v");
const store = await new Objm(nc).create("o");
new Svcm(nc);
try {
  await nc.request("x");
} catch (e) {
  if (e instanceof NatsError) console.log(e.kind, revision, store);
}
await nc.drain();
