import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What the proxy does to the requests it is given:
 * - `pass`: forwards them;
 * - `down`: closes each connection unanswered, as a central that is down or unreachable;
 * - `cut`: forwards requests until the one numbered `after` (0: the first), forwards that one too,
 *   waits for the central's whole answer and then closes the connection without giving it, as a
 *   desktop killed (or a network lost) after its request arrived; every later request is refused.
 */
export type Fault = { kind: 'pass' } | { kind: 'down' } | { kind: 'cut'; after: number };

/**
 * A real HTTP proxy on loopback in front of the central, to break a desktop's sync at a chosen
 * request: what a crash or a lost network does to the protocol, with the central's side done for
 * real. Counts the requests it saw since the fault was set.
 */
export class FaultProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private fault: Fault = { kind: 'pass' };
  private seen = 0;
  url = '';

  constructor(private readonly upstream: string) {}

  async start(): Promise<string> {
    const upstream = new URL(this.upstream);
    this.server = createServer((req, res) => {
      const n = this.seen++;
      const fault = this.fault;
      if (fault.kind === 'down' || (fault.kind === 'cut' && n > fault.after)) {
        req.socket.destroy();
        return;
      }
      const forwarded = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer: IncomingMessage) => {
          if (fault.kind === 'cut' && n === fault.after) {
            // The central has done the work: read its answer whole, then lose it.
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      req.pipe(forwarded);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  set(fault: Fault): void {
    // Read at each request: a kept-alive connection of an earlier sync meets the new fault too.
    this.fault = fault;
    this.seen = 0;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
