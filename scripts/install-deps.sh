#!/usr/bin/env bash
# Installs the Debian 12 packages cosmolite builds and tests with.
#   install-deps.sh            what `make run` and `make test` need: the build, and the SDK suites' runtimes
#   install-deps.sh build      the build alone (the Docker image's build stage)
#   install-deps.sh container  a container runtime (podman, runc) for the Docker image's test
# Idempotent: when every package is already present it does nothing (no apt-get update).
set -euo pipefail
mode="${1:-all}"
case "$mode" in all|build|container) ;; *) echo "install-deps: unknown mode '$mode'" >&2; exit 2 ;; esac

build_packages=(
  build-essential cmake pkg-config
  libboost-dev            # Boost.Beast / Asio (header-only, 1.74)
  libssl-dev              # TLS and HMAC-SHA256
  libsqlite3-dev
  libabsl-dev             # Abseil's B-trees: the index of an in-memory store
  nlohmann-json3-dev
  libspdlog-dev
  libcli11-dev
  catch2                  # Catch2 v2 unit tests
  antlr4                  # ANTLR 4.7.2 tool: generates the query parser at build time (pulls a JRE)
  libantlr4-runtime-dev   # ANTLR 4.9 C++ runtime
  uuid-dev                # the ANTLR runtime's CMake package links libuuid, but the package does not depend on it
  libpcre2-dev            # PCRE2: RegexMatch speaks the service's PCRE dialect
  libmozjs-102-dev        # SpiderMonkey 102 ESR: stored procedures, triggers and UDFs
  libmimalloc-dev         # mimalloc, the executables' allocator
  libstemmer-dev          # Snowball stemmers: full-text search in its six languages
  openssl
)

# Debian's podman runs images as root on these machines (builds with --isolation chroot); runc is
# the runtime it starts them with, netavark and aardvark-dns give containers a network where they
# find each other by name, iptables publishes their ports.
container_packages=(podman runc netavark aardvark-dns iptables catatonit)

case "$mode" in
  container) packages=("${container_packages[@]}") ;;
  *) packages=("${build_packages[@]}") ;;
esac

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ "$mode" = all ] || [ "$mode" = build ]; then
  # npm installs the explorer's charting library at build time (explorer/package-lock.json); the
  # conformance suite needs Node.js too. Keep the ones the machine already has.
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
  fi
fi
if [ "$mode" = all ]; then
  # The explorer's browser test drives Debian's Chromium (with npm's playwright-core).
  if ! command -v chromium >/dev/null 2>&1; then missing+=(chromium); fi
  # The bench scripts need Python 3.
  if ! command -v python3 >/dev/null 2>&1; then
    missing+=(python3 python3-venv)
  elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing+=(python3-venv)       # the Python conformance suite's venv
  fi
  # The Java conformance suite: a JDK (17 on Debian 12) and Maven.
  if ! command -v javac >/dev/null 2>&1; then missing+=(default-jdk-headless); fi
  if ! command -v mvn >/dev/null 2>&1; then missing+=(maven); fi
  # The Go suite fetches its toolchain with curl when the machine has no Go >= 1.25 (scripts/go-toolchain.sh).
  if ! command -v curl >/dev/null 2>&1; then missing+=(curl); fi
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
