// Types for the test tools that ship none.
declare module '@adobe/structured-data-validator' {
  export default class Validator {
    constructor(schemaOrgJson?: unknown);
    validate(extracted: unknown): Promise<unknown[]>;
  }
}

declare module '@marbec/web-auto-extractor' {
  export default class WebAutoExtractor {
    constructor(options?: { addLocation?: boolean; embedSource?: string[] });
    parse(html: string): {
      jsonld: Record<string, Record<string, unknown>[]>;
      microdata: unknown;
      rdfa: unknown;
      metatags: unknown;
    };
  }
}

declare module 'lighthouse/third-party/ard/ard.js' {
  export class ConformanceTester {
    errors: { element: string; message: string }[];
    warnings: { element: string; message: string }[];
    validate_manifest(raw: string, label: string): boolean;
  }
}

declare module 'http-link-header' {
  interface Reference {
    uri: string;
    rel: string;
    type?: string;
    [attribute: string]: string | undefined;
  }
  export default class LinkHeader {
    static parse(value: string): LinkHeader;
    refs: Reference[];
    rel(rel: string): Reference[];
  }
}

declare module 's3rver' {
  export default class S3rver {
    constructor(options: {
      address?: string;
      port?: number;
      silent?: boolean;
      directory: string;
      configureBuckets?: { name: string }[];
    });
    /** Resolves with the address it listens on. */
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
