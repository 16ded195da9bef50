// What the MCP server does, whatever the protocol revision: the tools' bodies, the resources, templates and
// completions, over the site's own services. mcp-server.ts's one factory registers these for both protocol eras; only
// the envelope differs.
import { z } from 'zod';
import { contentUsageOf } from '../../src/lib/ai-preferences.ts';
import { mcpInstructions, toolDescriptions } from '../../src/lib/agent-discovery.ts';
import { escapeMarkdownText, markdownDocument, markdownLink } from '../../src/lib/markdown.ts';
import {
  articleListEntry,
  MCP_RESOURCE_TEMPLATES,
  MCP_RESOURCES,
  MCP_SERVER,
  MCP_TOOLS,
  type McpToolName,
} from '../../src/lib/mcp-tools.ts';
import type { PublicConfig } from '../../src/lib/site-config.ts';
import { pathOf, DEFAULT_LANG, LANGS, ROUTES, routeMatcher, type Lang } from '../../src/lib/surface.ts';
import { absoluteUrl } from '../../src/lib/urls.ts';
import type { ErrorPages } from '../error-pages.ts';
import { checkedPath } from '../request-path.ts';
import { exactly, primaryLang, type LivePages } from '../services/live-pages.ts';
import type { SiteReader } from '../services/site-reader.ts';
import type { StaticSite } from '../services/static-site.ts';
import type { Asset } from '../asset.ts';
import { bytesLeft, textForAnswer, tooLarge } from './budget.ts';
import { clientMessageOf } from './jsonrpc.ts';
import { readPage } from './read-page.ts';

export interface McpDeps {
  config: PublicConfig;
  site: StaticSite;
  live: LivePages;
  reader: SiteReader;
  errors: ErrorPages;
}

type Article = z.infer<typeof articleListEntry>;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * `result` with the AI-use preference of what it holds (issue 63): the owner's, as its pages' Content-Usage header
 * says it (AIPREF: train-ai and search, y or n), in the result's `_meta`, which an agent reads with the text.
 */
const withUsage = (result: ToolResult, contentUsage: string | undefined): ToolResult =>
  contentUsage && !result.isError ? { ...result, _meta: { contentUsage } } : result;
const failure = (message: string): ToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/** A resource the server does not have (each revision answers it with its own error). */
export class UnknownResource extends Error {
  override name = 'UnknownResource';
}

/** A resource too large for what the answer may still hold (budget.ts): refused before it is read. */
export class AnswerTooLarge extends Error {
  override name = 'AnswerTooLarge';
}

/** The text of `asset` as a tool's result, or a refusal when it cannot fit in the answer: judged before it is read. */
function textOf(asset: Asset, what: string): ToolResult {
  return asset.size > bytesLeft() ? failure(tooLarge(what, asset.size)) : text(textForAnswer(asset));
}

function articleList(site: StaticSite): Article[] {
  const file = site.files.get(pathOf('getBlogArticleList'));
  return file ? (JSON.parse(file.body.toString('utf8')) as Article[]) : [];
}

/**
 * Every tool handler goes through this, the MCP side's one error mapping: an unavailable database becomes a tool
 * error the model can read (it may retry), not a protocol error; anything else is a defect the SDK reports.
 */
function guarded<A>(handler: (args: A) => ToolResult | Promise<ToolResult>): (args: A) => Promise<ToolResult> {
  return async (args) => {
    try {
      return await handler(args);
    } catch (err) {
      const message = clientMessageOf(err);
      if (message) return failure(message);
      throw err;
    }
  };
}

/** A resource's text; AnswerTooLarge when it cannot fit in the answer (judged before it is read). */
function resourceText(asset: Asset, uri: string): string {
  if (asset.size > bytesLeft()) throw new AnswerTooLarge(tooLarge(uri, asset.size));
  return textForAnswer(asset);
}

export type McpHandlers = ReturnType<typeof mcpHandlers>;

/**
 * The tools' definitions with their zod schemas built once for the process: registering a raw shape made the SDKs
 * wrap it in a new z.object per request, which zod then compiled again (a profile of tools/call showed zod at a fifth
 * of the CPU). Strict, as the listed JSON Schemas say (`additionalProperties: false`).
 */
