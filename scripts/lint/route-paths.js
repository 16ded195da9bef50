// An ESLint rule: a path of the surface is built by `pathOf` (src/lib/surface.ts), never written again by hand. It
// reports a template literal shaped like a declared route's path (`/c/${id}.vcf` beside `/c/{cardId}.vcf`) anywhere,
// and, outside the tests (whose literal URLs are what a visitor types), a string that is a declared route's fixed path
// (`'/mcp'`). The shapes come from the declaration itself, so a new route is covered the moment it is declared.
import { ROUTES } from '../../src/lib/surface.ts';

/** `/{lang}/blog/{slug}` → `/{}/blog/{}`; the homepage and the alias (`/`, `/{}`) match too much to be a shape. */
const shapeOf = (path) => path.replace(/\{\w+\}/g, '{}');
const SHAPES = new Set(
  Object.values(ROUTES)
    .map((route) => shapeOf(route.path))
    .filter((shape) => shape !== '/' && shape !== '/{}'),
);
const FIXED = new Set([...SHAPES].filter((shape) => !shape.includes('{}')));

/** The path part of a URL-ish text: before its query or fragment. */
const pathPart = (text) => text.split(/[?#]/, 1)[0];

/** @type {import('eslint').Rule.RuleModule} */
export const routePaths = {
  meta: {
    type: 'problem',
    docs: {
      description: "paths of declared routes are built with pathOf(route, params), from the route's declaration",
    },
    schema: [{ type: 'object', properties: { literals: { type: 'boolean' } }, additionalProperties: false }],
    messages: {
      template: 'This builds the path of a declared route ({{shape}}) by hand: use pathOf() from src/lib/surface.ts.',
      literal: 'This is the path of a declared route ({{shape}}): use pathOf() from src/lib/surface.ts.',
    },
  },
  create(context) {
    const literals = context.options[0]?.literals ?? true;
    return {
      TemplateLiteral(node) {
        if (node.expressions.length === 0) return;
        const shape = pathPart(node.quasis.map((q) => q.value.cooked ?? q.value.raw).join('{}'));
        if (SHAPES.has(shape)) context.report({ node, messageId: 'template', data: { shape } });
      },
      Literal(node) {
        if (!literals || typeof node.value !== 'string') return;
        const shape = pathPart(node.value);
        if (FIXED.has(shape) && shape === node.value) context.report({ node, messageId: 'literal', data: { shape } });
      },
    };
  },
};
