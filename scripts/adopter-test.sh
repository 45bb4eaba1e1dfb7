#!/usr/bin/env bash
# Builds and tests Examples/Adopter — an app package that depends on LocalAuthentication,
# Security, CryptoKit and TouchstoneTesting — in a private mount namespace where every header
# and pkg-config file of the -dev packages Touchstone's other products use is hidden
# (libedit-dev, libsqlite3-dev, libsystemd-dev, libpam0g-dev) and no .pc file is left at all.
# So CI proves on every run what docs/ADOPTING.md promises: an adopting app needs the Swift
# toolchain alone.
#
#   scripts/adopter-test.sh            clean build and test in Examples/Adopter/.build, removed
#                                      after (a build of your own there goes too: the folder is
#                                      .build so that ccache sees the other packages' paths)
#   scripts/adopter-test.sh --keep     keep the build folder (Examples/Adopter/.build)
#
# Needs root (or unshare's privileges) for the mount namespace; make test runs it as CI does.
# Hiding: an overlay over /usr/include and the multiarch library folder whose upper layer holds
# a whiteout for each file those packages installed there, and an empty tmpfs over each
# pkg-config folder. Nothing outside the namespace changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
adopter="$root/Examples/Adopter"
scratch="$adopter/.build"
SWIFT=${SWIFT:-swift}

if [ "${1:-}" != "--inside" ]; then
  if ! command -v unshare >/dev/null 2>&1; then
    echo "adopter-test: unshare (util-linux) is missing; it is needed to hide the -dev packages" >&2
    exit 1
  fi
  status=0
  unshare --mount --propagation private "$0" --inside "$@" || status=$?
  if [ "${1:-}" != "--keep" ]; then rm -rf "$scratch"; fi
  exit "$status"
fi
shift

packages=(libedit-dev libsqlite3-dev libsystemd-dev libpam0g-dev)
multiarch="$(uname -m)-linux-gnu"
layers=$(mktemp -d)
trap 'rm -rf "$layers"' EXIT

# One overlay per folder, its upper layer holding whiteouts (character device 0/0) for the
# files the -dev packages installed there.
hide_files_under() {
  local folder=$1 name upper="$layers/$(echo "$1" | tr / _)"
  mkdir -p "$upper/upper" "$upper/work"
  local count=0
  while IFS= read -r name; do
    [ -e "$name" ] || [ -L "$name" ] || continue
    [ -d "$name" ] && [ ! -L "$name" ] && continue
    local relative=${name#"$folder"/}
    mkdir -p "$upper/upper/$(dirname "$relative")"
    mknod "$upper/upper/$relative" c 0 0
    count=$((count + 1))
  done < <(dpkg -L "${packages[@]}" 2>/dev/null | grep "^$folder/" || true)
  if [ "$count" -gt 0 ]; then
    mount -t overlay overlay -o "lowerdir=$folder,upperdir=$upper/upper,workdir=$upper/work" "$folder"
  fi
  echo "adopter-test: hid $count files under $folder"
}
hide_files_under /usr/include
hide_files_under "/usr/lib/$multiarch"
for folder in /usr/lib/pkgconfig "/usr/lib/$multiarch/pkgconfig" /usr/share/pkgconfig /usr/local/lib/pkgconfig; do
  if [ -d "$folder" ]; then mount -t tmpfs -o size=1m,mode=0755 tmpfs "$folder"; fi
done

# The claim, checked before building: no header and no .pc file of those packages is there.
for header in /usr/include/sqlite3.h /usr/include/histedit.h /usr/include/systemd/sd-bus.h /usr/include/security/pam_appl.h; do
  if [ -e "$header" ]; then echo "adopter-test: $header is still visible" >&2; exit 1; fi
done
if command -v pkg-config >/dev/null 2>&1; then
  for module in sqlite3 libedit libsystemd pam; do
    if pkg-config --exists "$module"; then echo "adopter-test: pkg-config still finds $module" >&2; exit 1; fi
  done
fi
echo "adopter-test: no -dev header and no .pc file of ${packages[*]} is visible"

# Through scripts/swift-quick: BoringSSL's objects from the ThreadSanitizer build, its folder
# named .build as theirs is so that ccache sees the same relative paths (a header hidden above
# would be a miss, not a stale hit).
cd "$adopter"
SWIFT="$SWIFT" "$root/scripts/swift-quick" build -q --build-tests --scratch-path "$scratch"
SWIFT="$SWIFT" "$root/scripts/swift-quick" test --skip-build --scratch-path "$scratch"