export const TOOL_DEFINITIONS = Object.fromEntries(
  Object.entries(MCP_TOOLS).map(([name, tool]) => [
    name,
    {
      ...tool,
      inputSchema: keepingJsonSchema(z.object(tool.inputSchema).strict()),
      ...('outputSchema' in tool ? { outputSchema: keepingJsonSchema(z.object(tool.outputSchema)) } : {}),
    },
  ]),
) as unknown as Record<
  McpToolName,
  { title: string; description: string; inputSchema: z.ZodObject; outputSchema?: z.ZodObject; annotations: object }
>;

/**
 * A zod schema whose JSON Schema (Standard Schema's `~standard.jsonSchema`) is converted once and then kept. The v2
 * SDK asks for it on every new server, that is every request here (the 2026-07-28 leg checks `Mcp-Param-*` headers
 * against it before each tools/call), and zod converts afresh each time: a seventh of that leg's CPU in a profile.
 */
function keepingJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'];
  const kept = new Map<string, Record<string, unknown>>();
  const keep = (io: 'input' | 'output') => (options: Parameters<typeof standard.jsonSchema.input>[0]) => {
    const key = `${io} ${options.target}`;
    let json = options.libraryOptions ? undefined : kept.get(key);
    if (!json) {
      json = standard.jsonSchema[io](options);
      if (!options.libraryOptions) kept.set(key, json);
    }
    return json;
  };
  schema['~standard'] = { ...standard, jsonSchema: { input: keep('input'), output: keep('output') } };
  return schema;
}

