// Node consumer: `node node.mjs <server url>` prints the scenario's result as JSON.
import * as natsjet from "natsjet";
import { run } from "./scenario.mjs";

const result = await run(natsjet, process.argv[2]);
console.log(JSON.stringify({ entry: import.meta.resolve("natsjet").split("/").at(-1), ...result }));
