import {
  create,
  type DescMessage,
  type DescMethod,
  fromBinary,
  isMessage,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { MethodDefinition } from '@grpc/grpc-js';

/** The grpc-js method definitions of a protobuf-es service, keyed by each method's localName. */
export type GrpcServiceDefinition<T extends GenServiceMethods> = {
  readonly [K in keyof T]: MethodDefinition<
    MessageShape<T[K]['input']>,
    MessageShape<T[K]['output']>
  >;
};

/** The request and response message types of one method of a generated service. */
export type RequestOf<M extends Pick<DescMethod, 'input'>> = MessageShape<M['input']>;
export type RequestInitOf<M extends Pick<DescMethod, 'input'>> = MessageInitShape<M['input']>;
export type ResponseOf<M extends Pick<DescMethod, 'output'>> = MessageShape<M['output']>;
export type ResponseInitOf<M extends Pick<DescMethod, 'output'>> = MessageInitShape<M['output']>;

// Definitions are pure functions of the descriptor, so one per service is enough.
const cache = new WeakMap<object, unknown>();

/**
 * Builds the grpc-js ServiceDefinition of a protobuf-es v2 service descriptor:
 * every RPC under `/<package>.<Service>/<Method>`, (de)serialized with the
 * generated schemas, streaming flags from the method kind. One generic
 * function instead of hand-written tables, so a new RPC in the .proto needs
 * no change here.
 */
export function grpcServiceDefinition<T extends GenServiceMethods>(
  service: GenService<T>,
): GrpcServiceDefinition<T> {
  const cached = cache.get(service);
  if (cached) return cached as GrpcServiceDefinition<T>;
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    definition[method.localName] = methodDefinition(service.typeName, method);
  }
  cache.set(service, definition);
  return definition as GrpcServiceDefinition<T>;
}

function methodDefinition(
  serviceTypeName: string,
  method: DescMethod,
): MethodDefinition<unknown, unknown> {
  return {
    path: `/${serviceTypeName}/${method.name}`,
    originalName: method.localName,
    requestStream:
      method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
    responseStream:
      method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
    requestSerialize: serializer(method.input),
    requestDeserialize: deserializer(method.input),
    responseSerialize: serializer(method.output),
    responseDeserialize: deserializer(method.output),
  };
}

// Accepts a message or a plain init object, so handlers and callers may pass either.
function serializer(schema: DescMessage): (value: unknown) => Buffer {
  return (value) => {
    const message = isMessage(value, schema)
      ? value
      : create(schema, value as MessageInitShape<DescMessage>);
    const bytes = toBinary(schema, message);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

function deserializer(schema: DescMessage): (bytes: Buffer) => unknown {
  return (bytes) => fromBinary(schema, bytes);
}
