// Node consumer: `node node.mjs <server url> [nkey seed]` prints the
// scenario's result (or, with a seed, whether signing in worked) as JSON.
import * as natsjet from "natsjet";
import { run, signIn } from "./scenario.mjs";

const [servers, seed] = process.argv.slice(2);
const result = seed ? { signIn: await signIn(natsjet, servers, seed) } : await run(natsjet, servers);
console.log(JSON.stringify({ entry: import.meta.resolve("natsjet").split("/").at(-1), ...result }));
