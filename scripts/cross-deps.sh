#!/usr/bin/env bash
# For a cross build (the Docker image's build stage, `--platform` other than the build machine's):
# the cross compiler and the target architecture's libraries, through Debian's multiarch.
#   cross-deps.sh BUILD_ARCH TARGET_ARCH     (Docker's names: amd64, arm64)
# Does nothing when the two are the same or either is empty.
set -euo pipefail
build_arch="${1:-}"
target_arch="${2:-}"
if [ -z "$build_arch" ] || [ -z "$target_arch" ] || [ "$build_arch" = "$target_arch" ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
dpkg --add-architecture "$target_arch"
apt-get update -qq
# The same libraries install-deps.sh builds against, for the target (all Multi-Arch: same, so they sit
# beside the build machine's); uuid-dev because the ANTLR runtime's CMake target links -luuid.
apt-get install -y -qq --no-install-recommends "crossbuild-essential-$target_arch" \
  "libssl-dev:$target_arch" "libsqlite3-dev:$target_arch" "libspdlog-dev:$target_arch" \
  "libfmt-dev:$target_arch" "libantlr4-runtime-dev:$target_arch" "uuid-dev:$target_arch" \
  "libpcre2-dev:$target_arch" "libmozjs-102-dev:$target_arch" "libmimalloc-dev:$target_arch" "libabsl-dev:$target_arch" \
  "libstemmer-dev:$target_arch"
