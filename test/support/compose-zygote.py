"""docker-compose for the lanes of one `npm test`, imported once.

Starting Debian's docker-compose costs about 0.7 s of CPU on the 2-core test machines, nearly all of it
importing, and the suite runs it some thirty times. This process imports it once; each command is run
by docker-compose's own main() in a child forked for it, with the caller's standard descriptors, folder,
environment and words, and its exit code goes back to the caller. scripts/test-run.mjs starts it and
puts a `docker-compose` that asks it (compose-client.py) first on the lanes' PATH; a caller that cannot
reach it runs the real program.

    python3 compose-zygote.py SOCKET
"""
import json
import os
import signal
import socket
import sys
import traceback

from compose.cli.main import main as compose_main


def exit_code(ended):
    if ended.code is None:
        return 0
    return ended.code if isinstance(ended.code, int) else 1


def serve(connection):
    """Runs one command as the caller asked; returns its exit code, which the caller also gets."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    message, descriptors, _flags, _address = socket.recv_fds(connection, 1 << 20, 3)
    request = json.loads(message)
    for target, descriptor in enumerate(descriptors):
        os.dup2(descriptor, target)
        if descriptor > 2:
            os.close(descriptor)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = request["argv"]
    code = 0
    try:
        compose_main()
    except SystemExit as ended:
        code = exit_code(ended)
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            pass
    connection.sendall(str(code).encode())
    return code


def reap(_signal, _frame):
    """Waits for the children that ended, so that their CPU counts in this process's children's."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sys.argv[1])
    server.listen(64)
    # Each child resets this for the programs it may wait for itself.
    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGTERM, lambda _signal, _frame: sys.exit(0))
    # A runner that was killed outright cannot stop it: it stops once it has no parent.
    parent = os.getppid()
    server.settimeout(2)
    while True:
        try:
            connection, _address = server.accept()
        except socket.timeout:
            if os.getppid() != parent:
                return
            continue
        connection.settimeout(None)
        if os.fork() == 0:
            server.close()
            code = 1
            try:
                code = serve(connection)
            except BaseException:
                traceback.print_exc()
            os._exit(code)
        connection.close()


if __name__ == "__main__":
    main()
