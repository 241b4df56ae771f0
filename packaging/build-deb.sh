#!/usr/bin/env bash
# Builds the maskscope Debian package from a configured build folder with `cpack -G DEB`:
#   bash packaging/build-deb.sh [BUILD_DIR (default build)] [OUT_DIR (default BUILD_DIR/packages)]
# Prints the path of the .deb as the last line. Configure and build first (packaging/build.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" 2>/dev/null && pwd)" || {
  echo "build-deb: no build folder ${1:-$root/build}; run packaging/build.sh first" >&2
  exit 2
}
out="${2:-$build/packages}"
if [ ! -f "$build/CPackConfig.cmake" ]; then
  echo "build-deb: $build has no CPackConfig.cmake (configure with the app enabled: packaging/build.sh)" >&2
  exit 2
fi
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || {
    echo "build-deb: $tool is missing (Debian packages cmake and dpkg-dev)" >&2
    exit 2
  }
done
# cpack installs what is built; bring the packaged targets up to date first. Without LibTorch the
# engine target does not exist, and a package without the forward pass is refused below.
cmake --build "$build" --target maskscope maskscope_man
targets="$(cmake --build "$build" --target help)"
if grep -q '^\(\.\.\. \)\?maskscope_torch\b' <<<"$targets"; then
  cmake --build "$build" --target maskscope_torch
fi

mkdir -p "$out"
rm -f "$out"/maskscope_*.deb
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || {
  cat "$out/cpack.log" >&2
  echo "build-deb: cpack failed (log above)" >&2
  exit 1
}
deb="$(ls "$out"/maskscope_*.deb)"
contents="$(dpkg-deb -c "$deb")"
if ! grep -q './usr/lib/maskscope/libmaskscope_torch.so$' <<<"$contents"; then
  echo "build-deb: $deb lacks usr/lib/maskscope/libmaskscope_torch.so (was LibTorch found at configure time?)" >&2
  exit 1
fi
echo "build-deb: $(du -k "$deb" | cut -f1) KiB, Depends: $(dpkg-deb -f "$deb" Depends)" >&2
echo "$deb"
