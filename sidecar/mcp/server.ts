// A stateless MCP server over the site's own services: a new McpServer per request (the SDK's stateless pattern),
// tools and metadata from the one registry in src/lib/mcp-tools.ts.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CompleteRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { toolDescriptions } from '../../src/lib/agent-discovery.ts';
import { z } from 'zod';
import { articleListEntry, MCP_RESOURCE_TEMPLATES, MCP_RESOURCES, MCP_SERVER, MCP_TOOLS } from '../../src/lib/mcp-tools.ts';
import type { PublicConfig } from '../../src/lib/site-config.ts';
import { DEFAULT_LANG, LANGS, ROUTES, templatePattern, type Lang } from '../../src/lib/surface.ts';
import { escapeMarkdownText, markdownDocument, markdownLink } from '../../src/lib/markdown.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import type { ErrorPages } from '../error-pages.ts';
import type { LivePages } from '../services/live-pages.ts';
import type { SiteReader } from '../services/site-reader.ts';
import type { StaticSite } from '../services/static-site.ts';
import { StoreUnavailableError } from '../store/store.ts';
import { requestPathOf } from '../send.ts';
import { readPage } from './read-page.ts';

export interface McpDeps {
  config: PublicConfig;
  site: StaticSite;
  live: LivePages;
  reader: SiteReader;
  errors: ErrorPages;
}

/** JSON-RPC code for an unknown resource (MCP specification, resources). */
export const RESOURCE_NOT_FOUND = -32002;

type Article = z.infer<typeof articleListEntry>;

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const failure = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

export function articleList(site: StaticSite): Article[] {
  const file = site.files.get(paths.articles);
  return file ? (JSON.parse(file.body.toString('utf8')) as Article[]) : [];
}

/**
 * Every tool handler goes through this, the MCP side's one error mapping: an unavailable database becomes a tool
 * error the model can read (it may retry), not a protocol error; anything else is a defect the SDK reports.
 */
function guarded<A>(handler: (args: A) => CallToolResult | Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await handler(args);
    } catch (err) {
      if (err instanceof StoreUnavailableError) return failure('The database is temporarily unavailable; try again in a minute.');
      throw err;
    }
  };
}

/**
 * Returns a function making a new McpServer per request (the SDK's stateless pattern). What does not change
 * between requests is made once here: the article list, the resources, and the JSON Schema validator (the SDK
 * otherwise builds an Ajv instance per server, which was 15% of the CPU of a tools/call; see BENCHMARKS.md).
 */
export function mcpServerFactory(deps: McpDeps): () => McpServer {
  const { config, site } = deps;
  const articles = articleList(site);
  const resources = MCP_RESOURCES.map((r) => ({ ...r, uri: absoluteUrl(config.baseUrl, r.path) }));
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const toolList = toolDescriptions();
  const templates = MCP_RESOURCE_TEMPLATES.map((t) => ({ ...t, uriTemplate: `${config.baseUrl}${ROUTES[t.route].path}`, pattern: templatePattern(ROUTES[t.route].path) }));
  return () => createMcpServer(deps, { articles, resources, jsonSchemaValidator, toolList, templates });
}

