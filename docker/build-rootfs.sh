#!/usr/bin/env bash
# The Docker image's build stage: compiles cosmolite (natively, or for TARGET_ARCH with Debian's
# cross compiler) and lays out the runtime file system in DEST with collect-rootfs.sh.
#   build-rootfs.sh BUILD_ARCH TARGET_ARCH DEST    (Docker's arch names; empty: native)
set -euo pipefail
build_arch="${1:-}"
target_arch="${2:-}"
dest="$3"
cd "$(dirname "$0")/.."

cmake_args=(-S . -B /tmp/cosmolite-build -DCMAKE_BUILD_TYPE=Release -DCOSMOLITE_TESTS=OFF)
collect_args=()
if [ -n "$build_arch" ] && [ -n "$target_arch" ] && [ "$build_arch" != "$target_arch" ]; then
  case "$target_arch" in
    arm64) triplet=aarch64-linux-gnu; processor=aarch64 ;;
    amd64) triplet=x86_64-linux-gnu; processor=x86_64 ;;
    *) echo "build-rootfs: no cross build for $target_arch" >&2; exit 1 ;;
  esac
  cmake_args+=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="$processor"
               -DCMAKE_CXX_COMPILER="$triplet-g++" -DCMAKE_LIBRARY_ARCHITECTURE="$triplet")
  export PKG_CONFIG_LIBDIR="/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig"
  export STRIP="$triplet-strip"
  collect_args=("/lib/$triplet" "/usr/lib/$triplet")
fi
cmake "${cmake_args[@]}"
cmake --build /tmp/cosmolite-build -j"$(nproc)" --target cosmolite
bash docker/collect-rootfs.sh /tmp/cosmolite-build/cosmolite "$dest" "${collect_args[@]}"
