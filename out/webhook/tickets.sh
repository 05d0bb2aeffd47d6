#!/usr/bin/env bash
# Portal, Generic webhook use case: the administrator's commands.
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
  portal project ticket --expires-in 10h --usage-count 1 --attribute webhook-outlet --relay webhook > outlet.ticket
  portal project ticket --expires-in 10h --usage-count 1 --attribute webhook-inlet > inlet.ticket
  echo "Wrote outlet.ticket (for the webhook-outlet node) and inlet.ticket (for the webhook-inlet node)."
}

verify() {
  curl -sS --fail-with-body -X POST "http://localhost:17777/webhook" \
    -H 'Content-Type: application/json' \
    -d "{\"from\": \"$(hostname)\"}"
  echo
}

cleanup() {
  aws cloudformation delete-stack --stack-name webhook-inlet
  aws cloudformation delete-stack --stack-name webhook-outlet
  portal reset --yes
  echo "The stacks keep each node's file system, sealing-key secret and status log group; README.md, step 7, says how to remove them."
}

case "${1:-tickets}" in
  tickets) install_portal && issue_tickets ;;
  verify) verify ;;
  cleanup) cleanup ;;
  *) echo "usage: $0 [tickets|verify|cleanup]" >&2; exit 2 ;;
esac
