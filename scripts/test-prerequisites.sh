#!/usr/bin/env bash
# The programs the integration tests run for real, found on this machine or installed, before any test
# starts: `npm test` and `npm run test:integration` run this first, and so does .ci/run.
#
#   bash scripts/test-prerequisites.sh [--toolchain]
#
# --toolchain also wants make and g++, which `npm ci` needs to build the SQLite module (.ci/run passes
# it before `npm ci`). Silent and a no-op when nothing is missing. Missing Debian packages are
# installed with apt-get when this runs as root (or sudo works without a password), after a line for
# each that names it and the tests that need it; otherwise it stops with one line naming what to
# install. When another install holds the package manager's lock, it says so and waits for it, up to
# PORTAL_APT_LOCK_TIMEOUT seconds (default 600), instead of failing. Only bash built-ins run until
# something is missing.
set -euo pipefail

tools=()
packages=()
reasons=()

# want COMMAND WHY PACKAGE... : the Debian packages that give COMMAND, when it is not on PATH, and which
# tests need it.
want() {
  local command=$1 why=$2
  shift 2
  if ! command -v "$command" >/dev/null 2>&1; then
    tools+=("$command")
    local package
    for package in "$@"; do
      packages+=("$package")
      reasons+=("$package: $why")
    done
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
  reasons+=("postgresql: the PostgreSQL store's tests and the postgres and warehouse use cases, against a real server")
}

check() {
  tools=()
  packages=()
  reasons=()
  want python3 "the webhook use case's receiver and the cloud stacks' status metric function" python3
  want hostname "the webhook use case's verification" hostname
  want psql "the postgres and warehouse use cases' verification (psql)" postgresql-client
  want redis-server "the redis use case, against a real Redis over TLS" redis-server
  want redis-cli "the redis use case's verification (tickets.sh verify runs redis-cli)" redis-tools
  want_postgres_server
  want runuser "the PostgreSQL tests, which run the server as postgres (it will not run as root)" util-linux
  want unshare "the IPv6 admission test and the service units' sandboxes (private network and mount namespaces)" util-linux
  want setpriv "the service unit sandbox test, which applies a unit's User= and capability bounds" util-linux
  want ip "the network namespaces of the IPv6 admission and enroll --listen tests" iproute2
  want docker-compose "the compose use cases' tests, which resolve the compiled compose files" docker-compose
  want chromium "the web console's tests, which Playwright drives in headless Chromium" chromium
  want curl "the installer tests, which run its own command line over HTTPS" curl ca-certificates
  want shellcheck "the tests that lint the shell scripts Portal ships" shellcheck
  want openssl "the sealing-key tests (openssl rand, which the hints give)" openssl
  want jq "docs/operating.md's walkthrough test (picks a member id out of --json)" jq
  want tar "the release and installer tests (release tarballs)" tar
  want systemd-analyze "the portal service install tests, which check the units it writes" systemd
  if [ "$toolchain" = yes ]; then
    want make "npm ci, which builds better-sqlite3 with node-gyp when it finds no prebuilt module" make
    want g++ "npm ci, which builds better-sqlite3 with node-gyp when it finds no prebuilt module" g++
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

lock_timeout=${PORTAL_APT_LOCK_TIMEOUT:-600}
if ! [[ "$lock_timeout" =~ ^[0-9]+$ ]]; then
  echo "test-prerequisites: PORTAL_APT_LOCK_TIMEOUT=$lock_timeout is not a number of seconds; give one, such as 600" >&2
  exit 2
fi
# The locks apt-get update and apt-get install take. apt-get waits for the second itself
# (DPkg::Lock::Timeout) but not for the first; both are waited for here, with a line that says why.
# Tests point these variables at locks of their own.
lists_lock=${TEST_PREREQUISITES_LISTS_LOCK:-/var/lib/apt/lists/lock}
dpkg_lock=${TEST_PREREQUISITES_DPKG_LOCK:-/var/lib/dpkg/lock-frontend}

# lock_holder FILE: prints the process that holds a lock on FILE (from /proc/locks); fails when none.
lock_holder() {
  local inode line
  inode=$(stat -c %i "$1" 2>/dev/null) || return 1
  [ -r /proc/locks ] || return 1
  while read -r line; do
    # 1: POSIX  ADVISORY  WRITE 2518 fe:00:399286 0 EOF (a waiter's line has "->" and holds nothing)
    read -r -a fields <<<"$line"
    if [ "${fields[1]}" != '->' ] && [ "${fields[5]##*:}" = "$inode" ]; then
      echo "${fields[4]}"
      return 0
    fi
  done </proc/locks
  return 1
}

# wait_for LOCK: waits while another install holds LOCK, saying so once; gives up after lock_timeout s.
wait_for() {
  local lock=$1 holder waited=0
  # Free only when two reads agree: /proc/locks is read in pieces, and a line can slip between two
  # pieces while other processes (a busy database) take and drop locks.
  while holder=$(lock_holder "$lock") || holder=$(lock_holder "$lock"); do
    if [ "$waited" -eq 0 ]; then
      echo "test-prerequisites: waiting for another package install (process $holder holds $lock), up to $lock_timeout s"
    fi
    if [ "$waited" -ge "$lock_timeout" ]; then
      echo "test-prerequisites: $lock is still held by process $holder after $lock_timeout s; let that install finish (or stop it) and run the tests again" >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

noun=packages
if [ "${#packages[@]}" -eq 1 ]; then noun=package; fi
echo "test-prerequisites: installing ${#packages[@]} Debian $noun with apt-get as root, for the tests that run these programs:"
for reason in "${reasons[@]}"; do echo "test-prerequisites:   $reason"; done
export DEBIAN_FRONTEND=noninteractive
lock=(-o "DPkg::Lock::Timeout=$lock_timeout")
wait_for "$lists_lock"
if ! "${as_root[@]}" apt-get "${lock[@]}" update -qq; then give_up; fi
wait_for "$dpkg_lock"
if ! "${as_root[@]}" apt-get "${lock[@]}" install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
  give_up
fi
hash -r
check
if [ "${#tools[@]}" -gt 0 ]; then give_up; fi
