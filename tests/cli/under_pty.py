#!/usr/bin/env python3
"""Runs a command with its standard output and error on a pseudo-terminal and writes what the
terminal got to OUT; exits with the command's status (128 + N when signal N ended it).

  under_pty.py [--no-pty] [--pause-while-reading FILE] OUT CMD [ARG...]

--no-pty: the same run without a terminal: standard output and error go to OUT, a plain file.

--pause-while-reading FILE: stops the command (SIGSTOP) for PAUSE_S once it has read part of FILE
but not all of it, then lets it go on. `abloom build` draws its progress line at most every 250 ms
and may read a whole test input in less; after the pause that much time has passed, so the batch
that follows draws the line on any machine. Until then the command runs in steps of STEP_S,
stopped between them, so that it cannot read all of FILE before it is seen reading it. Exit
status 3 when it did all the same, or ended first: the run tested nothing.

The abloom command's tests (tests/cli/cli_test.sh, group progress) run `abloom build` under it.
"""

import argparse
import os
import signal
import sys
import threading
import time

PAUSE_S = 0.5  # twice the progress line's 250 ms
STEP_S = 0.001


class Child:
    """The command, started stopped when it is to be paused (so that no step of it goes unseen)."""

    def __init__(self, cmd, out_fd, start_stopped):
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.dup2(out_fd, 1)
                os.dup2(out_fd, 2)
                if start_stopped:
                    os.kill(os.getpid(), signal.SIGSTOP)
                os.execvp(cmd[0], cmd)
            finally:
                os._exit(127)  # exec failed (execvp raised); the parent sees 127
        self.status = None  # the wait status, once the command has ended

    def stop(self):
        """Stops the command; False when it had ended instead."""
        os.kill(self.pid, signal.SIGSTOP)
        return self.wait_stopped()

    def wait_stopped(self):
        """Waits until the command has stopped; False when it ended instead."""
        _, status = os.waitpid(self.pid, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            return True
        self.status = status
        return False

    def step(self):
        """Lets the stopped command run for STEP_S; False when it ended in that time."""
        os.kill(self.pid, signal.SIGCONT)
        time.sleep(STEP_S)
        return self.stop()

    def wait(self):
        if self.status is None:
            _, self.status = os.waitpid(self.pid, 0)
        if os.WIFSIGNALED(self.status):
            return 128 + os.WTERMSIG(self.status)
        return os.WEXITSTATUS(self.status)


def bytes_read(pid):
    """The bytes the command's read(2)s and pread(2)s returned so far (/proc/PID/io rchar): how
    far a command that reads a file by ranges with pread, whose offset stays 0, has got."""
    try:
        with open(f"/proc/{pid}/io", encoding="ascii") as io:
            for line in io:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def read_offset(pid, file_id):
    """How far the command has read the file (st_dev, st_ino): its descriptor's offset, or for
    pread (the offset stays 0) the bytes it has read, or None if it has none open on it."""
    fd_dir = f"/proc/{pid}/fd"
    for name in os.listdir(fd_dir):
        try:
            st = os.stat(os.path.join(fd_dir, name))
            if (st.st_dev, st.st_ino) != file_id:
                continue
            with open(f"/proc/{pid}/fdinfo/{name}", encoding="ascii") as info:
                for line in info:
                    if line.startswith("pos:"):
                        pos = int(line.split()[1])
                        if pos > 0:
                            return pos
                        # rchar also counts the loader's reads of the libraries (some KB), so
                        # it stands for the file's bytes only once it is well past them.
                        rchar = bytes_read(pid)
                        return rchar if rchar >= 256 * 1024 else 0
        except FileNotFoundError:  # closed since listdir
            continue
    return None


def pause_while_reading(child, path):
    """None once the command was paused part-way through `path`; else why it was not."""
    st = os.stat(path)
    file_id = (st.st_dev, st.st_ino)
    if not child.wait_stopped():  # its own SIGSTOP, before exec
        return "the command ended before it started"
    while True:
        if not child.step():
            return f"the command ended before it was seen reading {path}"
        offset = read_offset(child.pid, file_id)
        if offset:
            break
    if offset >= st.st_size:
        return f"the command had read all of {path} ({offset} bytes) before it was paused"
    time.sleep(PAUSE_S)
    os.kill(child.pid, signal.SIGCONT)
    return None


def drain(master, sink):
    """Everything the terminal gets, until the command and its children have all closed it."""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: no writer is left
            return
        if not data:
            return
        sink.append(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-pty", action="store_true")
    parser.add_argument("--pause-while-reading", metavar="FILE")
    parser.add_argument("out")
    parser.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if not args.cmd:
        parser.error("no command")

    captured = []
    reader = None
    if args.no_pty:
        out_fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    else:
        master, out_fd = os.openpty()
        reader = threading.Thread(target=drain, args=(master, captured))
    child = Child(args.cmd, out_fd, start_stopped=args.pause_while_reading is not None)
    os.close(out_fd)  # the command's copy is the only writer left: EOF (EIO) when it ends
    if reader:
        reader.start()
    error = None
    if args.pause_while_reading:
        error = pause_while_reading(child, args.pause_while_reading)
        if error:
            os.kill(child.pid, signal.SIGCONT)  # let it finish, so that it can be waited for
    status = child.wait()
    if reader:
        reader.join()
        with open(args.out, "wb") as out:
            out.write(b"".join(captured))
    if error:
        print(f"under_pty.py: {error}", file=sys.stderr)
        return 3
    return status


if __name__ == "__main__":
    sys.exit(main())
