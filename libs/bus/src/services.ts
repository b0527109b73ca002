// The cluster's request/reply services on core NATS, defined once as data
// (like the work queues in subjects.ts): subject, queue group, protobuf
// request and response. Every replica of a service subscribes with the
// queue group, so NATS hands each request to exactly one of them.
//
// Errors travel as a reply with an empty body and the `codesift-error`
// header (`<CODE>: <message>`), so a caller can tell "the service said no"
// from "nobody answered" (NATS no-responders) and from a timeout.
import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf';
import { CodesiftError, type ErrorCode, errorMessage, isCodesiftError } from '@codesift/core';
import {
  CountSymbolsRequestSchema,
  CountSymbolsResponseSchema,
  GetVocabularyRequestSchema,
  GetVocabularyResponseSchema,
  IndexStatsRequestSchema,
  IndexStatsResponseSchema,
  LookupSymbolRequestSchema,
  LookupSymbolResponseSchema,
  ManifestPageRequestSchema,
  ManifestPageSchema,
  RelatedSymbolsRequestSchema,
} from '@codesift/proto';
import {
  type Msg,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { SUBJECT_PREFIX } from './subjects.js';

export interface ServiceDef<
  Req extends DescMessage = DescMessage,
  Res extends DescMessage = DescMessage,
> {
  readonly subject: string;
  /** Queue group shared by the service's replicas. */
  readonly queue: string;
  /** The stage (`codesift-worker <stage>`) that answers. */
  readonly responder: string;
  readonly request: Req;
  readonly response: Res;
}

export const SERVICES = {
  /** Symbols by name (exact, then prefix): the symbol service's store. */
  symbolLookup: {
    subject: `${SUBJECT_PREFIX}.svc.symbols.lookup`,
    queue: 'symbols',
    responder: 'symbols',
    request: LookupSymbolRequestSchema,
    response: LookupSymbolResponseSchema,
  },
  /** Distinct symbol names with counts, most frequent first. */
  symbolVocabulary: {
    subject: `${SUBJECT_PREFIX}.svc.symbols.vocabulary`,
    queue: 'symbols',
    responder: 'symbols',
    request: GetVocabularyRequestSchema,
    response: GetVocabularyResponseSchema,
  },
  /** The symbols related to a question's words: the vocabulary slice the LLM rewrite sends. */
  symbolRelated: {
    subject: `${SUBJECT_PREFIX}.svc.symbols.related`,
    queue: 'symbols',
    responder: 'symbols',
    request: RelatedSymbolsRequestSchema,
    response: LookupSymbolResponseSchema,
  },
  symbolCount: {
    subject: `${SUBJECT_PREFIX}.svc.symbols.count`,
    queue: 'symbols',
    responder: 'symbols',
    request: CountSymbolsRequestSchema,
    response: CountSymbolsResponseSchema,
  },
  /** One page of the writer's manifest (every indexed file), in path order. */
  manifestPage: {
    subject: `${SUBJECT_PREFIX}.svc.manifest.page`,
    queue: 'writer',
    responder: 'writer',
    request: ManifestPageRequestSchema,
    response: ManifestPageSchema,
  },
  /** What the writer's index holds: counts, embedder, location. */
  indexStats: {
    subject: `${SUBJECT_PREFIX}.svc.index.stats`,
    queue: 'writer',
    responder: 'writer',
    request: IndexStatsRequestSchema,
    response: IndexStatsResponseSchema,
  },
} as const satisfies Record<string, ServiceDef>;

export type ServiceName = keyof typeof SERVICES;
export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

export type ServiceRequest<N extends ServiceName> = MessageShape<(typeof SERVICES)[N]['request']>;
export type ServiceRequestInit<N extends ServiceName> = MessageInitShape<
  (typeof SERVICES)[N]['request']
>;
export type ServiceResponse<N extends ServiceName> = MessageShape<(typeof SERVICES)[N]['response']>;
export type ServiceResponseInit<N extends ServiceName> = MessageInitShape<
  (typeof SERVICES)[N]['response']
>;

/** Header of an error reply: `<ErrorCode>: <message>`. */
export const ERROR_HEADER = 'codesift-error';
/** Header of an error reply whose error has a hint: what the caller can do about it. */
export const ERROR_HINT_HEADER = 'codesift-error-hint';

/** Default time a request waits for its reply. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

export type ServiceHandler<N extends ServiceName> = (
  request: ServiceRequest<N>,
) => Promise<ServiceResponseInit<N>> | ServiceResponseInit<N>;

export interface Responder {
  readonly name: ServiceName;
  /** Requests answered (errors included). */
  readonly answered: number;
  /** Stops taking requests; replies in flight still go out (waiting at most `graceMs`, default 5 s). */
  stop(graceMs?: number): Promise<void>;
}

