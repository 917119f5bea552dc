// Reading the project's Markdown: fenced blocks apart from prose, relative
// links, GitHub's heading anchors. Shared by scripts/check-docs.mjs (links and
// samples in the sources) and bindings/test (the packed package's README and
// guides, the guides' JS samples run against a server).
import { existsSync, readFileSync, statSync } from "node:fs";

/**
 * The file's lines outside fenced code blocks (`[lineNo, line]`), and its
 * fenced blocks: `{ lang, line, lines, before }` (`before`: the prose line
 * right above the fence).
 */
export function parse(text) {
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
      block = { fence: fence[1], lang: fence[2], line: i + 1, lines: [], before: prose.at(-1)?.[1] ?? "" };
    } else {
      prose.push([i + 1, line]);
    }
  });
  return { prose, blocks };
}

/** The relative links of a file's prose: `{ lineNo, target, path, fragment }` (other sites left out). */
export function relativeLinks(text) {
  const links = [];
  for (const [lineNo, line] of parse(text).prose) {
    // Inline code is not a link.
    const plain = line.replace(/`[^`]*`/g, "");
    for (const m of plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      const [path, fragment] = target.split("#", 2);
      links.push({ lineNo, target, path: path ? decodeURIComponent(path) : "", fragment });
    }
  }
  return links;
}

/** GitHub's anchor of a heading: lower case, no punctuation but - and _, spaces as -. */
export function slug(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor a Markdown file has (headings, numbered on repeats as GitHub does). */
export function anchors(file) {
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
  return set;
}

/** What is wrong with `link` (from `file`) whose path resolves to `dest`: null, or why it points nowhere. */
export function linkProblem(file, link, dest = file) {
  if (!existsSync(dest)) return "no such file";
  if (link.fragment === undefined) return null;
  if (statSync(dest).isDirectory() || !dest.endsWith(".md")) return "a #fragment on something that is not a Markdown file";
  return anchors(dest).has(link.fragment) ? null : `no heading #${link.fragment}`;
}
