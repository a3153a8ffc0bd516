// Redis's MONITOR read off a raw socket: every command the server runs, in the order it runs
// them, with its arguments as bytes (ioredis's own `monitor()` splits its lines on `" "` and
// leaves the escapes in, which corrupts JSON arguments).
import { connect, type Socket } from 'node:net';

export interface MonitoredCommand {
  /** Lower case. */
  name: string;
  /** The arguments after the name, as the client sent them. */
  args: Buffer[];
  /** `lua` for a command a script ran, else the client's address. */
  source: string;
}

export interface Monitor {
  /** Stops monitoring (closes the socket) and resolves with what was seen since `startMonitor`. */
  stop(): Promise<MonitoredCommand[]>;
}

/** Starts MONITOR on `url` (redis://host:port) and resolves once the server has said OK. */
export async function startMonitor(url: string): Promise<Monitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  const seen: MonitoredCommand[] = [];
  let pending = '';
  let ok: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    ok = resolve;
  });
  // MONITOR's lines are RESP simple strings of printable ASCII (sdscatrepr escapes the rest).
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    let end = pending.indexOf('\r\n');
    while (end !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 2);
      if (line === '+OK') ok();
      else if (line.startsWith('+')) {
        const command = parseMonitorLine(line.slice(1));
        if (command) seen.push(command);
      }
      end = pending.indexOf('\r\n');
    }
  });
  socket.write('MONITOR\r\n');
  await started;
  return {
    stop: () =>
      new Promise((resolve) => {
        socket.once('close', () => resolve(seen));
        socket.end();
      }),
  };
}

/** `1700000000.123456 [0 127.0.0.1:50000] "EVALSHA" "abc" …` → name, args, source. */
export function parseMonitorLine(line: string): MonitoredCommand | undefined {
  const open = line.indexOf('[');
  const close = line.indexOf(']', open);
  if (open === -1 || close === -1) return undefined;
  const source = line.slice(open + 1, close).split(' ')[1] ?? '';
  const args: Buffer[] = [];
  let at = close + 1;
  while (at < line.length) {
    const quote = line.indexOf('"', at);
    if (quote === -1) break;
    const bytes: number[] = [];
    let i = quote + 1;
    for (; i < line.length && line[i] !== '"'; i++) {
      const char = line.charCodeAt(i);
      if (line[i] !== '\\') {
        bytes.push(char);
        continue;
      }
      const next = line[++i];
      if (next === 'x') {
        bytes.push(Number.parseInt(line.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        const escapes: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8 };
        bytes.push(escapes[next!] ?? next!.charCodeAt(0));
      }
    }
    args.push(Buffer.from(bytes));
    at = i + 1;
  }
  const [name, ...rest] = args;
  if (!name) return undefined;
  return { name: name.toString().toLowerCase(), args: rest, source };
}
