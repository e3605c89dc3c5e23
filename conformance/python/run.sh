#!/usr/bin/env bash
# Runs the Python SDK conformance suite (azure-cosmos, pytest) against a freshly started cosmolite over
# HTTPS, through ../with_server.py (which honours COSMOLITE_BIN and defaults to ../../build/cosmolite),
# or against COSMOS_ENDPOINT/COSMOS_KEY when COSMOS_ENDPOINT is set. Extra arguments go to pytest,
# e.g. ./run.sh -k patch, or ./run.sh tests/test_query.py. Exit code: non-zero on any failure. Known gaps
# (tests marked xfail(strict=True, reason="known gap: ...")) are listed with their reasons (-rxX), and
# the output ends with "known gaps: N"; a known gap that passes (XPASS) fails the run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/install.sh"
cd "$here"
exec python3 ../with_server.py -- "$here/.venv/bin/python" -m pytest -v -rfEsxX --tb=short "$@"
