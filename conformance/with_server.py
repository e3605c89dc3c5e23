#!/usr/bin/env python3
"""Runs one command against a freshly started cosmolite, then stops the server.

    python3 conformance/with_server.py [--no-tls] [--in-memory] [-- server flags] -- command args...

Used by the Python, Java and Go conformance suites (the JavaScript suite starts its own servers).
The server gets a free port on 127.0.0.1 and a temporary data directory; the command sees:

    COSMOS_ENDPOINT     https://127.0.0.1:<port>/ (http:// with --no-tls)
    COSMOS_KEY          the account key
    COSMOS_CERT_PEM     the server's certificate, downloaded from /_explorer/emulator.pem (TLS only)
    COSMOLITE_MANAGED   "1": the suite may rely on emulator-only behaviour (restart, admin API)
    COSMOLITE_BIN       the binary, COSMOLITE_DATA_DIR its data directory

When COSMOS_ENDPOINT is already set, no server is started: the command runs against that endpoint
(the real service, the official emulator) and COSMOLITE_MANAGED is unset. The exit code is the
command's; the server's output is printed when the command fails.
"""
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

DEFAULT_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url, timeout=1.0):
    context = ssl._create_unverified_context()  # only to fetch the certificate we then trust
    with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
        return response.status, response.read()


def split_arguments(argv):
    """[own flags] [-- server flags] -- command: the last `--` starts the command."""
    if "--" not in argv:
        sys.exit("usage: with_server.py [--no-tls] [--in-memory] [-- server flags] -- command ...")
    last = len(argv) - 1 - argv[::-1].index("--")
    before, command = argv[:last], argv[last + 1:]
    if "--" in before:
        first = before.index("--")
        own, server_flags = before[:first], before[first + 1:]
    else:
        own, server_flags = before, []
    return own, server_flags, command


def start_server(own_flags, server_flags, data_dir, log):
    binary = os.environ.get("COSMOLITE_BIN") or os.path.join(HERE, "..", "build", "cosmolite")
    binary = os.path.abspath(binary)
    if not os.path.exists(binary):
        sys.exit(f"with_server: no server binary at {binary} (build it, or set COSMOLITE_BIN)")
    tls = "--no-tls" not in own_flags
    for attempt in range(3):
        port = free_port()
        args = [binary, "--port", str(port), "--host", "127.0.0.1", "--key", DEFAULT_KEY, "--log-level", "warn"]
        args += ["--in-memory"] if "--in-memory" in own_flags else ["--data-dir", data_dir]
        if not tls:
            args.append("--no-tls")
        args += server_flags
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        endpoint = f"{'https' if tls else 'http'}://127.0.0.1:{port}/"
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if fetch(endpoint + "ready")[0] == 200:
                    return process, endpoint, binary, tls
            except OSError:
                time.sleep(0.05)
        process.kill()
        process.wait()
    sys.exit("with_server: cosmolite did not become ready")


def main():
    own_flags, server_flags, command = split_arguments(sys.argv[1:])
    environment = dict(os.environ)
    if environment.get("COSMOS_ENDPOINT"):
        environment.pop("COSMOLITE_MANAGED", None)
        environment.setdefault("COSMOS_KEY", DEFAULT_KEY)
        sys.exit(subprocess.call(command, env=environment))

    with tempfile.TemporaryDirectory(prefix="cosmolite-conformance-") as data_dir, \
            tempfile.TemporaryFile(mode="w+") as log:
        process, endpoint, binary, tls = start_server(own_flags, server_flags, data_dir, log)
        environment.update(COSMOS_ENDPOINT=endpoint, COSMOS_KEY=DEFAULT_KEY, COSMOLITE_MANAGED="1",
                           COSMOLITE_BIN=binary, COSMOLITE_DATA_DIR=data_dir)
        if tls:
            pem_path = os.path.join(data_dir, "conformance-emulator.pem")
            with open(pem_path, "wb") as pem:
                pem.write(fetch(endpoint + "_explorer/emulator.pem", timeout=5)[1])
            environment["COSMOS_CERT_PEM"] = pem_path
        try:
            code = subprocess.call(command, env=environment)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if code != 0 or process.returncode not in (0, -signal.SIGTERM):
            log.seek(0)
            sys.stderr.write(f"--- cosmolite output (exit {process.returncode}) ---\n{log.read()[-20000:]}")
            code = code or 1
        sys.exit(code)


if __name__ == "__main__":
    main()
