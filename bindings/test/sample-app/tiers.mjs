// Node consumer of the tiers: `node tiers.mjs <server url>` runs the
// scenario through natsjet/core and natsjet/jetstream and prints, per tier,
// the file its entry resolved to, the result, and which tier exports it has.
import * as core from "natsjet/core";
import * as js from "natsjet/jetstream";
import { run } from "./scenario.mjs";

const [servers] = process.argv.slice(2);
const result = {};
for (const [name, tier] of [["natsjet/core", core], ["natsjet/jetstream", js]]) {
  result[name] = {
    entry: import.meta.resolve(name).split("/").slice(-3).join("/"),
    ...(await run(tier, servers)),
    exports: ["jetstream", "Kvm", "Objm"].filter((n) => n in tier),
  };
}
console.log(JSON.stringify(result));
