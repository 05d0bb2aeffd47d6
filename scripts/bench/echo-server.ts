/**
 * An echo server in a process of its own: with 10,000 idle connections the benchmark's clients and
 * the server's ends would not fit under one process's open-files limit. Prints `echo listening PORT`.
 */
import { createServer, type AddressInfo } from 'node:net';

const server = createServer({ noDelay: true }, (socket) => socket.pipe(socket).on('error', () => socket.destroy()));
server.maxConnections = Number.MAX_SAFE_INTEGER;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () =>
  console.log(`echo listening ${(server.address() as AddressInfo).port}`),
);
process.on('SIGTERM', () => process.exit(0));
