import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * A newcomer follows what comments and docs cite: every file they name must be in the tree,
 * every `docs/<file>.md "<Section>"` citation must name a heading of that file, and every
 * relative link of a markdown file must lead somewhere. File names count in the comments of
 * code (its string literals hold data, such as test fixtures' made-up paths) and anywhere in
 * markdown; section citations count anywhere (an OpenAPI description or a test name cites
 * too). URLs are left out.
 */
const root = join(import.meta.dirname, '../../..');

/** The folders scanned, beside the top-level `*.md`. */
const folders = ['src', 'test', 'cli', 'bench', 'scripts', 'admin', 'packages', 'docs'];

/** Folders never scanned: installed packages and build output (both ignored by git). */
const skippedFolders = new Set(['node_modules', 'dist']);

/**
 * Generated files, not scanned: `npm run docs` (scripts/write-docs.ts) writes
 * docs/resources.md, `npm run client:types` the client library's types.
 */
const generated = [/^docs\/resources\.md$/, /^packages\/client\/src\/generated\//];

/** Cited paths that name run outputs, never committed (`.gitignore`): benchmark results. */
const uncommittedOutputs = [/^bench\/results\//];

/**
 * Citations of missing files in files other engineers were editing when this test was
 * written (they could not be changed then). Only these exact pairs are let through;
 * remove an entry once its file cites docs/ instead.
 */
const pending: Readonly<Record<string, readonly string[]>> = {};

/** `<NAME>.md`, with any folders before it; not a glob (`*.md`) or the tail of a longer path. */
const markdownName = /(?<![\w./@*~$-])(?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-][\w.-]*\.md(?![\w-])/g;
/** A path with an extension under a top-level folder of the repository. */
const repositoryPath = /(?<![\w./@*~$-])(?:src|test|docs|cli|bench|scripts|admin|packages)\/[\w./-]*[\w-]\.[A-Za-z]{1,5}(?![\w-])/g;
/** `docs/<file>.md "<Section>"`, also `docs/<file>.md, "<Section>"`, `docs/<file>.md ("<Section>"` and `… "<A>" and "<B>"`. */
const sectionCitation = /docs\/([\w-]+\.md),?\s*\(?"([^"]{1,80})"((?:\s+(?:and|or)\s+"[^"]{1,80}")*)/g;
/** A markdown link to something relative: `[text](target)`. */
const markdownLink = /\]\(([^()\s]+)\)/g;
const url = /\b[a-z][a-z\d+.-]*:\/\/[^\s)"'`<>\]]*/gi;

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return skippedFolders.has(entry.name) ? [] : filesUnder(path);
    return /\.(ts|tsx|cts|mts|mjs|md)$/.test(entry.name) ? [path] : [];
  });
}

const scanned: readonly string[] = [
  ...folders.flatMap(filesUnder),
  ...readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => entry.name),
].filter((file) => !generated.some((pattern) => pattern.test(file)));

/** The comments of a source file as TypeScript parses it, continuation markers (` * `, `//`) removed. */
function commentsOf(file: string, text: string): string[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Set<number>();
  const comments: string[] = [];
  const collect = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push(text.slice(range.pos, range.end).replace(/^\s*(?:\/\/+|\/?\*+\/?)/gm, ''));
    }
  };
  // Every comment lies before some token (punctuation included): among the leading
  // comments of its line, or the trailing ones of the token before it.
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return comments;
}

const withoutUrls = (text: string) => text.replace(url, (match) => ' '.repeat(match.length));

/** The file names `text` cites (URLs left out), but not run outputs. */
const citedNames = (text: string) =>
  [markdownName, repositoryPath].flatMap((pattern) => [...withoutUrls(text).matchAll(pattern)].map((match) => match[0])).filter((name) => !uncommittedOutputs.some((output) => output.test(name)));

/** Lines joined, comment continuation markers (` * `, `//`) dropped: a citation may wrap. */
const joinedLines = (text: string) => text.replace(/[ \t]*\r?\n[ \t]*(?:\*(?!\/)|\/\/+)?[ \t]*/g, ' ');

