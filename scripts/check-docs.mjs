// Checks the Markdown documentation (README.md, pkg/README.md, ARCHITECTURE.md,
// CHANGELOG.md, docs/*.md), so a guide cannot point nowhere or hold a sample
// that no longer parses:
//   - every relative link points to a file that exists and, with a #fragment,
//     to a heading of that file (GitHub's anchors) or of the file itself;
//   - every ```js block parses as an ES module (node --check; samples may
//     use names they do not define, but not broken syntax);
//   - every file with a ```rust block is compiled by the doctests
//     (an include_str! of it in src/lib.rs), so its samples cannot go stale.
// Links to other sites are not fetched. Exits non-zero on any problem.
//
//   node scripts/check-docs.mjs
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const files = ["README.md", "pkg/README.md", "ARCHITECTURE.md", "CHANGELOG.md"]
  .concat(readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`))
  .filter((f) => existsSync(join(root, f)));
const problems = [];

/** The file's lines outside fenced code blocks, and its fenced blocks with their language. */
function parse(text) {
  const prose = [];
  const blocks = [];
  let block = null;
  text.split("\n").forEach((line, i) => {
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (block) {
      if (fence && fence[1][0] === block.fence[0] && fence[1].length >= block.fence.length && !fence[2]) {
        blocks.push(block);
        block = null;
      } else {
        block.lines.push(line);
      }
    } else if (fence) {
      block = { fence: fence[1], lang: fence[2], line: i + 1, lines: [] };
    } else {
      prose.push([i + 1, line]);
    }
  });
  return { prose, blocks };
}

/** GitHub's anchor of a heading: lower case, no punctuation but - and _, spaces as -. */
function slug(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const anchorCache = new Map();
/** Every anchor a Markdown file has (headings, numbered on repeats as GitHub does). */
function anchors(file) {
  if (!anchorCache.has(file)) {
    const seen = new Map();
    const set = new Set();
    for (const [, line] of parse(readFileSync(file, "utf8")).prose) {
      const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!heading) continue;
      const base = slug(heading[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      set.add(n ? `${base}-${n}` : base);
    }
    anchorCache.set(file, set);
  }
  return anchorCache.get(file);
}

const libRs = readFileSync(join(root, "src/lib.rs"), "utf8");
const scratch = mkdtempSync(join(tmpdir(), "natsjet-docs-"));
try {
  for (const name of files) {
    const file = join(root, name);
    const { prose, blocks } = parse(readFileSync(file, "utf8"));
    for (const [lineNo, line] of prose) {
      // Inline code is not a link.
      const text = line.replace(/`[^`]*`/g, "");
      for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [path, fragment] = target.split("#", 2);
        const dest = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        const where = `${name}:${lineNo}: ${target}`;
        if (!existsSync(dest)) {
          problems.push(`${where}: no such file`);
        } else if (fragment !== undefined) {
          if (statSync(dest).isDirectory() || !dest.endsWith(".md")) {
            problems.push(`${where}: a #fragment on something that is not a Markdown file`);
          } else if (!anchors(dest).has(fragment)) {
            problems.push(`${where}: no heading #${fragment} in ${relative(root, dest)}`);
          }
        }
      }
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
