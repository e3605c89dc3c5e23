#!/usr/bin/env bash
# Prints the path of a `go` command of at least Go 1.25 (the Go conformance suite's azcosmos needs it).
# The machine's own `go` when it is new enough; otherwise the official toolchain, fetched once from the
# Go module proxy (golang.org/toolchain, the same zip `GOTOOLCHAIN` downloads) into
# ~/.cache/cosmolite/go-<version>. Debian 12's golang-go is 1.19, too old, so a fresh machine needs this.
set -euo pipefail
minimum_minor=25
fallback_version=1.25.14

if command -v go >/dev/null 2>&1; then
  minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
  if [ "${minor:-0}" -ge "$minimum_minor" ] 2>/dev/null; then
    command -v go
    exit 0
  fi
fi

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "go-toolchain.sh: no Go toolchain for $(uname -m)" >&2; exit 1 ;;
esac
root="${XDG_CACHE_HOME:-$HOME/.cache}/cosmolite/go-$fallback_version"
if [ ! -x "$root/bin/go" ]; then
  proxy="${GOPROXY:-https://proxy.golang.org}"
  proxy="${proxy%%,*}"
  [ "$proxy" = direct ] || [ "$proxy" = off ] && proxy=https://proxy.golang.org
  url="$proxy/golang.org/toolchain/@v/v0.0.1-go$fallback_version.linux-$arch.zip"
  echo "go-toolchain.sh: fetching Go $fallback_version from $url" >&2
  staging=$(mktemp -d)
  trap 'rm -rf "$staging"' EXIT
  curl -fsSL --retry 3 -o "$staging/go.zip" "$url"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$staging/go.zip" "$staging/x"
  # The module zip holds golang.org/toolchain@<version>/{bin,pkg,src,...}; zipfile drops the modes.
  unpacked=$(find "$staging/x/golang.org" -mindepth 1 -maxdepth 1 -type d -name 'toolchain@*' | head -1)
  chmod -R u+x "$unpacked/bin" "$unpacked/pkg/tool"
  mkdir -p "$(dirname "$root")"
  rm -rf "$root"
  mv "$unpacked" "$root"
fi
echo "$root/bin/go"
