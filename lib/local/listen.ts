import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` listening and resolves with the address (port 0 picks a free one). */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
