/**
 * Validates HTTP requests against a published OpenAPI 3.0 document (test
 * support for the cluster store adapters: Qdrant's and Elasticsearch's
 * specifications in ../shared/specs, see loadPublishedSpec). The operation
 * is found by method and path template, then path and query parameters and
 * the JSON body are checked with ajv against the operation's schemas,
 * `$ref`s resolved into the document's components.
 *
 * Why not an OpenAPI request-validator package (openapi-backend,
 * openapi-request-validator): the schema checking is already ajv's; what is
 * left here is the 3.0 `nullable` conversion, which those packages do not do
 * for Qdrant's bare `{nullable: true}` inside anyOf (they would accept any
 * value there), and a path match plus parameter schema of about 40 lines.
 * A package would still need the conversion, compile every operation of the
 * published spec up front (this compiles the ones a test calls), and report
 * paths in its own shape; the code would not get smaller.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}

/** A `$ref` into the document's components, e.g. `#/components/parameters/bulk-refresh`. */
export interface OpenApiRef {
  $ref: string;
}

export interface OpenApiRequestBody {
  required?: boolean;
  content?: Record<string, { schema?: unknown }>;
}

export interface OpenApiOperation {
  operationId?: string;
  parameters?: (OpenApiParameter | OpenApiRef)[];
  requestBody?: OpenApiRequestBody | OpenApiRef;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, unknown>;
    parameters?: Record<string, OpenApiParameter>;
    requestBodies?: Record<string, OpenApiRequestBody>;
  };
}

export interface HttpRequestShape {
  method: string;
  pathname: string;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
}

export type ValidationResult =
  | { ok: true; operationId: string; pathParams: Record<string, string> }
  | { ok: false; operationId?: string; error: string };

export interface RequestValidator {
  /** Which document validates, for test output (e.g. the published spec's path). */
  readonly source: string;
  readonly usesPublishedSpec: boolean;
  validate(req: HttpRequestShape): ValidationResult;
}

const BASE = 'urn:codesift:openapi';
const SCHEMA_REF = '#/components/schemas/';

/** Keywords whose value is data, not a schema: copied as is. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'required']);
/** OpenAPI annotations that ajv does not know; they never constrain. */
const DROPPED = new Set(['nullable', 'example', 'deprecated', 'discriminator', 'xml']);
/** Keywords holding a map of name → schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * OpenAPI 3.0 schema → JSON Schema for ajv. With `unionsAsAnyOf`, `oneOf`
 * is read as `anyOf`: Elasticsearch's generated spec spells every union
 * `oneOf` although the branches overlap (a bulk line is an action or any
 * object), which read literally refuses valid requests. The one real
 * difference is `nullable`:
 * `{type: T, nullable: true}` becomes `type: [T, "null"]`, and a bare
 * `{nullable: true}` (how Qdrant's generator spells "or null" inside anyOf) becomes
 * `{type: "null"}`. Read literally, 3.0 gives that bare form no effect, which
 * would make every optional field accept anything and the validator toothless.
 */
export function toJsonSchema(node: unknown, unionsAsAnyOf = false): unknown {
  const convert = (x: unknown) => toJsonSchema(x, unionsAsAnyOf);
  if (Array.isArray(node)) return node.map(convert);
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k) || k === 'description' || k === 'title') continue;
    if (k === '$ref' && typeof v === 'string')
      out[k] = v.startsWith(SCHEMA_REF) ? `${BASE}#/definitions/${v.slice(SCHEMA_REF.length)}` : v;
    // A generated spec may list an enum value twice (Elasticsearch's does); ajv refuses that schema.
    else if (k === 'enum' && Array.isArray(v)) out[k] = [...new Set(v)];
    else if (DATA_KEYWORDS.has(k)) out[k] = v;
    else if (k === 'oneOf' && unionsAsAnyOf) out.anyOf = convert(v);
    else if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, convert(s)]));
    else out[k] = convert(v);
  }
  if (node.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  const constraints = Object.keys(out).filter((k) => k !== 'default');
  if (constraints.length === 0) return { type: 'null' };
  return { anyOf: [out, { type: 'null' }] };
}

