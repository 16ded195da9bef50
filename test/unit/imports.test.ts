// The module graph (dpdm, reading the TypeScript as the compiler does): no import circle anywhere, and the server
// never loads the database's write path. Type-only imports are left out: they vanish at run time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCircular, parseDependencyTree, shortenTree, type DependencyTree } from 'dpdm';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';

let tree: DependencyTree;
beforeAll(async () => {
  const full = await parseDependencyTree(['sidecar/**/*.ts', 'src/**/*.ts', 'scripts/**/*.ts'], {
    context: projectRoot,
    cwd: projectRoot,
    transform: true,
    skipDynamicImports: false,
  });
  tree = shortenTree(projectRoot, full);
}, 60_000);

/** Every module of ours that `entry` loads, directly or not. */
function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  for (const file of seen)
    for (const dep of tree[file] ?? [])
      if (dep.id && !dep.id.startsWith('node_modules') && !seen.has(dep.id)) seen.add(dep.id);
  return seen;
}

describe('the module graph', () => {
  it('reads every source module', () => {
    const ours = Object.keys(tree).filter((file) => /^(sidecar|src|scripts)\//.test(file));
    expect(ours.length).toBeGreaterThan(80);
    expect(ours).toContain('sidecar/store/store.ts');
  });

  it('has no import circle', () => {
    expect(parseCircular(tree).map((circle) => circle.join(' -> '))).toEqual([]);
  });

  it('the server never loads the write path (the writers, the import format and plan)', () => {
    const server = reachableFrom('sidecar/server.ts');
    expect(server).toContain('sidecar/store/open-store.ts');
    expect(server).toContain('sidecar/store/sqlite/sqlite-store.ts');
    for (const file of server)
      expect(file, file).not.toMatch(/store\/(writer|import-format|import-plan|image-intake)\.ts$|-writer\.ts$/);
  });

  // Issue 30: src/middleware.ts loaded scripts/preview-locals.ts by a URL string, which reached sidecar/store; a
  // script loaded sidecar/routes/mcp.ts for one constant. Layers are read downward: src/lib is shared by everyone.
  it('nothing reaches upward: src/ imports neither sidecar/ nor scripts/, and no script imports sidecar/routes/', () => {
    const upward = Object.entries(tree).flatMap(([file, deps]) =>
      (deps ?? [])
        .filter(
          (d) =>
            d.id &&
            ((file.startsWith('src/') && /^(sidecar|scripts)\//.test(d.id)) ||
              (file.startsWith('scripts/') && d.id.startsWith('sidecar/routes/'))),
        )
        .map((d) => `${file} -> ${d.id}`),
    );
    expect(upward).toEqual([]);
  });

  // Issue 30: src/lib mixed what the sidecar shares with what only the blog or publishing uses (the sidecar loaded the
  // blog's calendar through i18n.ts). src/lib/*.ts is shared; src/lib/blog/ and src/lib/publishing/ are each one
  // side's own.
  it('src/lib stands apart: the sidecar and the shared src/lib/*.ts reach neither src/lib/blog/ nor src/lib/publishing/, which do not import each other', () => {
    const sides = /^src\/lib\/(blog|publishing)\//;
    const shared = Object.keys(tree).filter((file) => /^src\/lib\/[^/]+\.ts$/.test(file));
    expect(shared).toContain('src/lib/surface.ts');
    const reached = [
      ...new Set(
        ['sidecar/server.ts', ...Object.keys(tree).filter((file) => file.startsWith('sidecar/')), ...shared].flatMap(
          (entry) => [...reachableFrom(entry)],
        ),
      ),
    ].filter((file) => sides.test(file));
    expect(reached).toEqual([]);
    const across = Object.entries(tree).flatMap(([file, deps]) => {
      const side = sides.exec(file)?.[1];
      return (deps ?? [])
        .filter((d) => side && d.id && sides.test(d.id) && sides.exec(d.id)?.[1] !== side)
        .map((d) => `${file} -> ${d.id}`);
    });
    expect(across).toEqual([]);
    expect(Object.keys(tree)).toEqual(
      expect.arrayContaining(['src/lib/blog/articles.ts', 'src/lib/publishing/plan.ts']),
    );
  });

  it('no module of src/ names another module by a URL string the bundler and this graph cannot see', () => {
    const hidden = Object.keys(tree)
      .filter((file) => file.startsWith('src/'))
      .filter((file) =>
        /new URL\(\s*['"]\.\.?\/[^'"]+\.(?:ts|js|mjs)['"]\s*,\s*import\.meta\.url\)/.test(
          readFileSync(join(projectRoot, file), 'utf8'),
        ),
      );
    expect(hidden).toEqual([]);
  });

  it('only open-store.ts opens the backends’ readers', () => {
    const importers = (target: string) =>
      Object.entries(tree)
        .filter(([, deps]) => deps?.some((d) => d.id === target))
        .map(([file]) => file)
        .filter((f) => !f.startsWith('sidecar/store/sqlite/') && !f.startsWith('sidecar/store/postgres/'));
    expect(importers('sidecar/store/sqlite/sqlite-store.ts')).toEqual(['sidecar/store/open-store.ts']);
    expect(importers('sidecar/store/postgres/pg-store.ts')).toEqual(['sidecar/store/open-store.ts']);
  });
});
