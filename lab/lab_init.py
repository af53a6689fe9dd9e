"""PID 1 of a lab host (copied into the host as /usr/local/sbin/scc-lab-init).

Runs inside the host's own PID namespace, after the chroot. It starts sshd in the foreground,
reaps every orphan (mpirun's orted and ssh sessions end up as its children), and on SIGTERM
ends every process of the host before it exits, so that stopping this one process stops the
whole host. Only the Python standard library: it runs on the host's own python3.
"""

import os
import signal
import sys
import time

sshd_pid = None


def stop(_signum, _frame):
    # kill(-1) from PID 1 of a namespace reaches every other process of that namespace only.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(-1, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    time.sleep(0.05)
            except ChildProcessError:
                sys.exit(0)
    sys.exit(0)


def main():
    global sshd_pid
    address = sys.argv[1]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    sshd_pid = os.spawnv(
        os.P_NOWAIT, "/usr/sbin/sshd", ["/usr/sbin/sshd", "-D", "-e", "-o", f"ListenAddress={address}"]
    )
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            time.sleep(0.5)
            continue
        except InterruptedError:
            continue
        if pid == sshd_pid:
            print(f"scc-lab-init: sshd exited with status {status}; stopping the host", flush=True)
            stop(None, None)


if __name__ == "__main__":
    main()
