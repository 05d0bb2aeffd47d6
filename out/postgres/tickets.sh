#!/usr/bin/env bash
# Portal, PostgreSQL database use case: the administrator's commands.
#
#   ./tickets.sh [tickets] CONTROLLER   install portal if needed, enroll, write outlet.ticket and inlet.ticket
#   ./tickets.sh verify                 check the portal through the inlet (INLET_HOST: where it is, default localhost;
#                                       INLET_PORT: its port, default the manifest's)
#   ./tickets.sh cleanup                delete both stacks, revoke this use case's nodes and cancel its unused tickets,
#                                       then remove this machine's portal configuration; an embedded controller that
#                                       still serves other use cases stays unless a terminal or --delete-controller
#                                       confirms deleting it
#
# CONTROLLER says where the nodes enroll: an address that both of them reach (README.md, step 3).
#   --controller HOST:PORT --code CODE  a controller that portal controller start runs, and the admin code it printed
#                                       (or PORTAL_CONTROLLER and PORTAL_ADMIN_CODE)
#   --public-address HOST:PORT          the embedded controller, on this machine, which the nodes reach at HOST:PORT
#                                       (or PORTAL_PUBLIC_ADDRESS)
#   --local                             the embedded controller on loopback: for nodes on this machine only
# A machine enrolled already issues tickets from its controller and takes none of these.
# PORTAL_INSTALL_URL: the address of install.sh, when portal is not installed here yet.
#
# Launch the outlet with outlet.ticket, then the inlet with inlet.ticket, between the first two steps
# (see README.md).
set -euo pipefail

usage() {
  echo "usage: $0 [tickets] [--controller HOST:PORT --code CODE | --public-address HOST:PORT | --local]" >&2
  echo "       $0 verify | cleanup [--delete-controller]" >&2
  exit 2
}

COMMAND=tickets
CONTROLLER=''
CONTROLLER="${PORTAL_CONTROLLER:-$CONTROLLER}"
ADMIN_CODE="${PORTAL_ADMIN_CODE:-}"
PUBLIC_ADDRESS="${PORTAL_PUBLIC_ADDRESS:-}"
LOCAL=no
DELETE_CONTROLLER=no
INSTALL_URL=''
INSTALL_URL="${PORTAL_INSTALL_URL:-$INSTALL_URL}"
while [ $# -gt 0 ]; do
  case "$1" in
    tickets | verify | cleanup) COMMAND=$1 ;;
    --controller) [ $# -ge 2 ] || usage; CONTROLLER=$2; shift ;;
    --code) [ $# -ge 2 ] || usage; ADMIN_CODE=$2; shift ;;
    --public-address) [ $# -ge 2 ] || usage; PUBLIC_ADDRESS=$2; shift ;;
    --local) LOCAL=yes ;;
    --delete-controller) DELETE_CONTROLLER=yes ;;
    *) usage ;;
  esac
  shift
done

install_portal() {
  if ! command -v portal >/dev/null 2>&1; then
    if [ -z "$INSTALL_URL" ]; then
      echo "portal is not installed: install it from a release (README.md, step 2), or set PORTAL_INSTALL_URL to the address of your install.sh" >&2
      exit 2
    fi
    curl --proto '=https' --tlsv1.2 -sSfL "$INSTALL_URL" | sh
    source "$HOME/.portal/env"
  fi
}

enroll() {
  if ENROLLED=$(portal project show --jq .controller 2>/dev/null); then
    echo "Enrolled already: the tickets come from the controller at $ENROLLED."
  elif [ -n "$CONTROLLER" ]; then
    if [ -z "$ADMIN_CODE" ]; then
      echo "--controller $CONTROLLER needs --code CODE (or PORTAL_ADMIN_CODE): the admin code portal controller start printed" >&2
      exit 2
    fi
    portal enroll --controller "$CONTROLLER" --code "$ADMIN_CODE"
  elif [ -n "$PUBLIC_ADDRESS" ]; then
    portal enroll --listen "0.0.0.0:${PUBLIC_ADDRESS##*:}" --public-address "$PUBLIC_ADDRESS"
  elif [ "$LOCAL" = yes ]; then
    portal enroll
  else
    echo "say where the nodes enroll: --controller HOST:PORT --code CODE, --public-address HOST:PORT, or --local for nodes on this machine only (README.md, step 3)" >&2
    usage
  fi
  ENROLLED=$(portal project show --jq .controller)
  case "$ENROLLED" in
    127.* | localhost:* | \[::1\]:*)
      if [ "$LOCAL" != yes ]; then
        echo "the tickets would name the controller at $ENROLLED, which only this machine reaches; enroll where the nodes reach it (README.md, step 3), or give --local to keep every node on this machine" >&2
        exit 2
      fi
      ;;
  esac
}

issue_tickets() {
  enroll
  # Tickets are secrets until used: readable by this user only.
  umask 077
  portal project ticket --expires-in 10h --usage-count 1 --attribute postgres-outlet --relay postgres > outlet.ticket
  portal project ticket --expires-in 10h --usage-count 1 --attribute postgres-inlet > inlet.ticket
  echo "Wrote outlet.ticket (for the postgres-outlet node) and inlet.ticket (for the postgres-inlet node)."
}

verify() {
  INLET_HOST="${INLET_HOST:-localhost}"
  INLET_PORT="${INLET_PORT:-15432}"
  : "${PGUSER:?set PGUSER, PGPASSWORD and PGDATABASE to the database user, password and name}"
  export PGHOST="${PGHOST:-$INLET_HOST}" PGPORT="${PGPORT:-$INLET_PORT}"
  psql -c '\dt'
  psql -c "CREATE TABLE portal_check (key VARCHAR(255), value VARCHAR(255));"
  psql -c "INSERT INTO portal_check (key, value) VALUES ('portal', 'it works');"
  psql -c "SELECT * FROM portal_check;"
  psql -c "DROP TABLE IF EXISTS portal_check;"
}

cleanup() {
  if command -v aws >/dev/null 2>&1; then
    aws cloudformation delete-stack --stack-name postgres-inlet
    aws cloudformation delete-stack --stack-name postgres-outlet
    echo "The stacks keep each node's file system, sealing-key secret and status log group; README.md, step 7, says how to remove them."
  fi
  # This use case's nodes and tickets only (the controller may serve others), and before the
  # configuration goes: without it nobody here could revoke them any more.
  ADMINISTERS=yes
  portal project show --jq .id >/dev/null 2>&1 || ADMINISTERS=$?
  case "$ADMINISTERS" in
    yes)
      portal project retire --attribute postgres-outlet --relay postgres --reason 'use case postgres: ./tickets.sh cleanup'
      portal project retire --attribute postgres-inlet --reason 'use case postgres: ./tickets.sh cleanup'
      ;;
    2) echo "This machine administers no project: no node or ticket to take out." ;;
    *)
      echo "the controller does not answer (portal project show), so this use case's nodes cannot be revoked; this machine's portal configuration stays: run $0 cleanup again once it answers" >&2
      exit 1
      ;;
  esac
  if [ "$DELETE_CONTROLLER" = yes ]; then
    portal reset --yes --delete-controller
  else
    portal reset --yes
  fi
}

case "$COMMAND" in
  tickets) install_portal && issue_tickets ;;
  verify) verify ;;
  cleanup) cleanup ;;
esac
