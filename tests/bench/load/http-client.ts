import type { Socket } from 'bun';

/**
 * A minimal HTTP/1.1 client on one keep-alive TCP connection (Bun.connect), for the load generator:
 * one request at a time, requests written as prepared bytes, responses parsed just enough (status,
 * Content-Length or chunked body, Connection: close) to find where each ends. It costs less CPU per
 * request than fetch() (1.5–3× less in runs here; bench:load prints both), which matters when the
 * generator shares two cores with the servers it loads. Bodies are kept only when asked (JSON replies the
 * next step needs).
 */
export type HttpReply = { status: number; body: Uint8Array | undefined; bytes: number };

type Pending = { resolve(reply: HttpReply): void; reject(error: Error): void; keepBody: boolean };

const CRLFCRLF = new Uint8Array([13, 10, 13, 10]);
const CRLF = CRLFCRLF.subarray(0, 2);
const decoder = new TextDecoder('latin1');
const contentLengthPattern = /\r\ncontent-length:[ \t]*(\d+)/i;
const chunkedPattern = /\r\ntransfer-encoding:[^\r]*chunked/i;
const closePattern = /\r\nconnection:[ \t]*close/i;
const encoder = new TextEncoder();

/** A request's line and headers, CRLF-terminated, without the blank line: encode once, send many times. */
export function requestHead(method: string, target: string, host: string, headers: Record<string, string> = {}): Uint8Array {
  let text = `${method} ${target} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
  return encoder.encode(text);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.length).indexOf(needle, from);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export class HttpConnection {
  private socket: Socket | undefined;
  private connecting: Promise<void> | undefined;
  private buffer: Uint8Array = new Uint8Array(0);
  private pending: Pending | undefined;
  /** performance.now() when the pending request was sent. */
  private startedAt = 0;
  private unwritten: Uint8Array | undefined;
  // The response being read.
  private status = 0;
  private headerDone = false;
  private contentLength = -1;
  private chunked = false;
  private closeAfter = false;
  private bodyBytes = 0;
  private bodyParts: Uint8Array[] = [];
  /** Chunked: what comes next, and the bytes left of the current chunk. */
  private chunkState: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
  private chunkLeft = 0;

  constructor(
    private readonly hostname: string,
    private readonly port: number,
  ) {}

  /** Each socket's handlers act only while it is the current one (a dropped socket's late events are ignored). */
  private generation = 0;

  private connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    const generation = ++this.generation;
    const current = () => generation === this.generation;
    this.connecting = new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => {
        if (current()) this.connecting = undefined;
        reject(error);
      };
      Bun.connect({
        hostname: this.hostname,
        port: this.port,
        socket: {
          open: (socket) => {
            if (!current()) {
              socket.end();
              reject(new Error('connection dropped while opening'));
              return;
            }
            this.socket = socket;
            resolve();
          },
          data: (_socket, data) => {
            if (current()) this.onData(data);
          },
          drain: () => {
            if (current()) this.flush();
          },
          close: () => {
            if (current()) this.onClose(new Error('connection closed by the server'));
          },
          error: (_socket, error) => {
            if (current()) this.onClose(error);
          },
          connectError: (_socket, error) => failed(error),
        },
      }).catch((error: unknown) => failed(error as Error));
    });
    return this.connecting;
  }

  /** Forgets the socket (closing it when asked); its late events are ignored from now on. */
  private drop(how: 'end' | 'terminate' | 'none'): void {
    this.generation++;
    if (how === 'end') this.socket?.end();
    else if (how === 'terminate') this.socket?.terminate();
    this.socket = undefined;
    this.connecting = undefined;
    this.buffer = new Uint8Array(0);
    this.unwritten = undefined;
  }

  private onClose(error: Error): void {
    const pending = this.pending;
    // A body delimited by the end of the connection (neither length nor chunked) ends here.
    if (pending && this.headerDone && this.contentLength < 0 && !this.chunked) {
      this.finish();
      this.drop('none');
      return;
    }
    this.drop('none');
    this.pending = undefined;
    pending?.reject(error);
  }

  private flush(): void {
    if (!this.socket || !this.unwritten) return;
    const written = this.socket.write(this.unwritten);
    this.unwritten = written >= this.unwritten.length ? undefined : this.unwritten.subarray(written);
  }

  /** Sends one request (its head from requestHead) and resolves with the reply once its body has ended. */
  async request(head: Uint8Array, body?: Uint8Array, keepBody = false): Promise<HttpReply> {
    if (this.pending) throw new Error('one request at a time per connection');
    if (!this.socket) await this.connect();
    const tail = encoder.encode(body ? `content-length: ${body.length}\r\n\r\n` : '\r\n');
    return new Promise<HttpReply>((resolve, reject) => {
      this.pending = { resolve, reject, keepBody };
      this.startedAt = performance.now();
      this.status = 0;
      this.headerDone = false;
      this.contentLength = -1;
      this.chunked = false;
      this.closeAfter = false;
      this.bodyBytes = 0;
      this.bodyParts = [];
      this.chunkState = 'size';
      this.chunkLeft = 0;
      this.unwritten = body ? concat(concat(head, tail), body) : concat(head, tail);
      this.flush();
    });
  }

  private onData(data: Uint8Array): void {
    if (!this.pending) return;
    // Bun may reuse `data` after this call: what is left over is copied below.
    this.buffer = this.buffer.length > 0 ? concat(this.buffer, data) : data;
    this.parse();
    if (this.buffer.length > 0 && this.buffer.buffer === data.buffer) this.buffer = this.buffer.slice();
  }

  private parse(): void {
    if (!this.headerDone) {
      const end = indexOf(this.buffer, CRLFCRLF, 0);
      if (end < 0) return;
      const head = decoder.decode(this.buffer.subarray(0, end));
      this.buffer = this.buffer.subarray(end + 4);
      this.status = Number(head.slice(9, 12));
      const length = contentLengthPattern.exec(head);
      if (length) this.contentLength = Number(length[1]);
      this.chunked = chunkedPattern.test(head);
      this.closeAfter = closePattern.test(head);
      this.headerDone = true;
      if (this.status === 204 || this.status === 304) this.contentLength = 0;
    }
    this.readBody();
  }

  private take(count: number): void {
    const piece = this.buffer.subarray(0, count);
    if (this.pending?.keepBody) this.bodyParts.push(piece.slice());
    this.bodyBytes += count;
    this.buffer = this.buffer.subarray(count);
  }

  private readBody(): void {
    if (this.chunked) {
      for (;;) {
        if (this.chunkState === 'size') {
          const lineEnd = indexOf(this.buffer, CRLF, 0);
          if (lineEnd < 0) return;
          const size = Number.parseInt(decoder.decode(this.buffer.subarray(0, lineEnd)), 16);
          this.buffer = this.buffer.subarray(lineEnd + 2);
          if (size === 0) this.chunkState = 'trailer';
          else {
            this.chunkLeft = size;
            this.chunkState = 'data';
          }
        } else if (this.chunkState === 'data') {
          const count = Math.min(this.chunkLeft, this.buffer.length);
          this.take(count);
          this.chunkLeft -= count;
          if (this.chunkLeft > 0) return;
          this.chunkState = 'crlf';
        } else if (this.chunkState === 'crlf') {
          if (this.buffer.length < 2) return;
          this.buffer = this.buffer.subarray(2);
          this.chunkState = 'size';
        } else {
          // Trailers (none expected) end with a blank line.
          const end = indexOf(this.buffer, CRLF, 0);
          if (end < 0) return;
          const blank = end === 0;
          this.buffer = this.buffer.subarray(end + 2);
          if (blank) {
            this.finish();
            return;
          }
        }
      }
    }
    if (this.contentLength >= 0) {
      const count = Math.min(this.contentLength - this.bodyBytes, this.buffer.length);
      this.take(count);
      if (this.bodyBytes >= this.contentLength) this.finish();
      return;
    }
    // Until the connection closes (onClose finishes it).
    this.take(this.buffer.length);
  }

  private finish(): void {
    const pending = this.pending!;
    this.pending = undefined;
    const body = pending.keepBody ? (this.bodyParts.length === 1 ? this.bodyParts[0]! : this.bodyParts.reduce(concat, new Uint8Array(0))) : undefined;
    if (this.closeAfter || (this.contentLength < 0 && !this.chunked)) this.drop('end');
    pending.resolve({ status: this.status, body, bytes: this.bodyBytes });
  }

  /** Gives up the pending request if it was sent more than `ms` ago (the connection is dropped). */
  abortIfOlder(now: number, ms: number): void {
    if (!this.pending || now - this.startedAt <= ms) return;
    const pending = this.pending;
    this.pending = undefined;
    this.drop('terminate');
    pending.reject(new Error(`no reply within ${ms} ms`));
  }

  close(): void {
    this.drop('end');
  }
}
