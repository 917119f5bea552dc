// The walkthrough page: runs steps.mjs against ?server=ws://host:port,
// printing each step as a line and the object's put and get on a progress
// bar (a <progress> element and the same text bar as the Node script).
import { connect } from "natsjet";
import { bar, walkthrough } from "./steps.mjs";

const $ = (id) => document.getElementById(id);
const servers = new URLSearchParams(location.search).get("server") ?? "ws://127.0.0.1:8080";
let drawing = null;

const out = {
  line(text) {
    drawing = null;
    const line = document.createElement("div");
    line.textContent = text;
    $("log").append(line);
  },
  bar(done, total) {
    if (!drawing) $("log").append((drawing = document.createElement("div")));
    drawing.textContent = `   ${bar(done, total)}`;
    $("progress").max = total ?? done;
    $("progress").value = done;
  },
};

async function main() {
  const nc = await connect({ servers, name: "walkthrough-page" });
  $("status").textContent = `connected to ${servers}`;
  await walkthrough(nc, out);
  await nc.close();
  $("status").textContent = "done";
}

main().catch((e) => {
  $("status").textContent = `error: ${e.message}`;
});
