/** JSON-RPC 2.0 shapes and the error codes the MCP endpoint answers with. */

export type JsonRpcId = string | number | null;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
/** Server error: a handler threw something that is not a refusal. */
export const INTERNAL_ERROR = -32000;
/**
 * The whole -32000 message for a failure that is not a refusal: the spec's `Internal error: <message>`
 * with the service's own words, never the thrown error's (a database or driver message goes to the log only).
 */
export const INTERNAL_ERROR_MESSAGE = 'Internal error: the service failed while handling this request; the operator can find the details in its log';
/** MCP's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject };

/** Thrown by method handlers to answer with a specific JSON-RPC error instead of -32000. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

export const invalidParams = (message: string, data?: unknown) => new JsonRpcError(INVALID_PARAMS, message, data);

export function errorResponse(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  const error: JsonRpcErrorObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}

export const resultResponse = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });

/** One member of a request body after envelope checks. */
export type Incoming =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: Record<string, unknown> }
  /**
   * Needs no reply: a client's answer to a server request (this server sends none), or a notification
   * whose params are malformed (a notification never gets an error back).
   */
  | { kind: 'ignored' }
  | { kind: 'invalid'; id: JsonRpcId; code: number; message: string };

const isId = (value: unknown): value is JsonRpcId => typeof value === 'string' || typeof value === 'number' || value === null;

/** Checks one message's envelope. `params` defaults to `{}`; by-position params are refused (MCP names them). */
export function classify(message: unknown): Incoming {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: 'Invalid Request: expected a JSON-RPC 2.0 object' };
  }
  const m = message as Record<string, unknown>;
  const id = 'id' in m && isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return { kind: 'invalid', id, code: INVALID_REQUEST, message: 'Invalid Request: "jsonrpc" must be "2.0"' };
  if ('id' in m && !isId(m.id)) return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: 'Invalid Request: "id" must be a string or a number' };
  if (m.method === undefined && 'id' in m && ('result' in m || 'error' in m)) return { kind: 'ignored' };
  if (typeof m.method !== 'string' || m.method === '') {
    return { kind: 'invalid', id, code: INVALID_REQUEST, message: 'Invalid Request: "method" must be a non-empty string' };
  }
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) {
    if (!('id' in m)) return { kind: 'ignored' };
    return { kind: 'invalid', id, code: INVALID_PARAMS, message: 'Invalid params: "params" must be an object' };
  }
  const params = (m.params ?? {}) as Record<string, unknown>;
  return 'id' in m ? { kind: 'request', id, method: m.method, params } : { kind: 'notification', method: m.method, params };
}
