// Bundled by esbuild (platform browser) into dist/app.js for bundle.html.
import { connect, headers, NatsError } from "natsjet";
import { run } from "./scenario.mjs";

window.result = run({ connect, headers, NatsError }, new URLSearchParams(location.search).get("servers"));
