#!/usr/bin/env python3
"""Clients whose transfers a test cuts short, reading their sockets as the kernel reports them.

    python3 cut-clients.py PORT CLIENTS BYTES CUT_AFTER

Opens CLIENTS connections to 127.0.0.1:PORT one after another, then each sends BYTES random bytes,
half-closes, and reads the answer to its end with recv(). Each client's bytes are one random block of
its own sent again and again, each time under its number (so that no block passes for another), rather
than BYTES made at once: fresh memory is costly, and 20 clients of 32 MiB would take 640 MiB.

Prints JSON lines: {"event": "connected"} once all are open, {"event": "cut", ...} once every client
has sent everything and CUT_AFTER bytes have come back in all (the moment the test cuts the path), and
last {"event": "done", "outcomes": [...]}.

Why not Node.js: libuv reports a reset that arrives while received bytes still wait in the socket as
an end of stream (a partial read and POLLHUP make it call EOF, and the ECONNRESET is never read), so a
Node client cannot tell a reset from an end. recv() can: it returns b"" only after the peer's FIN,
and raises ECONNRESET after a reset once the bytes before it are read. Each client is done sending
before anything is cut, so no write of its own takes the reset's error first.
"""
import errno
import hashlib
import json
import os
import socket
import sys
import threading
import time

port, clients, size, cut_after = (int(value) for value in sys.argv[1:5])
lock = threading.Lock()
progress = {"received": 0, "sent": 0, "cut": False}


def say(message):
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def cut_if_due():
    """Called with the lock held."""
    if not progress["cut"] and progress["sent"] == clients and progress["received"] >= cut_after:
        progress["cut"] = True
        sys.stdout.write(json.dumps({"event": "cut", "received": progress["received"], "sent": progress["sent"]}) + "\n")
        sys.stdout.flush()


BLOCK = 1 << 20


def blocks(size):
    """The client's bytes: a random block, each copy numbered in its first 8 bytes, cut to `size`."""
    block = bytearray(os.urandom(BLOCK))
    for number, start in enumerate(range(0, size, BLOCK)):
        block[:8] = number.to_bytes(8, "big")
        yield bytes(block[: min(BLOCK, size - start)])


def run(index, sock, outcomes):
    sent = hashlib.sha256()
    digest = hashlib.sha256()
    received = 0
    end = "eof"
    error = None
    sock.settimeout(120)
    try:
        for block in blocks(size):
            sent.update(block)
            sock.sendall(block)
        sock.shutdown(socket.SHUT_WR)
        expected = sent.hexdigest()
    except OSError as failure:
        outcomes[index] = {"index": index, "received": 0, "intact": False, "end": "send-error", "error": errno.errorcode.get(failure.errno, str(failure))}
        return
    with lock:
        progress["sent"] += 1
        cut_if_due()
    while True:
        try:
            chunk = sock.recv(1 << 16)
        except socket.timeout:
            end, error = "timeout", None
            break
        except OSError as failure:
            end, error = "error", errno.errorcode.get(failure.errno, str(failure))
            break
        if not chunk:
            break
        digest.update(chunk)
        received += len(chunk)
        with lock:
            progress["received"] += len(chunk)
            cut_if_due()
    sock.close()
    outcomes[index] = {"index": index, "received": received, "intact": received == size and digest.hexdigest() == expected, "end": end, "error": error}


def main():
    sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(clients)]
    say({"event": "connected", "clients": clients})
    started = time.monotonic()
    outcomes = [None] * clients
    threads = [threading.Thread(target=run, args=(index, sock, outcomes)) for index, sock in enumerate(sockets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    say({"event": "done", "seconds": round(time.monotonic() - started, 1), "outcomes": outcomes})


main()
