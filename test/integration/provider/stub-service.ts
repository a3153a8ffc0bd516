import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface StubRequest {
  method: string;
  /** The full path, base path included: `/v1/sms`. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface StubService {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * A small real HTTP server on loopback that answers whatever `handle` says: for the answers the
 * emulator never gives (a body of the wrong shape, a socket cut mid-response, no answer at all).
 */
export async function startStubService(
  handle: (request: StubRequest, res: ServerResponse, socket: Socket) => void,
): Promise<StubService> {
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
      };
      requests.push(request);
      handle(request, res, req.socket);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status. */
export function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