export interface ServeOptions {
  /** Told about handler failures (they are also sent back as error replies). */
  onError?: (err: unknown, service: ServiceName) => void;
}

/** Answers `name`'s requests with `handler` in `name`'s queue group until stopped. */
export function serveRequests<N extends ServiceName>(
  nc: NatsConnection,
  name: N,
  handler: ServiceHandler<N>,
  opts: ServeOptions = {},
): Responder {
  const def = SERVICES[name] as ServiceDef;
  let answered = 0;
  const inFlight = new Set<Promise<void>>();
  const answer = async (msg: Msg): Promise<void> => {
    try {
      let request: ServiceRequest<N>;
      try {
        request = fromBinary(def.request, msg.data) as ServiceRequest<N>;
      } catch (err) {
        throw new CodesiftError('INVALID_ARGUMENT', `bad ${name} request: ${errorMessage(err)}`);
      }
      const response = create(def.response, (await handler(request)) as never);
      msg.respond(toBinary(def.response, response));
    } catch (err) {
      opts.onError?.(err, name);
      const code: ErrorCode = isCodesiftError(err) ? err.code : 'INTERNAL';
      const h = natsHeaders();
      // Header values are one line.
      h.set(ERROR_HEADER, `${code}: ${oneLine(errorMessage(err))}`);
      const hint = isCodesiftError(err) ? err.hint : undefined;
      if (hint) h.set(ERROR_HINT_HEADER, oneLine(hint));
      msg.respond(new Uint8Array(0), { headers: h });
    } finally {
      answered++;
    }
  };
  const sub: Subscription = nc.subscribe(def.subject, {
    queue: def.queue,
    callback: (err, msg) => {
      if (err) {
        opts.onError?.(err, name);
        return;
      }
      const p = answer(msg);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    },
  });
  return {
    name,
    get answered() {
      return answered;
    },
    async stop(graceMs = 5000) {
      // drain: no new requests, the subscription's pending ones are delivered.
      await sub.drain().catch(() => undefined);
      // Replies in flight go out, unless a handler hangs: then stop anyway.
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      clearTimeout(timer);
    },
  };
}

export interface RequestOptions {
  /** How long to wait for the reply; default DEFAULT_REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Sends one request to `name` and decodes the reply. Rejects with a
 * CodesiftError: TIMEOUT when no reply came in time, INTERNAL ("no ...
 * service answers") when nothing subscribes to the subject, or the error
 * the service replied with.
 */
export async function requestService<N extends ServiceName>(
  nc: NatsConnection,
  name: N,
  init: ServiceRequestInit<N>,
  opts: RequestOptions = {},
): Promise<ServiceResponse<N>> {
  const def = SERVICES[name] as ServiceDef;
  const timeout = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const payload = toBinary(def.request, create(def.request, init as never));
  let reply: Msg;
  try {
    reply = await nc.request(def.subject, payload, { timeout });
  } catch (err) {
    throw requestFailure(name, def, timeout, err);
  }
  const failure = reply.headers?.get(ERROR_HEADER);
  if (failure) {
    const i = failure.indexOf(': ');
    const code = (i > 0 ? failure.slice(0, i) : 'INTERNAL') as ErrorCode;
    const hint = reply.headers?.get(ERROR_HINT_HEADER);
    throw new CodesiftError(
      code,
      `${def.responder}: ${i > 0 ? failure.slice(i + 2) : failure}`,
      hint ? { hint } : {},
    );
  }
  try {
    return fromBinary(def.response, reply.data) as ServiceResponse<N>;
  } catch (err) {
    throw new CodesiftError('INTERNAL', `bad ${name} reply: ${errorMessage(err)}`);
  }
}

/** Header values are one line. */
function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ');
}

function requestFailure(name: ServiceName, def: ServiceDef, timeout: number, err: unknown) {
  const e = err as { name?: string; isNoResponders?: () => boolean; cause?: unknown };
  const noResponders =
    e.isNoResponders?.() === true ||
    (e.cause as { name?: string } | undefined)?.name === 'NoRespondersError' ||
    e.name === 'NoRespondersError';
  if (noResponders) {
    return new CodesiftError('UNAVAILABLE', `no ${def.responder} service answers ${def.subject}`, {
      hint: `start one: codesift-worker ${def.responder}`,
      cause: err,
    });
  }
  if (e.name === 'TimeoutError' || /timeout/i.test(errorMessage(err))) {
    return new CodesiftError(
      'TIMEOUT',
      `the ${def.responder} service did not answer ${name} within ${timeout} ms`,
      { cause: err },
    );
  }
  return new CodesiftError('INTERNAL', `${name} request failed: ${errorMessage(err)}`, {
    cause: err,
  });
}
