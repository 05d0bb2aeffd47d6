#!/usr/bin/env bash
# Portal, PostgreSQL database use case: the administrator's commands.
#
#   ./tickets.sh            install portal if needed, enroll, write outlet.ticket and inlet.ticket
#   ./tickets.sh verify     check the portal from the inlet machine
#   ./tickets.sh cleanup    delete both stacks and remove this machine's portal configuration
#
# Launch the outlet with outlet.ticket, then the inlet with inlet.ticket, between the first two steps
# (see README.md).
set -euo pipefail

install_portal() {
  if ! command -v portal >/dev/null 2>&1; then
    curl --proto '=https' --tlsv1.2 -sSfL https://portal.example.net/install.sh | sh
    source "$HOME/.portal/env"
  fi
}

issue_tickets() {
  portal enroll
  # Tickets are secrets until used: readable by this user only.
  umask 077
  portal project ticket --expires-in 10h --usage-count 1 --attribute postgres-outlet --relay postgres > outlet.ticket
  portal project ticket --expires-in 10h --usage-count 1 --attribute postgres-inlet > inlet.ticket
  echo "Wrote outlet.ticket (for the postgres-outlet node) and inlet.ticket (for the postgres-inlet node)."
}

verify() {
  : "${PGUSER:?set PGUSER, PGPASSWORD and PGDATABASE to the database user, password and name}"
  INLET_PORT=15432
  export PGHOST="${PGHOST:-localhost}" PGPORT="${PGPORT:-$INLET_PORT}"
  psql -c '\dt'
  psql -c "CREATE TABLE portal_check (key VARCHAR(255), value VARCHAR(255));"
  psql -c "INSERT INTO portal_check (key, value) VALUES ('portal', 'it works');"
  psql -c "SELECT * FROM portal_check;"
  psql -c "DROP TABLE IF EXISTS portal_check;"
}

cleanup() {
  aws cloudformation delete-stack --stack-name postgres-inlet
  aws cloudformation delete-stack --stack-name postgres-outlet
  portal reset --yes
  echo "The stacks keep each node's file system, sealing-key secret and status log group; README.md, step 7, says how to remove them."
}

case "${1:-tickets}" in
  tickets) install_portal && issue_tickets ;;
  verify) verify ;;
  cleanup) cleanup ;;
  *) echo "usage: $0 [tickets|verify|cleanup]" >&2; exit 2 ;;
esac
