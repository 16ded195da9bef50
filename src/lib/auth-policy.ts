// /auth.md: the agent registration and credential policy (SPEC.md, Authentication), with the operators' contact.
import { CONTENT_USAGE } from './ai-preferences.ts';
import type { PublicConfig } from './site-config.ts';
import { describeLangNames } from './locales.ts';
import { pathOf, OWNER_APP_SEGMENTS } from './surface.ts';
import { absoluteUrl } from './urls.ts';

export function authPolicy(config: PublicConfig): string {
  const url = (path: string) => absoluteUrl(config.baseUrl, path);
  return `# Agent access and credential policy

${config.serviceName} (${config.baseUrl}) publishes link-in-bio profiles, digital business cards and a blog in ${describeLangNames()}. This document tells automated clients and AI agents what they may use, with which credentials, and how to ask for more.

## What needs no credentials

Everything public is readable without authentication, registration or an API key:

- profiles at \`/p/{page}\`, digital business cards at \`/c/{cardId}\`, the blog at \`/ar/blog\` and \`/en/blog\`;
- the Markdown version of any HTML page: send \`Accept: text/markdown\` to the same URL;
- the discovery documents: [API catalog](${url(pathOf('getApiCatalog'))}), [OpenAPI](${url(pathOf('getOpenApi'))}), [API documentation](${url(pathOf('getApiDocs'))}), this policy, [llms.txt](${url(pathOf('getLlmsTxt'))}), [robots.txt](${url(pathOf('getRobots'))}), [sitemap](${url(pathOf('getSitemap'))}) and the [MCP server card](${url(pathOf('getMcpServerCard'))});
- the [health endpoint](${url(pathOf('getHealth'))});
- the read-only MCP server at \`${url(pathOf('mcp'))}\` (Streamable HTTP, stateless).

## What is not open to automated clients

- There is **no public write API** and **no self-service agent registration**.
- Creating or editing profiles and cards, orders, analytics and account settings is possible only for a signed-in human account owner, through the web app at \`/login\`.
- Owners sign in with an e-mail one-time code, or with an external Google or Facebook identity.
- Automated clients **must not** use the login, one-time-code, OAuth callback or payment flows (${OWNER_APP_SEGMENTS.map((s) => `\`/${s}\``).join(', ')}): they create accounts, send e-mail and issue credentials.

## Credentials

- After sign-in the owner's browser holds a session cookie named \`token\` (in OpenAPI terms, an API key in a cookie). It is **not issued to automated clients**, and no endpoint in the OpenAPI document requires it.
- The service operates **no OAuth authorization server** and publishes **no OAuth protected-resource metadata**. Do not look for \`/.well-known/oauth-authorization-server\` or \`/.well-known/oauth-protected-resource\`: they do not exist.

## Operator-provisioned access

If you need something the public surface does not give (higher request rates, bulk export, a partnership), write to **${config.contactEmail}** with:

1. who you are and the organisation behind the agent;
2. the User-Agent string your client sends;
3. what you need to read, how often, and why;
4. a contact address for operational problems.

An operator answers by e-mail. Access is provisioned by hand and is never granted through the web app's sign-in flows.

## What each owner allows AI to do with their page

The site's preference for AI use, in the IETF AIPREF vocabulary (\`train-ai\`, \`search\`), is \`${CONTENT_USAGE}\`. Each owner may choose otherwise for their own profile or card, and their choice is the one that holds for everything of theirs: every representation of their page (its HTML, its Markdown twin, its share picture, its vCard, its QR codes) carries it in a \`Content-Usage\` header, the MCP tools' results and resources that hold it carry it in their \`_meta.contentUsage\`, and the page says it to people at its foot. A label the owner left out is the site's. Read the header of what you fetched, not this default: \`train-ai=n\` means do not train AI models on it; \`search=n\` means do not use it to build a search index or answer searches with it.

## Good behaviour

- Send a descriptive \`User-Agent\` with a way to contact you.
- Respect [robots.txt](${url(pathOf('getRobots'))}) and keep request rates reasonable; prefer the sitemap and the Markdown twins to crawling HTML.
- Cache what you fetch: discovery documents are served with \`Cache-Control: public, max-age=3600\`.
`;
}
