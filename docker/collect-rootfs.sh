#!/usr/bin/env bash
# Lays out the runtime image's whole file system: in DEST/system the stripped cosmolite binary, the
# shared libraries it needs (found recursively through their DT_NEEDED entries, not with ldd, so
# that a cross-compiled binary works too), its dynamic loader, a passwd entry for the unprivileged
# user and a world-writable /tmp; in DEST/data the empty data directory, which the Dockerfile copies
# apart so that it can belong to that user. Nothing else: no shell, no package manager.
#   collect-rootfs.sh BINARY DEST [LIBRARY_DIR...]
# LIBRARY_DIRs are searched in order (default: the build machine's multiarch directories).
set -euo pipefail
binary="$1"
dest="$2"
shift 2
library_dirs=("$@")
if [ ${#library_dirs[@]} -eq 0 ]; then
  triplet="$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)"
  library_dirs=("/lib/$triplet" "/usr/lib/$triplet" /lib /usr/lib)
fi
strip_tool="${STRIP:-strip}"
readelf_tool="${READELF:-readelf}"

rm -rf "$dest"
mkdir -p "$dest/data"
chmod 0700 "$dest/data"
dest="$dest/system"
mkdir -p "$dest/usr/local/bin" "$dest/lib" "$dest/etc" "$dest/tmp"
chmod 1777 "$dest/tmp"

cp "$binary" "$dest/usr/local/bin/cosmolite"
"$strip_tool" --strip-unneeded "$dest/usr/local/bin/cosmolite"

# The libraries go to /lib, which the loader always searches; the loader goes where the binary's
# PT_INTERP says.
needed_of() { "$readelf_tool" -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
find_library() {
  for dir in "${library_dirs[@]}"; do
    if [ -e "$dir/$1" ]; then echo "$dir/$1"; return 0; fi
  done
  echo "collect-rootfs: $1 not found in ${library_dirs[*]}" >&2
  return 1
}
queue=("$binary")
declare -A copied=()
while [ ${#queue[@]} -gt 0 ]; do
  file="${queue[0]}"
  queue=("${queue[@]:1}")
  for soname in $(needed_of "$file"); do
    [ -n "${copied[$soname]:-}" ] && continue
    path="$(find_library "$soname")"
    cp -L "$path" "$dest/lib/$soname"
    "$strip_tool" --strip-unneeded "$dest/lib/$soname" 2>/dev/null || true
    copied[$soname]=1
    queue+=("$path")
  done
done
interpreter="$("$readelf_tool" -l "$binary" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')"
mkdir -p "$dest/$(dirname "$interpreter")"
cp -L "$(find_library "$(basename "$interpreter")" 2>/dev/null || echo "$interpreter")" "$dest$interpreter"

echo "cosmolite:x:10001:10001:cosmolite:/data:/nonexistent" > "$dest/etc/passwd"
echo "cosmolite:x:10001:" > "$dest/etc/group"
# getaddrinfo("localhost") reads /etc/hosts; runtimes usually mount their own over it.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$dest/etc/hosts"
echo "collect-rootfs: $(du -sh "$dest" | cut -f1) in $dest (${#copied[@]} libraries, loader $interpreter)"
