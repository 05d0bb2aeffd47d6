# The portal-node image: the bundled runner (dist/: portal.mjs and its chunks) on Node.js and koffi, nothing else.
#   docker build -t portal-node .
# Node.js 24 (LTS): the bundle targets Node.js 20.19 and later; 20 no longer receives fixes, and on
# 24 the nodes measured as fast as on 20 or faster (npm run bench with BENCH_NODE).
# Nodes keep their identity under /var/lib/portal; mount a volume there so a replaced container
# reuses it and needs no new ticket. The identity is sealed with a key kept on a second volume,
# /var/lib/portal-keys, never beside it: a copy of the state volume alone opens nothing.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts stay off: the bundle needs esbuild's binary only, never the controller's native module.
RUN npm ci --ignore-scripts --no-audit --no-fund
# The one install step the bundle needs: the PostgreSQL driver guarded (see the script).
COPY scripts/patch-postgres-driver.mjs scripts/
RUN node scripts/patch-postgres-driver.mjs
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/
COPY schemas schemas
COPY src src
RUN node scripts/build.mjs

FROM node:24-bookworm-slim
COPY --from=build /src/dist /usr/local/lib/portal
# koffi and its library for this platform (the only one npm installed): a node hands glibc's free pages
# back after a burst of clients through it (src/shared/malloc-trim.ts).
COPY --from=build /src/node_modules/koffi /usr/local/lib/portal/node_modules/koffi
COPY --from=build /src/node_modules/@koromix /usr/local/lib/portal/node_modules/@koromix
# A relay keeps its sealing key in $PORTAL_HOME/keys: made here, owned by the relay's user, so that a
# volume of its own mounted there (control-plane/compose.yaml) starts writable and apart from the state.
RUN ln -s /usr/local/lib/portal/portal.mjs /usr/local/bin/portal \
 && mkdir -p /var/lib/portal/keys /var/lib/portal-keys \
 && chown 10001:10001 /var/lib/portal /var/lib/portal/keys /var/lib/portal-keys \
 && chmod 700 /var/lib/portal /var/lib/portal/keys /var/lib/portal-keys
# The node creates the key file (0600) the first time it starts without an identity.
ENV PORTAL_HOME=/var/lib/portal PORTAL_SEALING_KEY_FILE=/var/lib/portal-keys/node-seal.key
# Young-generation semi-spaces of 32 MB: at full speed the data path's chunks then die young instead
# of being promoted and swept by full collections (iperf3 -n 1G through the direct path, Node.js 24:
# inlet 0.94-1.00 s/GiB by default, 0.75-0.77 with this; 8.5-8.9 against 9.9-10.7 Gbit/s).
ENV NODE_OPTIONS=--max-semi-space-size=32
VOLUME ["/var/lib/portal", "/var/lib/portal-keys"]
WORKDIR /var/lib/portal
# A numeric user, so that runtimes enforcing non-root (Kubernetes runAsNonRoot) can check it.
USER 10001:10001
ENTRYPOINT ["portal"]
CMD ["--help"]
# Healthy while the node serves at least one of its portals: one dead target takes down its own portal only.
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 CMD ["portal", "node", "show", "--ready"]