const UINT_MAX: Record<string, number> = {
  uint8: 2 ** 8 - 1,
  uint16: 2 ** 16 - 1,
  uint32: 2 ** 32 - 1,
};

function newAjv(doc: OpenApiDoc, coerceTypes: boolean | 'array', unionsAsAnyOf: boolean): Ajv {
  // strict: false because OpenAPI documents carry keywords JSON Schema lacks; the
  // ones that matter are converted above, the rest are annotations.
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes, logger: false });
  formats.default(ajv, ['uuid', 'date-time', 'uri']);
  // Rust's integer and float widths as the spec names them.
  for (const f of ['uint', 'uint64', 'uint32', 'uint16', 'uint8']) {
    const max = UINT_MAX[f] ?? Number.POSITIVE_INFINITY;
    ajv.addFormat(f, {
      type: 'number',
      validate: (n) => Number.isInteger(n) && n >= 0 && n <= max,
    });
  }
  for (const f of ['int64', 'int32'])
    ajv.addFormat(f, { type: 'number', validate: (n) => Number.isInteger(n) });
  for (const f of ['float', 'double'])
    ajv.addFormat(f, { type: 'number', validate: (n) => Number.isFinite(n) });
  ajv.addFormat('partial-date-time', true);
  ajv.addSchema({
    $id: BASE,
    definitions: toJsonSchema(doc.components?.schemas ?? {}, unionsAsAnyOf),
  });
  return ajv;
}

interface CompiledOperation {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  operationId: string;
  op: OpenApiOperation;
  params?: ValidateFunction;
  body?: ValidateFunction;
}

/** The deepest distinct complaints first: with anyOf, the shallow ones only say "no branch fit". */
function describeErrors(v: ValidateFunction, where: string): string {
  const lines = (v.errors ?? [])
    .slice()
    .sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)
    .map((e) => `${where}${e.instancePath} ${e.message ?? 'is invalid'}`);
  return [...new Set(lines)].slice(0, 6).join('; ');
}

export interface ValidatorOptions {
  /** Read `oneOf` as `anyOf` (see toJsonSchema). Default false. */
  unionsAsAnyOf?: boolean;
  /**
   * Operations the published document lacks but the server has, added to
   * its paths (publishedValidator): each one an explicit, commented exception.
   */
  supplement?: OpenApiDoc['paths'];
}

/** A `$ref` into components, resolved; anything else as it is. */
function deref<T>(doc: OpenApiDoc, node: T | OpenApiRef, kind: 'parameters' | 'requestBodies'): T {
  if (!isObject(node) || typeof node.$ref !== 'string') return node as T;
  const prefix = `#/components/${kind}/`;
  const target = node.$ref.startsWith(prefix)
    ? doc.components?.[kind]?.[node.$ref.slice(prefix.length)]
    : undefined;
  if (target === undefined) throw new Error(`unresolved ${node.$ref}`);
  return target as T;
}

