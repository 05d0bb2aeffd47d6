"""Runs a command under a pseudo-terminal and types an answer once a prompt shows.

usage: pty-answer.py PROMPT ANSWER COMMAND [ARG...]
Prints everything the command wrote to the terminal (the answer's echo included) and exits with its
exit code: what a person at a terminal would see.
"""
import os
import pty
import sys

prompt, answer, command = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3:]
pid, terminal = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
seen = b""
answered = False
while True:
    try:
        data = os.read(terminal, 4096)
    except OSError:  # EIO: the command closed the terminal
        break
    if not data:
        break
    seen += data
    if not answered and prompt in seen:
        os.write(terminal, answer + b"\n")
        answered = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
