#!/usr/bin/env python3
"""Instructions per create: the server's CPU work for one point create, counted, not timed.

Runs cosmolite under valgrind's callgrind twice, serving N and then 4N creates over plain HTTP
(cosmolite_bench --workload create, 8 connections), and divides the difference of the two
instruction totals by 3N, so that start-up and set-up cancel out. Callgrind counts user-space
instructions exactly, so two builds compare within about 0.5% on a shared machine where timings
move by 5% (perf has no hardware counters in a VM). Kernel work (sockets, syscalls) is not counted.

  python3 bench/create_instructions.py [--binary build/cosmolite] [--baseline other/cosmolite]
                                       [--creates 1000] [--top 25]

With --baseline, both binaries are measured and the ratio printed. --top lists the functions with
the most instructions per create (inclusive) in the larger run of the first binary.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_ready(port, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server under callgrind did not become ready")


def total_instructions(binary, load_generator, creates, out_file):
    """Instructions of a server process that started, served `creates` creates and stopped."""
    port = free_port()
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", binary, "--port", str(port),
         "--no-tls", "--in-memory", "--log-level", "warn", "--threads", "1", "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(port)
        subprocess.run([load_generator, "--port", str(port), "--workload", "create", "--connections", "8",
                        "--warmup", "0", "--requests", str(creates), "--setup-timeout", "600", "--check"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        server.terminate()
        server.wait(timeout=120)
    with open(out_file) as out:
        for line in out:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


def per_create(binary, load_generator, creates, work_dir, label):
    small = total_instructions(binary, load_generator, creates, os.path.join(work_dir, f"{label}.small.out"))
    large_out = os.path.join(work_dir, f"{label}.large.out")
    large = total_instructions(binary, load_generator, 4 * creates, large_out)
    return (large - small) / (3 * creates), large_out


def top_functions(out_file, creates, count):
    """The functions with the most inclusive instructions, per create of the run."""
    listing = subprocess.run(["callgrind_annotate", "--inclusive=yes", out_file],
                             check=True, capture_output=True, text=True).stdout
    rows = []
    for line in listing.splitlines():
        match = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+\S*?:(.*?)(?: \[.*\])?$", line)
        if match:
            name = re.sub(r"\(.*", "", match.group(2))  # drop the argument list
            rows.append((int(match.group(1).replace(",", "")), name))
    return [(instructions / creates, name) for instructions, name in rows[:count]]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(HERE, "..", "build", "cosmolite"))
    parser.add_argument("--baseline", help="another cosmolite binary to compare with")
    parser.add_argument("--load-generator", default=os.path.join(HERE, "..", "build", "bench", "cosmolite_bench"))
    parser.add_argument("--creates", type=int, default=1000, help="N: the runs serve N and 4N creates")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_annotate"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="cosmolite-instructions-") as work_dir:
        measured, large_out = per_create(args.binary, args.load_generator, args.creates, work_dir, "binary")
        print(f"{args.binary}: {measured:,.0f} instructions per create")
        if args.baseline:
            baseline, _ = per_create(args.baseline, args.load_generator, args.creates, work_dir, "baseline")
            print(f"{args.baseline}: {baseline:,.0f} instructions per create")
            print(f"ratio: {measured / baseline:.3f}")
        if args.top > 0:
            print(f"\nmost instructions per create, inclusive (the {4 * args.creates}-create run, start-up included):")
            for instructions, name in top_functions(large_out, 4 * args.creates, args.top):
                print(f"{instructions:12,.0f}  {name[:110]}")


if __name__ == "__main__":
    main()