export function createValidator(
  doc: OpenApiDoc,
  source: string,
  published: boolean,
  options: ValidatorOptions = {},
): RequestValidator {
  const anyOf = options.unionsAsAnyOf ?? false;
  const bodyAjv = newAjv(doc, false, anyOf);
  // Query strings are text; the spec types them (wait: boolean, a list as
  // `a,b` or one value), so coerce first.
  const paramAjv = newAjv(doc, 'array', anyOf);
  const operations: CompiledOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const names: string[] = [];
    const re = template
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const m = /^\{([^}]+)\}$/.exec(part);
        if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(m[1]!);
        return '([^/]+)';
      })
      .join('');
    // Parameters declared on the path apply to each of its operations.
    const shared = (item as { parameters?: OpenApiOperation['parameters'] }).parameters ?? [];
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op) || method === 'parameters') continue;
      const o = op as OpenApiOperation;
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${re}$`),
        names,
        operationId: o.operationId ?? `${method} ${template}`,
        op: { ...o, parameters: [...shared, ...(o.parameters ?? [])] },
      });
    }
  }
  // A literal segment beats a template one: /collections/aliases is not a collection.
  operations.sort((a, b) => a.names.length - b.names.length);

  function compileParams(c: CompiledOperation): ValidateFunction {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const ref of c.op.parameters ?? []) {
      const p = deref<OpenApiParameter>(doc, ref, 'parameters');
      if (p.in !== 'path' && p.in !== 'query') continue;
      properties[p.name] = toJsonSchema(p.schema ?? {}, anyOf);
      if (p.required || p.in === 'path') required.push(p.name);
    }
    // Unknown query parameters are refused: a misspelt `wait` would silently do nothing.
    return paramAjv.compile({ type: 'object', properties, required, additionalProperties: false });
  }

  return {
    source,
    usesPublishedSpec: published,
    validate(req) {
      const method = req.method.toUpperCase();
      let c: CompiledOperation | undefined;
      let match: RegExpExecArray | null = null;
      for (const o of operations) {
        match = o.method === method ? o.pattern.exec(req.pathname) : null;
        if (match) {
          c = o;
          break;
        }
      }
      if (!c || !match)
        return { ok: false, error: `no operation ${method} ${req.pathname} in ${source}` };
      const pathParams: Record<string, string> = {};
      for (const [i, n] of c.names.entries()) pathParams[n] = decodeURIComponent(match[i + 1]!);
      const params: Record<string, unknown> = { ...pathParams };
      for (const [k, v] of req.query) {
        if (k in params)
          return { ok: false, operationId: c.operationId, error: `query parameter ${k} repeated` };
        params[k] = v;
      }
      c.params ??= compileParams(c);
      if (!c.params(params))
        return { ok: false, operationId: c.operationId, error: describeErrors(c.params, 'params') };
      const rb =
        c.op.requestBody && deref<OpenApiRequestBody>(doc, c.op.requestBody, 'requestBodies');
      const schema = rb?.content?.['application/json']?.schema;
      if (req.body === undefined) {
        if (rb?.required)
          return { ok: false, operationId: c.operationId, error: 'body is required' };
      } else if (!schema) {
        return {
          ok: false,
          operationId: c.operationId,
          error: `${c.operationId} takes no JSON body`,
        };
      } else {
        c.body ??= bodyAjv.compile(toJsonSchema(schema, anyOf) as object);
        if (!c.body(req.body))
          return { ok: false, operationId: c.operationId, error: describeErrors(c.body, 'body') };
      }
      return { ok: true, operationId: c.operationId, pathParams };
    },
  };
}

/** The repository root (this file is libs/stores/{src,dist}/testing/openapi-validator). */
const REPO_ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
);

/**
 * Where a published specification is: `../shared/specs/<file>` beside the
 * repository (see that folder's README), unless `override` names it.
 */
export function publishedSpecPath(file: string, override?: string): string {
  return override || path.resolve(REPO_ROOT, '..', 'shared', 'specs', file);
}

const cache = new Map<string, RequestValidator>();

/**
 * The validator over the published specification at `specPath`, parsed and
 * set up once per process (Elasticsearch's is 3.5 MB). A missing file is an
 * error naming the path: the checks are required, never skipped.
 */
export function publishedValidator(
  specPath: string,
  name: string,
  options: ValidatorOptions = {},
): RequestValidator {
  let v = cache.get(specPath);
  if (!v) {
    let text: string;
    try {
      text = readFileSync(specPath, 'utf8');
    } catch (err) {
      throw new Error(
        `the published ${name} specification is required to validate requests, and ${specPath} cannot be read (${(err as Error).message}); see ../shared/specs/README.md`,
      );
    }
    const doc = JSON.parse(text) as OpenApiDoc;
    for (const [template, ops] of Object.entries(options.supplement ?? {})) {
      doc.paths[template] = { ...doc.paths[template], ...ops };
    }
    v = createValidator(doc, `published ${name} spec (${specPath})`, true, options);
    cache.set(specPath, v);
  }
  return v;
}
