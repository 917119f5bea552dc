// Node consumer of the packed package's `natsjet/services` entry:
// `node services.mjs <server url>` adds a service, calls and pings it, and
// prints what it saw as JSON.
import { connect } from "natsjet";
import { Svcm } from "natsjet/services";

const nc = await connect({ servers: process.argv[2] });
const svcm = new Svcm(nc);
const srv = await svcm.add({ name: "sample", version: "1.0.0" });
srv.addEndpoint("hello", { subject: "sample.hello", handler: (_err, m) => m.respond(`hello ${m.string()}`) });
await nc.flush();
const answer = (await nc.request("sample.hello", "app")).string();
const pings = [];
for await (const p of await svcm.client().ping("sample")) pings.push(p.name);
await srv.stop();
await nc.drain();
console.log(JSON.stringify({ entry: import.meta.resolve("natsjet/services").split("/").slice(-2).join("/"), answer, pings }));
