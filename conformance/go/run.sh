#!/usr/bin/env bash
# Runs the Go (azcosmos v1.5.0) conformance suite against a freshly started cosmolite over HTTPS
# (conformance/with_server.py starts it on a free port, exports COSMOS_ENDPOINT, COSMOS_KEY and
# COSMOS_CERT_PEM, and stops it afterwards). The binary is $COSMOLITE_BIN, or ../../build/cosmolite.
# With COSMOS_ENDPOINT already set no server is started: the suite runs against that account.
# Extra arguments go to `go test` (e.g. ./run.sh -run 'TestItems_').
set -euo pipefail
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:-} -mod=readonly"
go=$(../../scripts/go-toolchain.sh)
exec python3 ../with_server.py -- "$go" test -count=1 -v -p 1 -timeout 10m "$@" ./...
