#!/usr/bin/env python3
"""The Docker image (docker/), built and run with this machine's container runtime.

    python3 tests/docker/image_test.py --server build/cosmolite --work-dir build/docker-test

Packs the binary the build made into the image (docker/Dockerfile with ROOTFS_FROM=prebuilt, the
file system laid out by docker/collect-rootfs.sh), then:
1. the image is at most 60 MB and runs as an unprivileged user;
2. a container on a network of its own, with a volume at /data, prints the lines the Testcontainers
   modules wait for and answers GET /ready on its published port; its HEALTHCHECK passes;
3. the Node.js SDK on the host, trusting only the certificate from /_explorer/emulator.pem, writes
   and queries over HTTPS (docker/example-app/app.mjs);
4. the same app in another container reaches it by its network alias over HTTPS, as in
   docker/compose.yaml;
5. stopped (exit status 0) and replaced by a new container on the same volume (LOG_LEVEL=quiet,
   which must not hide the readiness lines), the data and the certificate authority are still there;
6. with the official vNext image's settings (PORT, PROTOCOL=http) and the classic image's
   AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=False, it listens where told, speaks plain HTTP and
   keeps nothing in /data.
Prints image size, start-to-ready (the runtime's start time to the readiness line) and idle RSS,
and writes them to WORK_DIR/measurements.json. Exits 77 (ctest reports the test as skipped, with
the reason printed) when the machine has no container runtime that answers; never passes silently.
"""
import argparse
import datetime
import json
import os
import re
import resource
import shutil
import ssl
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = "localhost/cosmolite:test"
CLIENT_IMAGE = "localhost/cosmolite-test-node:test"
# The binary and its libraries: SpiderMonkey (stored procedures, triggers, UDFs) is 31.5 MB of it.
IMAGE_BOUND_BYTES = 60 * 1000 * 1000
SKIP = 77

failures = []


def check(condition, message):
    print(("ok - " if condition else "not ok - ") + message, flush=True)
    if not condition:
        failures.append(message)


