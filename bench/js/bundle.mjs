// One minified browser ES module from `source`, as an app would ship it
// (esbuild, imports resolved from this folder's node_modules).
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL("./", import.meta.url));

export async function bundle(source) {
  return (await bundleApp(source)).code;
}

/**
 * `bundle(source)`, and the natsjet wasm the bundle loads: the
 * `natsjet_bg.wasm` next to the one wasm-bindgen glue esbuild put in it
 * (a tier's own build), or undefined for an app without natsjet.
 */
export async function bundleApp(source) {
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
    metafile: true,
    absWorkingDir: here,
  });
  const glue = Object.keys(out.metafile.inputs).filter((input) => /(^|\/)web\/natsjet\.js$/.test(input));
  if (glue.length > 1) throw new Error(`two natsjet wasm builds in one bundle: ${glue.join(", ")}`);
  const wasm = glue.length ? new URL(glue[0].replace(/natsjet\.js$/, "natsjet_bg.wasm"), `file://${here}`) : undefined;
  return { code: out.outputFiles[0].contents, wasm };
}
