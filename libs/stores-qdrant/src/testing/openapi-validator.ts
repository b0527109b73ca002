/**
 * Validates HTTP requests against an OpenAPI 3.0 document: the operation is
 * found by method and path template, then path and query parameters and the
 * JSON body are checked with ajv against the operation's schemas, `$ref`s
 * resolved into `components/schemas`.
 *
 * The document is Qdrant's published one when `QDRANT_OPENAPI_SPEC` names it
 * (docs/redoc/master/openapi.json in the qdrant/qdrant repository), else the
 * hand-written subset in minimal-schema.ts. The published file is read at test
 * time and never copied into this repository.
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
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { MINIMAL_QDRANT_OPENAPI } from './minimal-schema.js';

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}

export interface OpenApiOperation {
  operationId?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
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
  /** Which document validates, for test output: the published spec's path or "hand-written subset". */
  readonly source: string;
  readonly usesPublishedSpec: boolean;
  validate(req: HttpRequestShape): ValidationResult;
}

const BASE = 'urn:codesift:qdrant-openapi';
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
 * OpenAPI 3.0 schema → JSON Schema for ajv. The one real difference is `nullable`:
 * `{type: T, nullable: true}` becomes `type: [T, "null"]`, and a bare
 * `{nullable: true}` (how Qdrant's generator spells "or null" inside anyOf) becomes
 * `{type: "null"}`. Read literally, 3.0 gives that bare form no effect, which
 * would make every optional field accept anything and the validator toothless.
 */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k) || k === 'description' || k === 'title') continue;
    if (k === '$ref' && typeof v === 'string')
      out[k] = v.startsWith(SCHEMA_REF) ? `${BASE}#/definitions/${v.slice(SCHEMA_REF.length)}` : v;
    else if (DATA_KEYWORDS.has(k)) out[k] = v;
    else if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, toJsonSchema(s)]));
    else out[k] = toJsonSchema(v);
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

function newAjv(doc: OpenApiDoc, coerceTypes: boolean): Ajv {
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
  ajv.addSchema({ $id: BASE, definitions: toJsonSchema(doc.components?.schemas ?? {}) });
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

export function createValidator(
  doc: OpenApiDoc,
  source: string,
  published: boolean,
): RequestValidator {
  const bodyAjv = newAjv(doc, false);
  // Query strings are text; the spec types them (wait: boolean), so coerce first.
  const paramAjv = newAjv(doc, true);
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
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op) || method === 'parameters') continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${re}$`),
        names,
        operationId: (op as OpenApiOperation).operationId ?? `${method} ${template}`,
        op: op as OpenApiOperation,
      });
    }
  }
  // A literal segment beats a template one: /collections/aliases is not a collection.
  operations.sort((a, b) => a.names.length - b.names.length);

  function compileParams(c: CompiledOperation): ValidateFunction {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const p of c.op.parameters ?? []) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      properties[p.name] = toJsonSchema(p.schema ?? {});
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
      const rb = c.op.requestBody;
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
        c.body ??= bodyAjv.compile(toJsonSchema(schema) as object);
        if (!c.body(req.body))
          return { ok: false, operationId: c.operationId, error: describeErrors(c.body, 'body') };
      }
      return { ok: true, operationId: c.operationId, pathParams };
    },
  };
}

const cache = new Map<string, RequestValidator>();

/**
 * The validator tests use: the published spec at `specPath` (default
 * `QDRANT_OPENAPI_SPEC`), else the hand-written subset. Compiled once per process.
 */
export function loadValidator(specPath = process.env.QDRANT_OPENAPI_SPEC): RequestValidator {
  const key = specPath || '';
  let v = cache.get(key);
  if (!v) {
    v = specPath
      ? createValidator(
          JSON.parse(readFileSync(specPath, 'utf8')) as OpenApiDoc,
          `published Qdrant OpenAPI spec (${specPath})`,
          true,
        )
      : createValidator(
          MINIMAL_QDRANT_OPENAPI,
          'hand-written Qdrant schema subset (set QDRANT_OPENAPI_SPEC for the published spec)',
          false,
        );
    cache.set(key, v);
  }
  return v;
}
