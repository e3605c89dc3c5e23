#!/usr/bin/env python3
"""SIGTERM with idle keep-alive connections open: the server exits at once (under EXIT_BOUND_S).

    python3 tests/lifecycle/idle_connections_test.py --server build/cosmolite

An SDK keeps its connections open between requests. At shutdown the server closes each idle one; a
TLS close sends close_notify, and an idle client answers that only when it next reads, so the
server must not wait for the answer (it once did, until its 10 s shutdown grace ran out).
Starts cosmolite with TLS on a fresh data directory, answers one request on an HTTPS and on a
plain HTTP keep-alive connection, leaves both idle, sends SIGTERM and times the exit.
Standard library only; exits 1 on a failure.
"""
import argparse
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

EXIT_BOUND_S = 2.0


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answered(sock):
    sock.sendall(b"GET /alive HTTP/1.1\r\nHost: localhost\r\n\r\n")
    return sock.recv(4096).startswith(b"HTTP/1.1 200")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        server = subprocess.Popen([args.server, "--port", str(port), "--data-dir", data_dir, "--log-level", "warn"])
        try:
            for _ in range(500):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=1):
                        break
                except OSError:
                    time.sleep(0.01)
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            secure = context.wrap_socket(socket.create_connection(("127.0.0.1", port)))
            plain = socket.create_connection(("127.0.0.1", port))
            if not (answered(secure) and answered(plain)):
                print("FAIL: the server did not answer on both connections")
                return 1
            started = time.monotonic()
            server.terminate()
            status = server.wait(timeout=30)
            elapsed = time.monotonic() - started
            secure.close()
            plain.close()
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    print(f"exit status {status} after {elapsed:.2f} s with an idle HTTPS and an idle HTTP connection open")
    if status != 0 or elapsed > EXIT_BOUND_S:
        print(f"FAIL: expected status 0 within {EXIT_BOUND_S} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
