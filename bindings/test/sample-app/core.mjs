// Bundled by esbuild (platform browser) into dist/core.js for core.html: an
// app of core NATS only, from natsjet/core.
import { connect, headers, NatsError } from "natsjet/core";
import { run } from "./scenario.mjs";

window.result = run({ connect, headers, NatsError }, new URLSearchParams(location.search).get("servers"));
