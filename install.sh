#!/bin/sh
# Installs Portal for this user:
#
#   curl --proto '=https' --tlsv1.2 -sSfL https://portal.example.net/install.sh | sh
#   source "$HOME/.portal/env"
#
# The program goes to $PORTAL_HOME (default $HOME/.portal): lib/portal (the release), bin/portal, and
# env, which puts bin on PATH. Running it again replaces the program and keeps the node and controller
# state beside it. Nothing outside that folder is touched: no profile is edited, no root is needed.
#
# Which release:
#   PORTAL_RELEASE   a release tarball: a path, a file:// or an https:// address (or the first argument:
#                    … | sh -s -- ./portal-0.1.0-linux-x64.tgz)
#   PORTAL_VERSION   otherwise, this version from PORTAL_RELEASES_URL (default: latest)
#   PORTAL_RELEASES_URL  default https://portal.example.net/releases
#   PORTAL_NODE      the Node.js to run Portal with (default: node on PATH)
set -eu

say() { printf 'portal-install: %s\n' "$*"; }
fail() {
  printf 'portal-install: error: %s\n' "$*" >&2
  exit 1
}
# The value as the inside of a single-quoted shell word.
quoted() { printf '%s' "$1" | sed "s/'/'\\\\''/g"; }

# Everything runs from main, called on the last line: a download cut short runs nothing.
main() {
  INSTALL_DIR=${PORTAL_HOME:-${HOME:?set HOME or PORTAL_HOME to where Portal should be installed}/.portal}
  RELEASES_URL=${PORTAL_RELEASES_URL:-https://portal.example.net/releases}

  case $(uname -s) in
    Linux) platform=linux ;;
    Darwin) platform=darwin ;;
    *) fail "Portal releases are built for Linux and macOS, not $(uname -s)" ;;
  esac
  case $(uname -m) in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "Portal releases are built for x86_64 and arm64, not $(uname -m)" ;;
  esac
  release=${1:-${PORTAL_RELEASE:-$RELEASES_URL/portal-${PORTAL_VERSION:-latest}-$platform-$arch.tgz}}

  # PORTAL_NODE picks the Node.js that runs Portal (for example /usr/bin/node-24); default: node on PATH.
  node_path=${PORTAL_NODE:-$(command -v node || true)}
  [ -n "$node_path" ] && [ -x "$node_path" ] ||
    fail "Portal runs on Node.js 20.19 or later, and ${PORTAL_NODE:-node} is not there; install Node.js (your package manager or https://nodejs.org), then run this again"
  "$node_path" -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1)' ||
    fail "Portal needs Node.js 20.19 or later, and $node_path is $("$node_path" --version); upgrade Node.js, then run this again"
  command -v tar >/dev/null 2>&1 || fail "tar is needed to unpack the release; install it, then run this again"

  # A new folder is this user's alone (it will hold keys beside the program); an existing one keeps its
  # mode, such as the 755 of a system-wide install whose services run as another user.
  if [ ! -d "$INSTALL_DIR" ]; then
    mkdir -p "$INSTALL_DIR"
    chmod 700 "$INSTALL_DIR"
  fi
  mkdir -p "$INSTALL_DIR/lib" "$INSTALL_DIR/bin"
  INSTALL_DIR=$(cd "$INSTALL_DIR" && pwd)
  staging=$(mktemp -d "$INSTALL_DIR/lib/.install.XXXXXX")
  trap cleanup EXIT
  trap 'exit 1' INT TERM HUP

  say "fetching $release"
  case $release in
    https://*)
      command -v curl >/dev/null 2>&1 || fail "curl is needed to download $release; install it, then run this again"
      if ! curl --proto '=https' --tlsv1.2 -sSfL "$release" -o "$staging/release.tgz" 2>"$staging/curl.err"; then
        fail "cannot download $release ($(sed -n 's/^curl: ([0-9]*) //p' "$staging/curl.err" | head -n 1)); check the address (PORTAL_RELEASE, PORTAL_VERSION) and this machine's network"
      fi
      ;;
    file://*) local_release=${release#file://} ;;
    *://*) fail "refusing $release: a release is downloaded over https:// only, or read from a local path" ;;
    *) local_release=$release ;;
  esac
  if [ -n "${local_release:-}" ]; then
    [ -f "$local_release" ] || fail "no release tarball at $release; give a path or an https:// address"
    cp "$local_release" "$staging/release.tgz"
  fi

  mkdir "$staging/portal"
  if ! tar -xzf "$staging/release.tgz" -C "$staging/portal" --strip-components=1 2>"$staging/tar.err"; then
    fail "$release cannot be unpacked ($(sed -n "/./{p;q;}" "$staging/tar.err")); give a Portal release (portal-<version>-<platform>-<arch>.tgz)"
  fi
  [ -f "$staging/portal/dist/portal.mjs" ] || fail "$release holds no dist/portal.mjs: it is not a Portal release"
  version=$("$node_path" "$staging/portal/dist/portal.mjs" --version 2>/dev/null) ||
    fail "the release in $release does not run on $node_path ($("$node_path" --version)); install a release for Node.js 20.19 or later"

  # The embedded controller (portal enroll on an administrator's machine) loads one native module. The
  # release carries it for one platform and Node.js; for another, build it here. Nodes never need it.
  if ! controller_module_loads "$staging/portal"; then
    module_version=$("$node_path" -p 'require(process.argv[1]).dependencies["better-sqlite3"]' "$staging/portal/package.json" 2>/dev/null || echo latest)
    # The npm of that Node.js: npm-24 beside node-24 on Amazon Linux, else npm on PATH.
    npm_path=$(command -v "npm${node_path##*/node}" || command -v npm || true)
    say "building the controller's SQLite module for Node.js $("$node_path" --version) (needs npm, python3, make and g++)"
    if [ -z "$npm_path" ] ||
      ! (cd "$staging/portal" && "$npm_path" install --no-save --no-package-lock --no-audit --no-fund --omit=dev "better-sqlite3@$module_version" </dev/null >/dev/null 2>&1) ||
      ! controller_module_loads "$staging/portal"; then
      say "warning: the SQLite module could not be built: nodes work, but portal enroll (the embedded controller) will not; install npm, python3, make and g++, then run this again"
    fi
  fi

  # bin/portal runs the Node.js found now, or whichever is on PATH if that one goes away.
  {
    echo '#!/bin/sh'
    echo "node='$(quoted "$node_path")'"
    echo '[ -x "$node" ] || node=node'
    echo "exec \"\$node\" '$(quoted "$INSTALL_DIR")/lib/portal/dist/portal.mjs' \"\$@\""
  } >"$staging/portal.bin"
  chmod 755 "$staging/portal.bin"
  {
    echo "# Portal: puts portal on PATH. Load it with: . '$(quoted "$INSTALL_DIR")/env'"
    echo "portal_bin='$(quoted "$INSTALL_DIR")/bin'"
    echo 'case ":$PATH:" in'
    echo '  *":$portal_bin:"*) ;;'
    echo '  *) PATH="$portal_bin:$PATH" && export PATH ;;'
    echo 'esac'
    echo 'unset portal_bin'
    if [ "$INSTALL_DIR" != "$(cd "${HOME:-/}" && pwd)/.portal" ]; then echo "PORTAL_HOME='$(quoted "$INSTALL_DIR")' && export PORTAL_HOME"; fi
  } >"$staging/env"

  # The new release replaces the old one whole (cleanup puts the old one back if this is cut short);
  # the state beside it (node/, controller/, …) stays.
  rm -rf "$INSTALL_DIR/lib/portal.previous"
  if [ -d "$INSTALL_DIR/lib/portal" ]; then mv "$INSTALL_DIR/lib/portal" "$INSTALL_DIR/lib/portal.previous"; fi
  mv "$staging/portal" "$INSTALL_DIR/lib/portal"
  mv -f "$staging/portal.bin" "$INSTALL_DIR/bin/portal"
  mv -f "$staging/env" "$INSTALL_DIR/env"
  rm -rf "$INSTALL_DIR/lib/portal.previous"

  say "installed portal $version in $INSTALL_DIR"
  say "to use it in this shell: source \"$INSTALL_DIR/env\""
}

controller_module_loads() {
  (cd "$1" && "$node_path" -e 'const Database = require("better-sqlite3"); new Database(":memory:").close()') >/dev/null 2>&1
}

cleanup() {
  if [ ! -d "$INSTALL_DIR/lib/portal" ] && [ -d "$INSTALL_DIR/lib/portal.previous" ]; then
    mv "$INSTALL_DIR/lib/portal.previous" "$INSTALL_DIR/lib/portal"
  fi
  rm -rf "$staging"
}

main "$@"
