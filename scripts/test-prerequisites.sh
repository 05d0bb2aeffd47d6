#!/usr/bin/env bash
# The programs the integration tests run for real, found on this machine or installed, before any test
# starts: `npm test` and `npm run test:integration` run this first, and so does .ci/run.
#
#   bash scripts/test-prerequisites.sh [--toolchain]
#
# --toolchain also wants make and g++, which `npm ci` needs to build the SQLite module (.ci/run passes
# it before `npm ci`). Silent and a no-op when nothing is missing. Missing Debian packages are
# installed with apt-get when this runs as root (or sudo works without a password); otherwise it stops
# with one line naming what to install. Only bash built-ins run until something is missing.
set -euo pipefail

tools=()
packages=()

# want COMMAND PACKAGE... : the Debian packages that give COMMAND, when it is not on PATH.
want() {
  local command=$1
  shift
  if ! command -v "$command" >/dev/null 2>&1; then
    tools+=("$command")
    packages+=("$@")
  fi
}

# The PostgreSQL server is not on PATH: Debian keeps initdb and postgres under /usr/lib/postgresql.
want_postgres_server() {
  local initdb
  for initdb in /usr/lib/postgresql/*/bin/initdb; do
    if [ -x "$initdb" ]; then return; fi
  done
  tools+=(initdb)
  packages+=(postgresql)
}

check() {
  tools=()
  packages=()
  want python3 python3                  # the webhook receiver, the status metric function
  want hostname hostname                # the webhook use case's verification
  want psql postgresql-client           # the PostgreSQL and warehouse use cases
  want redis-server redis-server        # a real Redis over TLS for the redis use case
  want redis-cli redis-tools            # its verification (tickets.sh verify runs redis-cli)
  want_postgres_server                  # a real PostgreSQL server for them
  want runuser util-linux               # PostgreSQL will not run as root: tests run it as postgres
  want unshare util-linux               # private network and mount namespaces (IPv6 sources, unit sandboxes)
  want setpriv util-linux               # a unit's User= and capability bounds, applied in its sandbox
  want ip iproute2                      # the namespace's loopback addresses
  want docker-compose docker-compose    # resolves the compiled compose files (no Docker engine)
  want curl curl ca-certificates        # the installer's own command line, over HTTPS
  want shellcheck shellcheck            # the shell scripts Portal ships
  want openssl openssl                  # `openssl rand`, which the hints give for sealing keys
  want jq jq                            # docs/operating.md's walkthrough picks a member id out of --json
  want tar tar                          # release tarballs
  want systemd-analyze systemd          # checks the units portal service install writes
  if [ "$toolchain" = yes ]; then
    want make make                      # node-gyp builds better-sqlite3 when npm ci finds no prebuilt module
    want g++ g++
  fi
}

toolchain=no
case "${1:-}" in
  '') ;;
  --toolchain) toolchain=yes ;;
  *)
    echo "test-prerequisites: unknown option $1 (the only option is --toolchain)" >&2
    exit 2
    ;;
esac

check
if [ "${#tools[@]}" -eq 0 ]; then exit 0; fi

# One line that says what is missing and exactly what to install; the caller stops there.
give_up() {
  local IFS=' '
  local listed="${tools[*]}"
  echo "test-prerequisites: the tests need ${listed// /, }, which this machine lacks; install the Debian packages ${packages[*]} (as root: apt-get install ${packages[*]}) and run the tests again" >&2
  exit 1
}

as_root=()
if [ "$EUID" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then as_root=(sudo -n); else give_up; fi
fi
if ! command -v apt-get >/dev/null 2>&1; then give_up; fi

echo "test-prerequisites: installing ${packages[*]} with apt-get (for ${tools[*]})"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq || ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
  give_up
fi
hash -r
check
if [ "${#tools[@]}" -gt 0 ]; then give_up; fi
