#!/usr/bin/env bash
# Installs what the Go conformance suite needs: the pinned modules (go.mod / go.sum:
# azcosmos v1.5.0, azcore v1.21.0) into the Go module cache, then compiles the tests once (into
# the Go build cache). Idempotent: with warm caches it only checks and returns in a few seconds.
set -euo pipefail
cd "$(dirname "$0")"

# A go of at least 1.25: the machine's, or the official toolchain fetched once (scripts/go-toolchain.sh).
go=$(../../scripts/go-toolchain.sh)
version=$("$go" env GOVERSION)
export GOFLAGS="${GOFLAGS:-} -mod=readonly"
"$go" mod download            # a no-op when the module cache already holds go.sum's modules
"$go" mod verify >/dev/null   # the cached modules match go.sum
"$go" vet ./...               # compiles the test package (cached after the first run)
"$go" test -c -o /dev/null .   # compile and link the test binary once (cached)
echo "install.sh: Go conformance suite ready ($version)"
