/** A TCP proxy that records every byte it forwards, to check what a hop can see. */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface RecordingProxy {
  readonly port: number;
  target: { host: string; port: number } | undefined;
  recorded(): Buffer;
  close(): Promise<void>;
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const proxy: RecordingProxy = {
    port: 0,
    target: undefined,
    recorded: () => Buffer.concat(chunks),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  // Half-open both ways, as a TCP hop should be: an end in one direction leaves the other flowing.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const target = proxy.target;
    if (!target) return client.destroy();
    const upstream = connect({ ...target, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)));
      socket.on('error', () => undefined);
      socket.once('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (proxy as { port: number }).port = (server.address() as AddressInfo).port;
  return proxy;
}
