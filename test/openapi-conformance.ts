/**
 * Checks real responses against the API's OpenAPI document: the operation a request
 * reached, the response its status maps to (or `default`), its content type, and its JSON
 * body against the response schema — with Ajv (JSON Schema 2020-12, strict, every error).
 * The api-* harness runs every response of every test through it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with its function as `default` of the module namespace under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = { [key: string]: unknown };

interface Operation {
  key: string;
  pattern: RegExp;
  method: string;
  responses: { [status: string]: { content?: { [type: string]: { schema?: Json } } } };
}

const ROOT = 'https://panto.invalid/openapi';

export class ConformanceChecker {
  readonly #operations: Operation[] = [];
  readonly #ajv = new Ajv2020({ strict: true, allErrors: true });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    addFormats(this.#ajv);
    // The components as one schema whose $defs they are: every `#/components/schemas/X` becomes `#/$defs/X`.
    const schemas = (document.components as { schemas: Json }).schemas;
    this.#ajv.addSchema(JSON.parse(JSON.stringify({ $id: ROOT, $defs: schemas }).replaceAll('#/components/schemas/', '#/$defs/')) as Json);
    // Compile each once: a schema that is not valid JSON Schema fails here, whatever the responses.
    for (const name of Object.keys(schemas)) this.#ajv.getSchema(`${ROOT}#/$defs/${name}`);
    for (const [path, methods] of Object.entries(document.paths as { [path: string]: { [method: string]: Json } })) {
      const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(methods)) {
        this.#operations.push({
          key: `${method.toUpperCase()} ${path}`,
          pattern,
          method: method.toUpperCase(),
          responses: operation.responses as Operation['responses'],
        });
      }
    }
  }

  /** The operation `method path` reaches, if the document has one. */
  operation(method: string, path: string): Operation | undefined {
    const pathname = new URL(path, 'http://x').pathname;
    return this.#operations.find((operation) => operation.method === method.toUpperCase() && operation.pattern.test(pathname));
  }

  /**
   * The ways `response` departs from the document (none: an empty list). A request no
   * operation matches (an unknown route, a preflight) is not judged.
   */
  async check(method: string, path: string, response: Response): Promise<string[]> {
    const operation = this.operation(method, path);
    if (!operation) return [];
    const status = String(response.status);
    const documented = operation.responses[status] ?? operation.responses.default;
    const where = `${operation.key} → ${status}`;
    if (!documented) return [`${where}: status not documented`];
    const content = documented.content;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (content && type !== 'application/json') {
      // A stream (server-sent events) is judged by its type alone: reading it would wait for its end.
      return content[type] ? [] : [`${where}: content type ${type || '(none)'} not documented (${Object.keys(content).join(', ')})`];
    }
    const text = await response.text();
    if (!content) return text === '' ? [] : [`${where}: documented without a body, answered ${JSON.stringify(text.slice(0, 100))}`];
    const media = content[type];
    if (!media) return [`${where}: content type ${type || '(none)'} not documented (${Object.keys(content).join(', ')})`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where}: body is not JSON`];
    }
    const validate = this.#validator(media.schema ?? {});
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${where}: ${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }

  #validator(schema: Json): ValidateFunction {
    const ref = typeof schema.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', `${ROOT}#/$defs/`) : undefined;
    const key = ref ?? JSON.stringify(schema);
    let validate = this.#validators.get(key);
    if (!validate) {
      validate = ref ? this.#ajv.getSchema(ref) : this.#ajv.compile(schema);
      if (!validate) throw new Error(`no schema ${key}`);
      this.#validators.set(key, validate);
    }
    return validate;
  }
}
