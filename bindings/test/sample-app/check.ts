// Type-checked by ../pack.test.mjs against the installed tarball (tsc --noEmit
// --strict, Node's and a bundler's resolution): the names a program imports
// from "natsjet", its tiers "natsjet/core" and "natsjet/jetstream", and
// "natsjet/services", and the types they carry. Never run.
import { connect, jetstream, jetstreamManager, Kvm, Objm, NatsError, type JsMsg, type NatsConnection } from "natsjet";
import { Svcm } from "natsjet/services";
import * as core from "natsjet/core";
import * as tierJs from "natsjet/jetstream";
// @ts-expect-error natsjet/core has no JetStream
import { jetstream as noJetStream } from "natsjet/core";
// @ts-expect-error natsjet/jetstream has no Key-Value
import { Kvm as noKvm } from "natsjet/jetstream";

// Each tier's connection is the one NatsConnection type, its subscriptions and messages too.
const coreNc: NatsConnection = await core.connect({ servers: "ws://127.0.0.1:8080" });
const sub: core.Subscription = coreNc.subscribe("a.>", { callback: (_e, m: core.Msg) => m.respond(m.data) });
const tierNc = await tierJs.wsconnect({ servers: "ws://127.0.0.1:8080" });
const pubAck: tierJs.PubAck = await tierJs.jetstream(tierNc).publish("s.a", core.Empty);
const inbox: string = core.createInbox() + tierJs.createInbox("p");
console.log(sub.getID(), pubAck.seq, inbox, noJetStream, noKvm);

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
