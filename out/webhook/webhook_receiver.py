#!/usr/bin/env python3
# Webhook receiver of the Generic webhook use case.
# Clients reach it through the inlet at http://localhost:17777/webhook.
"""Webhook receiver of a Portal use case (TITLE below).

Run on the outlet machine as /opt/webhook_receiver.py: it accepts POST PATH with a JSON body such
as {"from": "<hostname>"}, logs the body and an access-log line, and answers 200 "Webhook received".
The Portal outlet forwards to it at localhost:PORT; clients reach it through the inlet.
"""
import argparse
import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TITLE = "Generic webhook"
PATH = "/webhook"
PORT = 7777


class WebhookHandler(BaseHTTPRequestHandler):
    server_version = "PortalWebhookReceiver/1"

    def do_POST(self):
        if self.path != PATH:
            self.reply(404, "Not found: POST webhooks to " + PATH)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        try:
            payload = json.loads(body or b"null")
        except ValueError:
            self.reply(400, "Invalid JSON body")
            return
        print("Received webhook: " + json.dumps(payload), flush=True)
        self.reply(200, "Webhook received")

    def reply(self, status, text):
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        # The access-log line ("POST /path HTTP/1.1" 200 -), on stdout next to the received JSON.
        print("%s - - [%s] %s" % (self.address_string(), self.log_date_time_string(), format % args), flush=True)


def main():
    description = "Receive webhooks for Portal's %s use case." % TITLE
    # argparse %-formats a description only when it names %(prog); then a literal % must be doubled.
    parser = argparse.ArgumentParser(description=description.replace("%", "%%") if "%(prog)" in description else description)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: only the outlet reaches it)")
    parser.add_argument("--port", type=int, default=PORT, help="port to listen on (default %d; 0 picks a free one)" % PORT)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), WebhookHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    host, port = server.server_address[:2]
    print("Webhook receiver listening on %s:%d" % (host, port), flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