function createMcpServer(
  { config, site, live, reader, errors }: McpDeps,
  {
    articles,
    resources,
    jsonSchemaValidator,
    toolList,
    templates,
  }: {
    articles: Article[];
    resources: ((typeof MCP_RESOURCES)[number] & { uri: string })[];
    jsonSchemaValidator: AjvJsonSchemaValidator;
    toolList: ReturnType<typeof toolDescriptions>;
    templates: ((typeof MCP_RESOURCE_TEMPLATES)[number] & { uriTemplate: string; pattern: RegExp })[];
  },
): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER.name, title: `${config.serviceName} (read-only)`, version: MCP_SERVER.version, websiteUrl: config.baseUrl },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, completions: {} },
      jsonSchemaValidator,
      instructions:
        `Read-only access to ${config.serviceName}: public profiles (/p/{page}), digital business cards (/c/{cardId}) and a blog in Arabic and English. ` +
        'Everything is returned as Markdown. Nothing can be created or changed here.',
    },
  );
  server.registerTool(
    'get_profile',
    MCP_TOOLS.get_profile,
    guarded(async ({ page }) => {
      const found = await live.profile(page);
      return found ? text(found.markdown.body.toString('utf8')) : failure(`No published profile "${page}".`);
    }),
  );

  server.registerTool(
    'get_digital_card',
    MCP_TOOLS.get_digital_card,
    guarded(async ({ cardId }) => {
      const found = await live.card(cardId);
      if (!found) return failure(`No active digital card "${cardId}".`);
      if (found.redirect) {
        // Built with the shared converter's escaping: the target is the owner's string, even once normalised.
        const url = absoluteUrl(config.baseUrl, paths.card(found.card.cardId));
        return text(
          markdownDocument(
            { title: `Digital card ${found.card.cardId}`, description: "This card redirects to the owner's website.", url, lang: found.card.lang },
            `# Digital card ${escapeMarkdownText(found.card.cardId)}\n\nThis card is a plain redirect: opening ${markdownLink(url, url)} leads to ${markdownLink(found.redirect, found.redirect)}.`,
          ),
        );
      }
      return found.page ? text(found.page.markdown.body.toString('utf8')) : failure(`No active digital card "${cardId}".`);
    }),
  );

  server.registerTool(
    'list_blog_articles',
    MCP_TOOLS.list_blog_articles,
    guarded(({ lang }) => {
      const list = lang ? articles.filter((a) => a.lang === lang) : articles;
      return { content: [{ type: 'text', text: JSON.stringify(list, null, 2) }], structuredContent: { articles: list } };
    }),
  );

  server.registerTool(
    'get_blog_article',
    MCP_TOOLS.get_blog_article,
    guarded(({ slug, lang }) => {
    // Without a language, the default language first.
    const order: Lang[] = lang ? [lang] : [DEFAULT_LANG, ...LANGS.filter((l) => l !== DEFAULT_LANG)];
    for (const l of order) {
      const article = articles.find((a) => a.slug === slug && a.lang === l);
      const page = article && site.pages.get(new URL(article.url).pathname);
      if (page) return text(page.markdown.body.toString('utf8'));
    }
    return failure(`No article "${slug}"${lang ? ` in ${lang}` : ''}. Use list_blog_articles to find slugs.`);
    }),
  );

  server.registerTool(
    'read_page',
    MCP_TOOLS.read_page,
    guarded(async ({ path }) => {
      const result = await readPage(reader, errors, config, path);
      return result.ok ? text(result.text) : failure(result.message);
    }),
  );

  // tools/list from the registry as the server card describes it (JSON Schema 2020-12, no extra properties, the
  // registry's order), not the SDK's own conversion (draft-07, open objects): one description of one registry.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList }));

  // Resources through the low-level handlers: the SDK's registerResource answers an unknown URI with -32602,
  // where the MCP specification says -32002.
  server.server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
  }));
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const resource = resources.find((r) => r.uri === uri);
    const file = resource && site.files.get(resource.path);
    if (resource && file) return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: file.body.toString('utf8') }] };
    // A page of a template: the site reader's Markdown, exactly what GET with Accept: text/markdown returns.
    const path = uri.startsWith(`${config.baseUrl}/`) ? uri.slice(config.baseUrl.length) : undefined;
    if (path !== undefined && templates.some((t) => t.pattern.test(path))) {
      const resolution = await readResource(reader, path);
      if (resolution) return { contents: [{ uri, mimeType: 'text/markdown', text: resolution }] };
    }
    throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  });
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: templates.map(({ uriTemplate, name, title, description, mimeType }) => ({ uriTemplate, name, title, description, mimeType })),
  }));
  // Completion for the template arguments that are public lists: the languages and the article slugs. Profiles and
  // cards are not enumerated (an agent that knows one can read it).
  server.server.setRequestHandler(CompleteRequestSchema, (request) => {
    const { argument, ref } = request.params;
    const prefix = argument.value.toLowerCase();
    const template = ref.type === 'ref/resource' ? templates.find((t) => t.uriTemplate === ref.uri) : undefined;
    let values: string[] = [];
    if (template && argument.name === 'lang') values = [...LANGS];
    if (template?.name === 'blog-article' && argument.name === 'slug') {
      const lang = request.params.context?.arguments?.lang;
      values = [...new Set(articles.filter((a) => !lang || a.lang === lang).map((a) => a.slug))];
    }
    const matching = values.filter((v) => v.startsWith(prefix));
    return { completion: { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 } };
  });

  return server;
}

/** The Markdown of a public page for resources/read, or undefined when there is none (a database failure is said). */
async function readResource(reader: SiteReader, path: string): Promise<string | undefined> {
  const checked = requestPathOf(path);
  if (checked === undefined) return undefined;
  try {
    const resolution = await reader.resolve(checked, { markdown: true, lang: DEFAULT_LANG }, { staticFiles: true });
    return resolution.kind === 'asset' && resolution.asset.type.startsWith('text/markdown') ? resolution.asset.body.toString('utf8') : undefined;
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw new McpError(-32603, 'The database is temporarily unavailable; try again in a minute.');
    throw err;
  }
}
