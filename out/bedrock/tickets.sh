#!/usr/bin/env bash
# Portal, Foundation-model runtime use case: the administrator's commands.
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
  portal project ticket --expires-in 10h --usage-count 1 --attribute bedrock-outlet --relay bedrock > outlet.ticket
  portal project ticket --expires-in 10h --usage-count 1 --attribute bedrock-inlet --tls > inlet.ticket
  echo "Wrote outlet.ticket (for the bedrock-outlet node) and inlet.ticket (for the bedrock-inlet node)."
}

verify() {
  REGION=us-east-1
  export AWS_REGION="${AWS_REGION:-$REGION}"
  PROJECT_ID=$(portal project show --jq .id)
  NETWORK_DOMAIN=$(portal project show --jq .network_domain)
  INLET_HOST="bedrock.$PROJECT_ID.$NETWORK_DOMAIN"
  if ! getent hosts "$INLET_HOST" >/dev/null; then
    echo "$INLET_HOST does not resolve: add a DNS record or a hosts entry pointing at the inlet (README.md, step 6)" >&2
    exit 1
  fi
  # The inlet's certificate is signed by the project's certificate authority.
  portal project ca > project-ca.pem
  export AWS_CA_BUNDLE="$PWD/project-ca.pem"
  aws bedrock-runtime invoke-model \
    --endpoint-url "https://$INLET_HOST" \
    --model-id amazon.titan-text-express-v1 \
    --body '{"inputText":"Explain in one sentence what an end-to-end encrypted tunnel is.","textGenerationConfig":{"maxTokenCount":256,"temperature":0.5,"topP":0.9}}' \
    --cli-binary-format raw-in-base64-out \
    output.json
  cat output.json
  echo
}

cleanup() {
  aws cloudformation delete-stack --stack-name bedrock-inlet
  aws cloudformation delete-stack --stack-name bedrock-outlet
  portal reset --yes
  echo "The stacks keep each node's file system, sealing-key secret and status log group; README.md, step 7, says how to remove them."
}

case "${1:-tickets}" in
  tickets) install_portal && issue_tickets ;;
  verify) verify ;;
  cleanup) cleanup ;;
  *) echo "usage: $0 [tickets|verify|cleanup]" >&2; exit 2 ;;
esac
