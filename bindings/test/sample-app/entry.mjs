// Bundled by esbuild (platform browser) into dist/app.js for bundle.html.
import * as natsjet from "natsjet";
import { run } from "./scenario.mjs";

window.result = run(natsjet, new URLSearchParams(location.search).get("servers"));
