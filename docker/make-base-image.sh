#!/usr/bin/env bash
# Makes the Debian 12 image the Dockerfile's build stage starts from, without a registry: a minimal
# bookworm tree from Debian's own mirror (debootstrap), imported into the local image store.
#   make-base-image.sh [IMAGE_NAME]     (default localhost/cosmolite-debian:12)
# Then: podman build --isolation chroot --format docker -f docker/Dockerfile \
#         --build-arg BASE_IMAGE=localhost/cosmolite-debian:12 --build-arg ROOTFS_FROM=compiled -t cosmolite .
set -euo pipefail
image="${1:-localhost/cosmolite-debian:12}"
runtime="$(command -v podman || command -v docker)"
if "$runtime" image exists "$image" 2>/dev/null; then
  echo "make-base-image: $image exists"
  exit 0
fi
command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
debootstrap --variant=minbase bookworm "$tree" http://deb.debian.org/debian
# The security updates, as the official image has them.
echo "deb http://deb.debian.org/debian-security bookworm-security main" >> "$tree/etc/apt/sources.list"
rm -rf "$tree"/var/cache/apt/archives/*.deb "$tree"/var/lib/apt/lists/*
tar -C "$tree" -c . | "$runtime" import --change 'CMD ["/bin/bash"]' - "$image"
echo "make-base-image: $image"
