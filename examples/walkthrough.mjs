// The JetStream walkthrough in Node.js, step by step (the steps are in
// walkthrough/steps.mjs, shared with the browser page walkthrough/index.html;
// they are those of walkthrough.rs), with a text progress bar for the
// object's put and get. bindings/test/examples.test.mjs runs it.
//
// Usage: node examples/walkthrough.mjs [nats://127.0.0.1:4222]
import { connect } from "natsjet";
import { bar, walkthrough } from "./walkthrough/steps.mjs";

const [servers = "nats://127.0.0.1:4222"] = process.argv.slice(2);
const nc = await connect({ servers, name: "walkthrough" });
let drawing = false;
await walkthrough(nc, {
  line(text) {
    if (drawing) process.stdout.write("\n");
    drawing = false;
    console.log(text);
  },
  bar(done, total) {
    drawing = true;
    process.stdout.write(`\r   ${bar(done, total)}`);
  },
});
await nc.close();
