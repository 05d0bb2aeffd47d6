/**
 * A bare TCP proxy in Node.js, the runtime floor of the benchmark: it accepts a connection, connects
 * to the next hop and pipes bytes both ways, with no TLS and nothing else. A chain of as many as a
 * Portal path has processes (two for the direct path, three with a relay) shows what Node.js's
 * `net` alone costs there. Prints `proxy listening PORT`. Usage: node-proxy.ts NEXT_PORT.
 */
import { connect, createServer, type AddressInfo } from 'node:net';

const next = Number(process.argv[2]);
const server = createServer({ noDelay: true }, (client) => {
  const upstream = connect({ host: '127.0.0.1', port: next, noDelay: true });
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.maxConnections = Number.MAX_SAFE_INTEGER;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () =>
  console.log(`proxy listening ${(server.address() as AddressInfo).port}`),
);
process.on('SIGTERM', () => process.exit(0));
