import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The contract between the service and docs/openapi.json, checked on every
 * answer a test receives from an `/api/v1` route (http-client.ts calls it):
 * the status is documented for the operation, the content type is one the
 * document gives for that status, a JSON body matches its schema, each event
 * of a stream matches the stream's event schema, and documented headers hold
 * their schema. A drift between the document and the service then fails the
 * test that met it, with what differs.
 *
 * A request that reaches no documented operation (an unknown path, a method
 * the path does not serve) is not a route's answer and is not checked.
 */

interface MediaType {
  readonly schema?: Record<string, unknown>;
  readonly 'x-itemSchema'?: Record<string, unknown>;
}
interface DocumentedResponse {
  readonly content?: Record<string, MediaType>;
  readonly headers?: Record<string, { $ref?: string; schema?: Record<string, unknown> }>;
}
interface DocumentedOperation {
  readonly operationId: string;
  readonly responses: Record<string, DocumentedResponse>;
}
interface OpenApiDocument {
  readonly paths: Record<string, Record<string, DocumentedOperation>>;
  readonly components: {
    readonly schemas: Record<string, unknown>;
    readonly headers: Record<string, { schema: Record<string, unknown> }>;
  };
}

/** What the contract looks at of one exchange. */
export interface Exchange {
  readonly method: string;
  /** The path and query as requested, e.g. `/api/v1/agents?limit=5`. */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const COMPONENTS_ID = 'https://agent-query-service.invalid/openapi.json';

class OpenApiContract {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #routes: ReadonlyArray<{ template: string; pattern: RegExp }>;

  constructor(document: OpenApiDocument) {
    this.#document = document;
    // OpenAPI's own keywords (discriminator, x-…) are not JSON Schema's: not strict.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({
      $id: COMPONENTS_ID,
      $defs: JSON.parse(asComponentRefs(JSON.stringify(document.components.schemas))),
    });
    // A literal path (`/webhooks/source-ips`) before a template it also fits (`/webhooks/{id}`).
    this.#routes = Object.keys(document.paths)
      .filter((template) => template.startsWith('/api/v1/'))
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => parameterCount(a.template) - parameterCount(b.template));
  }

  violations(exchange: Exchange): string[] {
    const path = exchange.path.split('?')[0] ?? '';
    if (!path.startsWith('/api/v1/')) return [];
    const route = this.#routes.find(({ pattern }) => pattern.test(path));
    const operation = route
      ? this.#document.paths[route.template]?.[exchange.method.toLowerCase()]
      : undefined;
    if (!route || !operation) return [];
    const where = `${exchange.method} ${route.template} (${operation.operationId}) answered ${exchange.status}`;
    const documented = operation.responses[String(exchange.status)];
    if (!documented) {
      return [
        `${where}, which the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    return [
      ...this.#bodyViolations(exchange, documented, route.template),
      ...this.#headerViolations(exchange, documented),
    ].map((problem) => `${where}: ${problem}`);
  }

  #bodyViolations(exchange: Exchange, documented: DocumentedResponse, template: string): string[] {
    const content = documented.content ?? {};
    const mediaTypes = Object.keys(content);
    if (exchange.text === '' || exchange.method === 'HEAD') {
      const bodyless = exchange.status === 204 || exchange.method === 'HEAD';
      return mediaTypes.length === 0 || bodyless ? [] : ['an empty body where one is documented'];
    }
    const contentType = (exchange.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = content[contentType];
    if (!media) {
      return [
        `a ${contentType || 'body without Content-Type'} where the document gives ${mediaTypes.join(', ') || 'no body'}`,
      ];
    }
    const key = `${template} ${exchange.method} ${exchange.status} ${contentType}`;
    if (contentType === 'application/json' && media.schema) {
      let body: unknown;
      try {
        body = JSON.parse(exchange.text);
      } catch {
        return ['a body that is not JSON'];
      }
      return this.#schemaViolations(key, media.schema, body, 'body');
    }
    const itemSchema = media['x-itemSchema'];
    if (contentType === 'text/event-stream' && itemSchema) {
      return serverSentEvents(exchange.text).flatMap((event, index) =>
        this.#schemaViolations(
          `${key} event`,
          itemSchema,
          event,
          `event ${index} (${event.event})`,
        ),
      );
    }
    return [];
  }

  #headerViolations(exchange: Exchange, documented: DocumentedResponse): string[] {
    return Object.entries(documented.headers ?? {}).flatMap(([name, header]) => {
      const value = exchange.headers.get(name);
      if (value === null) return [];
      const schema = header.$ref
        ? this.#document.components.headers[header.$ref.split('/').pop() ?? '']?.schema
        : header.schema;
      if (!schema) return [`header ${name} has no schema`];
      const parsed = schema.type === 'integer' ? Number(value) : value;
      return this.#schemaViolations(`header ${name}`, schema, parsed, `header ${name}: ${value}`);
    });
  }

  #schemaViolations(key: string, schema: object, value: unknown, what: string): string[] {
    let validate = this.#validators.get(key);
    if (!validate) {
      validate = this.#ajv.compile(JSON.parse(asComponentRefs(JSON.stringify(schema))));
      this.#validators.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${what}${error.instancePath ? ` at ${error.instancePath}` : ''} ${error.message ?? 'is invalid'}${
          error.params && Object.keys(error.params).length > 0
            ? ` (${JSON.stringify(error.params)})`
            : ''
        }`,
    );
  }
}

const parameterCount = (template: string) => template.split('{').length - 1;

const asComponentRefs = (json: string) =>
  json.replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`);

/** A stream's events, each with its name and its data line parsed (comments skipped). */
function serverSentEvents(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split(/\n\n/)
    .map((block) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      return { event, data: data.join('\n') };
    })
    .filter(({ data }) => data !== '')
    .map(({ event, data }) => {
      try {
        return { event, data: JSON.parse(data) as unknown };
      } catch {
        return { event, data };
      }
    });
}

let contract: OpenApiContract | undefined;

/** Every way the exchange differs from docs/openapi.json (none for a request no route answers). */
export function contractViolations(exchange: Exchange): string[] {
  contract ??= new OpenApiContract(
    JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as OpenApiDocument,
  );
  return contract.violations(exchange);
}

/**
 * Under jest only: benchmarks and evaluations share the HTTP client, and
 * their timings should not include a schema check.
 */
const checking = process.env.JEST_WORKER_ID !== undefined;

/** Throws when the exchange differs from docs/openapi.json, saying how (in jest runs). */
export function expectDocumented(exchange: Exchange): void {
  if (!checking) return;
  const violations = contractViolations(exchange);
  if (violations.length > 0) {
    throw new Error(
      `The answer differs from docs/openapi.json (fix the service or the document):\n${violations.join('\n')}`,
    );
  }
}