const read = (path: string) => readFileSync(join(root, path), 'utf8');

let texts: ReadonlyMap<string, string> | undefined;
const sources = () => (texts ??= new Map(scanned.map((file) => [file, read(file)])));

/** Whether `cited`, named in `file`, is in the tree: from the citing file's folder, then from the root; `.js` may name its `.ts`. */
function exists(file: string, cited: string): boolean {
  const bases = cited.startsWith('./') || cited.startsWith('../') ? [dirname(file)] : [dirname(file), '.'];
  const names = [cited, cited.replace(/\.js$/, '.ts'), cited.replace(/\.js$/, '.tsx'), cited.replace(/\.cjs$/, '.cts')];
  return bases.some((base) => names.some((name) => existsSync(join(root, base, name))));
}

/** A markdown file's headings outside fenced code blocks, without `#`s and backticks. */
function headingsOf(markdown: string): string[] {
  const headings: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) headings.push(heading.replaceAll('`', ''));
  }
  return headings;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsByFile = new Map<string, Set<string>>();

/** The anchors of a markdown file's headings, with GitHub's `-1`, `-2`, … for repeated ones. */
function anchorsOf(path: string): Set<string> {
  const known = anchorsByFile.get(path);
  if (known) return known;
  const anchors = new Set<string>();
  anchorsByFile.set(path, anchors);
  for (const heading of headingsOf(read(path))) {
    const base = slug(heading);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

describe('what comments and docs cite is in the tree', () => {
  it('scans the code and the docs', () => {
    expect(scanned.filter((file) => file.endsWith('.md')).length).toBeGreaterThan(15);
    expect(scanned.filter((file) => file.startsWith('src/')).length).toBeGreaterThan(200);
  });

  it('every cited file exists', () => {
    const missing: string[] = [];
    for (const [file, text] of sources()) {
      const absent = (names: readonly string[]) => names.filter((name) => !exists(file, name) && !pending[file]?.includes(name));
      let names = absent(citedNames(text));
      // In code only comments cite: a string may be a made-up path (a test's fixture).
      if (names.length > 0 && !file.endsWith('.md')) names = absent(commentsOf(file, text).flatMap(citedNames));
      missing.push(...new Set(names.map((name) => `${file}: ${name}`)));
    }
    expect(missing).toEqual([]);
  });

  it('every docs/<file>.md "<Section>" citation names a heading of that file', () => {
    const broken: string[] = [];
    const headings = new Map<string, string[]>();
    for (const [file, text] of sources()) {
      for (const match of joinedLines(text).matchAll(sectionCitation)) {
        const [, doc = '', first = '', more = ''] = match;
        const path = `docs/${doc}`;
        if (!existsSync(join(root, path))) {
          broken.push(`${file}: ${path} (no such file)`);
          continue;
        }
        if (!headings.has(path)) headings.set(path, headingsOf(read(path)));
        const known = headings.get(path) ?? [];
        for (const section of [first, ...[...more.matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '')]) {
          const name = section.replaceAll('`', '');
          // The heading starts with the name, and a word ends there: "Idempotency" names "Idempotency keys", "Rate" not "Rates".
          const found = known.some((heading) => heading.startsWith(name) && !/^[\p{L}\p{N}]/u.test(heading.slice(name.length)));
          if (!found) broken.push(`${file}: ${path} "${section}"`);
        }
      }
    }
    expect([...new Set(broken)]).toEqual([]);
  });

  it('every relative link of the markdown files reaches a file, and its #anchor a heading there', () => {
    const broken: string[] = [];
    for (const [file, text] of sources()) {
      if (!file.endsWith('.md')) continue;
      for (const match of withoutUrls(text).matchAll(markdownLink)) {
        const target = match[1] ?? '';
        if (/^[a-z][a-z\d+.-]*:/i.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const linked = path === '' ? file : posix.join(dirname(file), path);
        if (!existsSync(join(root, linked))) broken.push(`${file}: ${target}`);
        else if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect([...new Set(broken)]).toEqual([]);
  });
});