def run(command, check_status=True, timeout=600, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check_status and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


class Runtime:
    """podman (as root: chroot builds, explicit limits the sandbox allows) or a Docker engine."""

    def __init__(self):
        self.command = None
        for candidate in ("podman", "docker"):
            if shutil.which(candidate) and run([candidate, "info"], check_status=False, timeout=60).returncode == 0:
                self.command = candidate
                break

    def __call__(self, *args, check_status=True, timeout=600):
        return run([self.command, *args], check_status=check_status, timeout=timeout)

    def build_flags(self):
        return ["--isolation", "chroot", "--format", "docker"] if self.command == "podman" else []

    def run_flags(self):
        if self.command != "podman":
            return []
        # podman asks for more descriptors and processes than this process may have; ask for what it has.
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        return ["--ulimit", f"nofile={hard}:{hard}", "--ulimit", "nproc=4096:4096"]


def build_images(runtime, server, work_dir):
    context = os.path.join(work_dir, "context")
    run(["bash", os.path.join(ROOT, "docker", "collect-rootfs.sh"), server, os.path.join(context, "rootfs")])
    runtime("build", *runtime.build_flags(), "-f", os.path.join(ROOT, "docker", "Dockerfile"),
            "--build-arg", "ROOTFS_FROM=prebuilt", "-t", IMAGE, context)
    # A client container: this machine's node binary and the shared libraries it needs, no more.
    client = os.path.join(work_dir, "client")
    shutil.rmtree(client, ignore_errors=True)
    node = os.path.realpath(shutil.which("node"))
    os.makedirs(os.path.join(client, "rootfs", "usr", "bin"))
    shutil.copy(node, os.path.join(client, "rootfs", "usr", "bin", "node"))
    for line in run(["ldd", node]).stdout.splitlines():
        match = re.search(r"(/\S+) \(0x", line)
        if match:
            target = os.path.join(client, "rootfs", match.group(1).lstrip("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy(match.group(1), target)
    os.makedirs(os.path.join(client, "rootfs", "tmp"))
    with open(os.path.join(client, "Containerfile"), "w") as file:
        file.write("FROM scratch\nCOPY rootfs/ /\nENTRYPOINT [\"/usr/bin/node\"]\n")
    runtime("build", *runtime.build_flags(), "-f", os.path.join(client, "Containerfile"), "-t", CLIENT_IMAGE, client)


def logs(runtime, name):
    # As bytes: text mode would turn the "\r\n" Testcontainers for Java needs into "\n".
    result = subprocess.run([runtime.command, "logs", name], capture_output=True, timeout=60)
    return (result.stdout + result.stderr).decode(errors="replace")


def wait_for_line(runtime, name, pattern, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = logs(runtime, name)
        if re.search(pattern, text, re.MULTILINE):
            return text
        if runtime("inspect", "--format", "{{.State.Running}}", name).stdout.strip() != "true":
            break
        time.sleep(0.02)
    raise RuntimeError(f"{name} never printed {pattern!r}:\n{logs(runtime, name)}")


def host_port(runtime, name, container_port):
    text = runtime("port", name, f"{container_port}/tcp").stdout.strip().splitlines()[0]
    return int(text.rsplit(":", 1)[1])


def fetch(url, context=None, timeout=5):
    with urllib.request.urlopen(url, context=context, timeout=timeout) as response:
        return response.status, response.read()


def start_to_ready_ms(runtime, name, log_text):
    """From the runtime's start of the container to the timestamp of the line "Started"."""
    started = runtime("inspect", "--format", "{{.State.StartedAt}}", name).stdout.strip()
    match = re.match(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)\.?(\d*)", started)
    started_at = datetime.datetime.fromisoformat(f"{match.group(1)}T{match.group(2)}.{(match.group(3) + '000000')[:6]}")
    line = re.search(r"^(\S+) \S+ Started\r$", log_text, re.MULTILINE).group(1)
    ready_at = datetime.datetime.fromisoformat(line)
    return (ready_at - started_at).total_seconds() * 1000


def rss_kib(runtime, name):
    pid = runtime("inspect", "--format", "{{.State.Pid}}", name).stdout.strip()
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+) kB", status.read()).group(1))


def run_app(endpoint, app_dir):
    result = run(["node", os.path.join(app_dir, "app.mjs")], env={**os.environ, "COSMOS_ENDPOINT": endpoint}, timeout=120)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="the cosmolite binary to pack")
    parser.add_argument("--work-dir", required=True)
    args = parser.parse_args()

    runtime = Runtime()
    if not runtime.command:
        print("SKIP: no container runtime answers here (`podman info` and `docker info` both failed); "
              "`make test` installs podman (scripts/install-deps.sh container)", flush=True)
        return SKIP
    print(f"# container runtime: {runtime.command}", flush=True)
    work_dir = os.path.abspath(args.work_dir)
    os.makedirs(work_dir, exist_ok=True)
    # The example app beside the SDK the conformance suite installed.
    app_dir = os.path.join(work_dir, "app")
    os.makedirs(app_dir, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "docker", "example-app", "app.mjs"), app_dir)
    node_modules = os.path.join(ROOT, "conformance", "node_modules")
    if not os.path.islink(os.path.join(app_dir, "node_modules")):
        os.symlink(node_modules, os.path.join(app_dir, "node_modules"))

    suffix = str(os.getpid())
    network, volume = f"cosmolite-test-{suffix}", f"cosmolite-test-data-{suffix}"
    first, second, vnext, client = (f"cosmolite-test-{role}-{suffix}" for role in ("first", "second", "vnext", "client"))
    measurements = {}
    try:
        build_images(runtime, os.path.abspath(args.server), work_dir)
        size = int(runtime("image", "inspect", "--format", "{{.Size}}", IMAGE).stdout.strip())
        measurements["image_bytes"] = size
        check(size <= IMAGE_BOUND_BYTES, f"the image is {size / 1e6:.1f} MB (at most 60 MB)")
        user = runtime("image", "inspect", "--format", "{{.Config.User}}", IMAGE).stdout.strip()
        check(user not in ("", "0", "root") and not user.startswith("0:"), f"the image runs as user {user!r}, not root")

        runtime("network", "create", network)
        runtime("volume", "create", volume)
        base = ["run", "-d", *runtime.run_flags(), "--network", network]
        runtime(*base, "--name", first, "--network-alias", "cosmolite", "-e", "COSMOLITE_CERT_HOSTS=cosmolite",
                "-p", "127.0.0.1::8081", "-v", f"{volume}:/data", IMAGE)
        text = wait_for_line(runtime, first, r"Started\r$")
        check(re.search(r"Now listening on: https://0\.0\.0\.0:8081$", text, re.MULTILINE) is not None,
              "the log says 'Now listening on: https://0.0.0.0:8081' (Testcontainers for Node waits for it)")
        check(re.search(r"Started\r\n", text) is not None,
              "the log has a line ending 'Started\\r\\n' (Testcontainers for Java waits for exactly that)")
        measurements["start_to_ready_ms"] = round(start_to_ready_ms(runtime, first, text), 1)
        port = host_port(runtime, first, 8081)
        status, _ = fetch(f"http://127.0.0.1:{port}/ready")
        check(status == 200, "GET /ready on the published port answers 200")
        measurements["idle_rss_kib"] = rss_kib(runtime, first)
        # podman runs the image's HEALTHCHECK on demand; with Docker, run the command it names.
        health = (runtime("healthcheck", "run", first, check_status=False) if runtime.command == "podman"
                  else runtime("exec", first, "/usr/local/bin/cosmolite", "--probe", check_status=False))
        check(health.returncode == 0, "the HEALTHCHECK (cosmolite --probe) passes")

        status, authority = fetch(f"http://127.0.0.1:{port}/_explorer/emulator.pem")
        check(status == 200 and authority.startswith(b"-----BEGIN CERTIFICATE-----"), "emulator.pem is served")
        trusted = ssl.create_default_context(cadata=authority.decode())
        status, _ = fetch(f"https://localhost:{port}/_explorer/index.html", context=trusted)
        check(status == 200, "HTTPS to localhost verifies against emulator.pem alone")
        first_run = run_app(f"https://localhost:{port}/", app_dir)
        check(first_run["orders"] == [first_run["created"]], "the Node.js SDK on the host writes and queries over HTTPS")

        result = runtime("run", "--rm", *runtime.run_flags(), "--network", network, "--name", client,
                         "-e", "COSMOS_ENDPOINT=https://cosmolite:8081/",
                         "-v", f"{os.path.join(ROOT, 'docker', 'example-app', 'app.mjs')}:/app/app.mjs:ro",
                         "-v", f"{node_modules}:/app/node_modules:ro", CLIENT_IMAGE, "/app/app.mjs", check_status=False)
        check(result.returncode == 0, "another container reaches it as https://cosmolite:8081/ with the certificate trusted"
              + ("" if result.returncode == 0 else f": {result.stdout}{result.stderr}"))
        in_container = json.loads(result.stdout.strip().splitlines()[-1]) if result.returncode == 0 else {"orders": []}
        check(first_run["created"] in in_container["orders"], "the app container sees the order the host wrote")
        measurements["rss_after_work_kib"] = rss_kib(runtime, first)

        runtime("stop", "-t", "10", first)
        exit_code = runtime("inspect", "--format", "{{.State.ExitCode}}", first).stdout.strip()
        check(exit_code == "0", f"docker stop ends it with exit status 0 (got {exit_code})")
        runtime("rm", first)
        # Quiet, as vNext's LOG_LEVEL=quiet: the readiness lines are printed all the same.
        runtime(*base, "--name", second, "-e", "LOG_LEVEL=quiet", "-p", "127.0.0.1::8081", "-v", f"{volume}:/data", IMAGE)
        text = wait_for_line(runtime, second, r"Started\r$")
        check("cosmolite ready" not in text and "Now listening on: https://0.0.0.0:8081" in text,
              "with LOG_LEVEL=quiet only the readiness lines are printed")
        port = host_port(runtime, second, 8081)
        status, authority_after = fetch(f"http://127.0.0.1:{port}/_explorer/emulator.pem")
        check(authority_after == authority, "a new container on the same volume serves the same certificate authority")
        second_run = run_app(f"https://localhost:{port}/", app_dir)
        check(set(in_container["orders"]) | {first_run["created"]} <= set(second_run["orders"]),
              "the orders written before the restart are still there")

        runtime(*base, "--name", vnext, "-e", "PORT=9911", "-e", "PROTOCOL=http",
                "-e", "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=False",
                "-e", "AZURE_COSMOS_EMULATOR_PARTITION_COUNT=None", "-p", "127.0.0.1::9911", IMAGE)
        text = wait_for_line(runtime, vnext, r"Started\r$")
        check("Now listening on: http://0.0.0.0:9911" in text, "PORT and PROTOCOL=http are obeyed")
        check("ignored: AZURE_COSMOS_EMULATOR_PARTITION_COUNT=None" in text, "a setting without meaning here is named in the log")
        port = host_port(runtime, vnext, 9911)
        status, _ = fetch(f"http://127.0.0.1:{port}/ready")
        check(status == 200, "plain HTTP answers on the port PORT names")
        try:
            fetch(f"https://127.0.0.1:{port}/ready", context=ssl._create_unverified_context())
            check(False, "PROTOCOL=http refuses a TLS handshake")
        except OSError:
            check(True, "PROTOCOL=http refuses a TLS handshake")
        listing = runtime("exec", vnext, "/usr/local/bin/cosmolite", "--probe", check_status=False)
        check(listing.returncode == 0, "cosmolite --probe inside the container finds the server on PORT")
        check(re.search(r"ready in .* data in memory", text) is not None,
              "ENABLE_DATA_PERSISTENCE=False keeps the data in memory")
    except (RuntimeError, subprocess.TimeoutExpired, OSError, KeyError, ValueError) as error:
        check(False, f"unexpected: {error}")
    finally:
        for name in (first, second, vnext, client):
            runtime("rm", "-f", name, check_status=False)
        runtime("volume", "rm", "-f", volume, check_status=False)
        runtime("network", "rm", "-f", network, check_status=False)

    with open(os.path.join(work_dir, "measurements.json"), "w") as file:
        json.dump(measurements, file, indent=2)
    print("# " + json.dumps(measurements), flush=True)
    if failures:
        print(f"{len(failures)} failed", flush=True)
        return 1
    print("all passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
