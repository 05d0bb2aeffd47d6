"""`docker-compose` on the lanes' PATH: asks the run's compose-zygote.py, or runs the real program.

scripts/test-run.mjs writes this file as bin/docker-compose in the run's folder, with the zygote's socket
and the real program's path in place of the two names below.
"""
import json
import os
import socket
import sys

ZYGOTE_SOCKET = "@socket@"
REAL_PROGRAM = "@program@"

client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    client.connect(ZYGOTE_SOCKET)
except OSError:
    os.execv(REAL_PROGRAM, [REAL_PROGRAM, *sys.argv[1:]])
request = {"argv": ["docker-compose", *sys.argv[1:]], "cwd": os.getcwd(), "env": dict(os.environ)}
socket.send_fds(client, [json.dumps(request).encode()], [0, 1, 2])
answer = b""
while part := client.recv(64):
    answer += part
sys.exit(int(answer) if answer else 1)
