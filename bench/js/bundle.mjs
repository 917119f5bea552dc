// One minified browser ES module from `source`, as an app would ship it
// (esbuild, imports resolved from this folder's node_modules).
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL("./", import.meta.url));

export async function bundle(source) {
  const out = await esbuild.build({
    stdin: { contents: source, resolveDir: here, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "error",
    // @nats-io/obj reaches for node:crypto where crypto.subtle is missing;
    // browser bundles of it must leave that out (WIRE.md).
    external: ["node:crypto"],
  });
  return out.outputFiles[0].contents;
}