/** Built once per process: what does not change between requests is made here. */
export function mcpHandlers(deps: McpDeps) {
  const { config, site, live, reader, errors } = deps;
  const articles = articleList(site);
  const resources = MCP_RESOURCES.map((r) => ({ ...r, uri: absoluteUrl(config.baseUrl, r.path) }));
  const templates = MCP_RESOURCE_TEMPLATES.map((t) => ({
    ...t,
    uriTemplate: `${config.baseUrl}${ROUTES[t.route].path}`,
  }));
  const matchTemplate = routeMatcher(MCP_RESOURCE_TEMPLATES.map((t) => t.route));

  const tools: { [K in McpToolName]: (args: Record<string, unknown>) => Promise<ToolResult> } = {
    get_profile: guarded(async (args) => {
      const page = String(args.page);
      const lang = args.lang as Lang | undefined;
      // A profile's own address, or an alias of it, as GET /{alias} and read_page resolve one (issue 62).
      const slug = (await live.profile(page)) ? page : ((await live.alias(page))?.slug ?? page);
      const found = await live.profilePage(slug, lang ? exactly(lang) : primaryLang);
      if (found)
        return withUsage(textOf(await found.page.markdown(), `The profile "${page}"`), contentUsageOf(found.aiUse));
      const other = lang && (await live.profile(slug));
      return failure(
        other
          ? `The profile "${page}" is not in ${lang}: it is in ${other.langs.join(' and ')}.`
          : `No published profile "${page}".`,
      );
    }),
    get_digital_card: guarded(async (args) => {
      const cardId = String(args.cardId);
      const lang = args.lang as Lang | undefined;
      const found = await live.card(cardId);
      if (!found) return failure(`No active digital card "${cardId}".`);
      if (found.redirect) {
        // Built with the shared converter's escaping: the target is the owner's string, even once normalised.
        const url = absoluteUrl(config.baseUrl, pathOf('getDigitalCard', { cardId: found.card.cardId }));
        const redirect = text(
          markdownDocument(
            {
              title: `Digital card ${found.card.cardId}`,
              description: "This card redirects to the owner's website.",
              url,
              lang: found.card.lang,
            },
            `# Digital card ${escapeMarkdownText(found.card.cardId)}\n\nThis card is a plain redirect: opening ${markdownLink(url, url)} leads to ${markdownLink(found.redirect, found.redirect)}.`,
          ),
        );
        return withUsage(redirect, contentUsageOf(found.card.aiUse));
      }
      const version = await live.cardPage(cardId, lang ? exactly(lang) : primaryLang);
      if (version)
        return withUsage(textOf(await version.page.markdown(), `The card "${cardId}"`), contentUsageOf(version.aiUse));
      return failure(
        lang && found.vcard
          ? `The card "${cardId}" is not in ${lang}: it is in ${found.langs.join(' and ')}.`
          : `No active digital card "${cardId}".`,
      );
    }),
    list_blog_articles: guarded((args) => {
      const lang = args.lang as Lang | undefined;
      const topic = args.topic as string | undefined;
      const list = articles.filter((a) => (!lang || a.lang === lang) && (!topic || a.topics.includes(topic)));
      const listed = JSON.stringify(list, null, 2);
      // The list is sent twice: as text, and as structured content.
      const bytes = 2 * Buffer.byteLength(listed);
      if (bytes > bytesLeft())
        return failure(tooLarge(`The list of ${list.length} articles`, bytes) + ' Filter it by lang or topic.');
      return { content: [{ type: 'text', text: listed }], structuredContent: { articles: list } };
    }),
    get_blog_article: guarded((args) => {
      const slug = String(args.slug);
      const lang = args.lang as Lang | undefined;
      // Without a language, the default language first.
      const order: Lang[] = lang ? [lang] : [DEFAULT_LANG, ...LANGS.filter((l) => l !== DEFAULT_LANG)];
      for (const l of order) {
        const article = articles.find((a) => a.slug === slug && a.lang === l);
        const page = article && site.pages.get(new URL(article.url).pathname);
        if (page) return textOf(page.markdown, `The article "${slug}"`);
      }
      return failure(`No article "${slug}"${lang ? ` in ${lang}` : ''}. Use list_blog_articles to find slugs.`);
    }),
    read_page: guarded(async (args) => {
      const result = await readPage(reader, errors, config, String(args.path));
      return result.ok ? withUsage(text(result.text), result.contentUsage) : failure(result.problem);
    }),
  };

  return {
    info: {
      name: MCP_SERVER.name,
      title: `${config.serviceName} (read-only)`,
      version: MCP_SERVER.version,
      websiteUrl: config.baseUrl,
    },
    instructions: mcpInstructions(config),
    tools,
    /** tools/list from the registry as the server card describes it (JSON Schema 2020-12, no extra properties, its order). */
    toolList: toolDescriptions(),
    listResources: () =>
      resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    listTemplates: () =>
      templates.map(({ uriTemplate, name, title, description, mimeType }) => ({
        uriTemplate,
        name,
        title,
        description,
        mimeType,
      })),
    /**
     * A resource's contents; UnknownResource when there is none, AnswerTooLarge when it does not fit in the answer,
     * StoreUnavailableError when it cannot be read now.
     */
    readResource: async (
      uri: string,
    ): Promise<{ uri: string; mimeType: string; text: string; _meta?: { contentUsage: string } }> => {
      const resource = resources.find((r) => r.uri === uri);
      const file = resource && site.files.get(resource.path);
      if (resource && file) return { uri: resource.uri, mimeType: resource.mimeType, text: resourceText(file, uri) };
      // A page of a template: the site reader's Markdown, exactly what GET with Accept: text/markdown returns.
      const path = uri.startsWith(`${config.baseUrl}/`) ? uri.slice(config.baseUrl.length) : undefined;
      const checked = path !== undefined && matchTemplate(path) ? checkedPath(path) : undefined;
      if (checked !== undefined) {
        const resolution = await reader.resolve(checked, { markdown: true, lang: DEFAULT_LANG }, { staticFiles: true });
        if (resolution.kind === 'asset' && resolution.asset.type.startsWith('text/markdown')) {
          const contentUsage = resolution.headers['content-usage'];
          return {
            uri,
            mimeType: 'text/markdown',
            text: resourceText(resolution.asset, uri),
            ...(contentUsage ? { _meta: { contentUsage } } : {}),
          };
        }
      }
      throw new UnknownResource(`Resource not found: ${uri}`);
    },
    /** Completion for the template arguments that are public lists: the languages and the article slugs (never profiles). */
    complete: (
      ref: { type: string; uri?: string },
      argument: { name: string; value: string },
      context?: Record<string, string>,
    ) => {
      const prefix = argument.value.toLowerCase();
      const template = ref.type === 'ref/resource' ? templates.find((t) => t.uriTemplate === ref.uri) : undefined;
      let values: string[] = [];
      if (template && argument.name === 'lang') values = [...LANGS];
      if (template?.name === 'blog-article' && argument.name === 'slug') {
        const lang = context?.lang;
        values = [...new Set(articles.filter((a) => !lang || a.lang === lang).map((a) => a.slug))];
      }
      const matching = values.filter((v) => v.startsWith(prefix));
      return { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 };
    },
  };
}
