/**
 * A body handed over as its UTF-8 bytes instead of as text: the MCP endpoint decodes a large body's JSON
 * string straight into bytes (shells/koa/mcp/parse-message.ts), so a 5 MiB upload never becomes a string.
 * It means exactly the text those bytes decode to. The bytes are a view of the request's buffer, which the
 * endpoint lends to another request once this call has answered (shells/http/body-buffers.ts).
 */
export class Utf8Body {
  constructor(readonly bytes: Uint8Array) {}

  text(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('utf8');
  }
}
