/**
 * Loopback HTTP(S) receivers for the outbound-request tests. Everything
 * listens on 127.0.0.1 and is closed by `close()`, open connections included.
 */
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { join } from 'node:path';

const TLS_DIR = join(__dirname, '..', '..', 'fixtures', 'tls');

export type ServerCertificate = 'localhost' | 'self-signed' | 'expired';

/** A PEM file from test/fixtures/tls. */
export function tlsFixture(name: string): string {
  return readFileSync(join(TLS_DIR, name), 'utf8');
}

export const TEST_CA = tlsFixture('ca.pem');

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface LocalReceiver {
  readonly port: number;
  /** Requests whose body was read completely. */
  readonly received: ReceivedRequest[];
  /** The SNI host names TLS clients sent (connections without SNI add nothing). */
  readonly servernames: readonly string[];
  /** Connections accepted so far. */
  connections(): number;
  /** Connections accepted and not yet closed. */
  openConnections(): number;
  url(path?: string): string;
  close(): Promise<void>;
}

export type Respond = (request: ReceivedRequest, res: ServerResponse) => void;

/** An HTTPS receiver presenting one of the fixture certificates. */
export async function startHttpsReceiver(
  certificate: ServerCertificate,
  respond: Respond,
): Promise<LocalReceiver> {
  const servernames: string[] = [];
  const server = createHttpsServer({
    cert: tlsFixture(`${certificate}.pem`),
    key: tlsFixture(`${certificate}-key.pem`),
    // Called only when the client sends SNI; no context means the default one.
    SNICallback: (servername, done) => {
      servernames.push(servername);
      done(null, undefined);
    },
  });
  return listen(server, 'https', respond, servernames);
}

/** A plain HTTP receiver. */
export function startHttpReceiver(respond: Respond): Promise<LocalReceiver> {
  return listen(createHttpServer(), 'http', respond);
}

/** Accepts TCP connections and never says a word (no TLS handshake, no HTTP). */
export async function startSilentTcpServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listen(
  server: Server,
  scheme: string,
  respond: Respond,
  servernames: readonly string[] = [],
): Promise<LocalReceiver> {
  const received: ReceivedRequest[] = [];
  const open = new Set<Socket>();
  let accepted = 0;
  // TLS servers hand over the raw socket here too, before the handshake.
  server.on('connection', (socket: Socket) => {
    accepted += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      respond(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    received,
    servernames,
    connections: () => accepted,
    openConnections: () => open.size,
    url: (path = '/hook') => `${scheme}://127.0.0.1:${port}${path}`,
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
