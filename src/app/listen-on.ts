import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on every interface at `port` (0: any free one); resolves to the loopback URL. */
export async function listenOn(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(port, '0.0.0.0', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
