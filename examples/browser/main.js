// The browser example: a core subscription that lists what arrives and,
// where the package has the JetStream API, a live durable consumer that
// acks each message it shows. Open index.html?server=ws://host:port.
import * as natsjet from "natsjet";

const $ = (id) => document.getElementById(id);
const servers = new URLSearchParams(location.search).get("server") ?? "ws://127.0.0.1:8080";

function show(list, text) {
  const li = document.createElement("li");
  li.textContent = text;
  $(list).append(li);
  return li;
}

async function main() {
  const nc = await natsjet.connect({ servers, name: "browser-example" });
  $("status").textContent = `connected to ${servers}`;
  (async () => {
    for await (const s of nc.status()) $("status").textContent = s.type;
  })();

  nc.subscribe("demo.>", { callback: (_err, m) => show("messages", `${m.subject}: ${m.string()}`) });
  $("publish").addEventListener("submit", (e) => {
    e.preventDefault();
    nc.publish($("subject").value, $("text").value);
  });

  // Namespace import: the page still runs with a package that lacks JetStream.
  if (typeof natsjet.jetstream !== "function") {
    $("js-status").textContent = "this build of natsjet has no JetStream API";
    return;
  }
  const jsm = await natsjet.jetstreamManager(nc);
  await jsm.streams.add({ name: "DEMO", subjects: ["demo.js.>"] });
  await jsm.consumers.add("DEMO", { durable_name: "browser", ack_policy: "explicit" });
  const js = natsjet.jetstream(nc);
  const messages = await (await js.consumers.get("DEMO", "browser")).consume({ max_messages: 10 });
  $("js-publish").hidden = false;
  $("js-publish").addEventListener("submit", (e) => {
    e.preventDefault();
    js.publish($("js-subject").value, $("js-text").value).catch((err) => {
      $("js-status").textContent = `publish failed: ${err.message}`;
    });
  });
  $("js-status").textContent = "consuming stream DEMO";
  for await (const m of messages) {
    const li = show("js-messages", `#${m.seq} ${m.subject}: ${m.string()}`);
    m.ack();
    li.textContent += " (acked)";
  }
}

main().catch((e) => {
  $("status").textContent = `error: ${e.message}`;
});
