// Checks the Markdown documentation (README.md, pkg/README.md, ARCHITECTURE.md,
// CHANGELOG.md, docs/*.md), so a guide cannot point nowhere or hold a sample
// that no longer parses:
//   - every relative link points to a file that exists and, with a #fragment,
//     to a heading of that file (GitHub's anchors) or of the file itself
//     (pkg/README.md's as in the package: docs/ and LICENSE are copied there);
//   - every ```js block parses as an ES module (node --check); they also
//     run against a server in bindings/test/doc_samples.test.mjs, once the
//     package is built;
//   - every file with a ```rust block is compiled by the doctests
//     (an include_str! of it in src/lib.rs), so its samples cannot go stale.
// Links to other sites are not fetched. Exits non-zero on any problem.
//
//   node scripts/check-docs.mjs
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { linkProblem, parse, relativeLinks } from "./markdown.mjs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const files = ["README.md", "pkg/README.md", "ARCHITECTURE.md", "CHANGELOG.md"]
  .concat(readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`))
  .filter((f) => existsSync(join(root, f)));
const problems = [];

// pkg/README.md is read in the package, where scripts/build-pkg.sh puts copies
// of docs/ and LICENSE beside it: its links resolve as from the repository's root.
const base = (name, file) => (name === "pkg/README.md" ? root : dirname(file));

const libRs = readFileSync(join(root, "src/lib.rs"), "utf8");
const scratch = mkdtempSync(join(tmpdir(), "natsjet-docs-"));
try {
  for (const name of files) {
    const file = join(root, name);
    const text = readFileSync(file, "utf8");
    const { blocks } = parse(text);
    for (const link of relativeLinks(text)) {
      const dest = link.path ? resolve(base(name, file), link.path) : file;
      const problem = linkProblem(file, link, dest);
      if (problem) problems.push(`${name}:${link.lineNo}: ${link.target}: ${problem}`);
    }
    blocks.forEach((block, i) => {
      if (block.lang === "js" || block.lang === "javascript" || block.lang === "mjs") {
        const sample = join(scratch, `${name.replace(/[/.]/g, "_")}_${i}.mjs`);
        writeFileSync(sample, block.lines.join("\n"));
        try {
          execFileSync(process.execPath, ["--check", sample], { stdio: "pipe" });
        } catch (e) {
          const why = String(e.stderr).split("\n").find((l) => /Error/.test(l)) ?? "does not parse";
          problems.push(`${name}:${block.line}: the js sample does not parse: ${why}`);
        }
      }
    });
    const rust = blocks.some((b) => /^rust/.test(b.lang));
    if (rust && !libRs.includes(`include_str!("../${name}")`)) {
      problems.push(`${name}: has Rust samples, but src/lib.rs does not compile it as doctests (include_str!)`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (problems.length) {
  console.error(problems.join("\n"));
  console.error(`check-docs: ${problems.length} problem(s) in ${files.length} files`);
  process.exit(1);
}
console.log(`check-docs: ${files.length} files, links and samples ok`);
