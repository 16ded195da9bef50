// A validator over each answer, from the served OpenAPI document alone (not from the surface declaration it was made
// from): the operation a request names, whether the answer's status, media type, headers and JSON body are what the
// document says of that operation. What a validating proxy between a client and the sidecar would flag.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// A document read as it comes (any OpenAPI document): its shape is checked by the code that walks it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Operation {
  path: string;
  pattern: RegExp;
  /** The path parameters in order, each with its schema's validator. */
  params: { name: string; valid: (value: string) => boolean }[];
  method: string;
  segments: string[];
  operation: Json;
  fixed: number;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

export class OpenApiAnswers {
  private readonly doc: Json;
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[];

  constructor(doc: Json) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: false });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(doc, 'openapi');
    this.operations = Object.entries(doc.paths as Record<string, Json>)
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          path,
          method: method.toUpperCase(),
          segments: ['paths', path, method],
          operation: operation as Json,
          pattern: new RegExp(
            `^${path
              .split(/(\{[^{}]+\})/)
              .map((part) => (/^\{[^{}]+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
              .join('')}$`,
          ),
          fixed: path.replace(/\{[^{}]+\}/g, '').length,
          params: [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => {
            const declared = ((operation as Json).parameters as Json[] | undefined)?.find(
              (p) => p.in === 'path' && p.name === m[1],
            );
            const validate = declared?.schema ? this.ajv.compile(declared.schema as Json) : undefined;
            return { name: m[1]!, valid: (value: string) => validate?.(value) ?? true };
          }),
        })),
      )
      // The most specific template first: /blog before /{alias}, /c/{cardId}.vcf before /c/{cardId}.
      .sort((a, b) => a.params.length - b.params.length || b.fixed - a.fixed);
  }

  /**
   * The operation a request names (HEAD is GET's): the most specific template whose parameters are valid by their
   * schemas (`/mcp` is no alias, being reserved), or undefined when the document declares none for it. `path` is
   * decoded.
   */
  operationOf(method: string, path: string): Operation | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    return this.operations.find((o) => {
      if (o.method !== m) return false;
      const match = o.pattern.exec(path);
      return match !== null && o.params.every((p, i) => p.valid(match[i + 1]!));
    });
  }

  /** What is wrong with `answer` to `method path` by the document; empty when nothing, or when no operation is declared. */
  problems(method: string, path: string, answer: Answer): string[] {
    const op = this.operationOf(method, path);
    if (!op) return [];
    const where = `${method} ${path} (${op.operation.operationId}) → ${answer.status}`;
    const responses = op.operation.responses as Json;
    const key =
      String(answer.status) in responses ? String(answer.status) : 'default' in responses ? 'default' : undefined;
    if (!key)
      return [`${where}: status ${answer.status} is not declared (declared: ${Object.keys(responses).join(', ')})`];
    const response = this.resolve(responses[key]);
    const problems: string[] = [];
    const type = String(answer.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const hasBody = method !== 'HEAD' && answer.status !== 304 && answer.status !== 204 && answer.body.length > 0;
    const content = response.content as Json | undefined;
    if (hasBody && content) {
      if (!(type in content))
        problems.push(`${where}: media type "${type}" is not declared (declared: ${Object.keys(content).join(', ')})`);
      else if (/[/+]json$/.test(type)) {
        const at =
          typeof (responses[key] as Json).$ref === 'string'
            ? ((responses[key] as Json).$ref as string).slice(2).split('/').map(unescapePointer)
            : [...op.segments, 'responses', key];
        const validate = this.schema([...at, 'content', type, 'schema']);
        let body: unknown;
        try {
          body = JSON.parse(answer.body);
        } catch {
          problems.push(`${where}: the ${type} body is not JSON`);
        }
        if (validate && body !== undefined && !validate(body))
          problems.push(`${where}: body does not fit its schema: ${this.ajv.errorsText(validate.errors)}`);
      }
    }
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Json)) {
      const value = answer.headers[name.toLowerCase()];
      const schema = this.resolve(declared as Json).schema as Json | undefined;
      if (value === undefined || !schema) continue;
      const validate = this.ajv.compile(schema.type === 'integer' ? { type: 'string', pattern: '^\\d+$' } : schema);
      if (!validate(String(value)))
        problems.push(`${where}: header ${name} "${value}" does not fit ${JSON.stringify(schema)}`);
    }
    return problems;
  }

  private readonly compiled = new Map<string, ReturnType<Ajv2020['compile']>>();

  /** A validator for the schema at `segments` of the document, its own $refs resolved within the document. */
  private schema(segments: string[]) {
    const ref = `openapi#/${segments.map((s) => encodeURIComponent(escapePointer(s))).join('/')}`;
    let validate = this.compiled.get(ref);
    if (!validate) this.compiled.set(ref, (validate = this.ajv.compile({ $ref: ref })));
    return validate;
  }

  private resolve(node: Json): Json {
    let current = node;
    for (let i = 0; i < 5 && typeof current.$ref === 'string'; i++) {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce<Json>((at, part) => at[unescapePointer(part)], this.doc);
    }
    return current;
  }
}
