#!/usr/bin/env bash
# Builds the .deb (packaging/build-deb.sh), installs it on this machine with dpkg -i, runs the
# installed program (version, lint, man page, the capture module, a loss through the installed engine
# module, an off-screen snapshot), removes it with dpkg -r, checks that nothing it installed is left, and purges dpkg's
# record of it. Root only; skips (exit 77) without root or dpkg, or when it would touch a maskscope
# already on the system.
# Usage: test-deb-install.sh BUILD_DIR SOURCE_DIR
# The checks below are single-quoted on purpose: bash -c expands them in the work folder.
# shellcheck disable=SC2016
set -uo pipefail
build="$1"
src="$2"
skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  exit 1
}
[ "$(id -u)" -eq 0 ] || skip "installing a package needs root (CI runs tests as root); nothing was changed"
for tool in dpkg dpkg-deb dpkg-query man flock python3; do
  command -v "$tool" >/dev/null || skip "$tool is missing; nothing was changed"
done
# One run at a time on this machine (other checkouts may run their ctest too): the lock is held
# until this script exits, and the check for an installed maskscope comes after it.
lock=/run/lock/maskscope-package-test.lock
[ -d /run/lock ] || lock=/tmp/maskscope-package-test.lock
exec 9>"$lock"
flock -w 900 9 || skip "another package install test held $lock for 15 minutes"
# dpkg's abbreviated status: empty or ?n = not installed; anything else (ii, rc, iU...) is someone's.
state="$(dpkg-query -W -f='${db:Status-Abbrev}' maskscope 2>/dev/null)"
case "$state" in "" | ?n*) ;; *) skip "a maskscope package is already on this machine (dpkg status $state); left as it is" ;; esac

work="$(mktemp -d)"
installed=0
cleanup() {
  if [ $installed -eq 1 ]; then
    echo "cleanup: dpkg --purge maskscope"
    dpkg --purge maskscope >/dev/null 2>&1 || dpkg --purge --force-all maskscope >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT

deb="$(bash "$src/packaging/build-deb.sh" "$build" "$work/out" | tail -n 1)"
[ -f "$deb" ] || fail "packaging/build-deb.sh made no .deb"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
echo "Depends: $depends"
grep -qE '(^|[ ,|])[a-z0-9.+-]+-dev([ ,(|]|$)' <<<"$depends" && fail "Depends names a -dev package: $depends"
grep -qE '(^|, )libtorch[0-9.]+( |,|$)' <<<"$depends" || fail "Depends lacks libtorch's runtime package: $depends"
# The Training lab draws with Qt Charts: dpkg-shlibdeps must have found its runtime library.
grep -qE '(^|, )libqt6charts6( |,|$)' <<<"$depends" || fail "Depends lacks libqt6charts6 (Qt Charts): $depends"

# Every file (not directory) of the package, as an absolute path.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}' >"$work/files"
dpkg-deb -c "$deb" | awk '$1 ~ /^d/ {p = substr($6, 2); sub(/\/$/, "", p); if (p != "") print p}' >"$work/dirs"
for f in /usr/bin/maskscope /usr/lib/maskscope/libmaskscope_torch.so /usr/share/man/man1/maskscope.1.gz \
  /usr/share/applications/maskscope.desktop /usr/share/metainfo/io.github.maskscope.maskscope.metainfo.xml \
  /usr/share/icons/hicolor/scalable/apps/maskscope.svg /usr/share/maskscope/python/maskscope_capture/__init__.py \
  /usr/share/maskscope/python/pyproject.toml; do
  grep -qx "$f" "$work/files" || fail "the package lacks $f"
done
while read -r f; do
  [ -e "$f" ] || [ -L "$f" ] && skip "$f already exists on this machine; the package would overwrite it"
done <"$work/files"
# Directories the package would create: they must be gone again after dpkg -r.
while read -r d; do [ -d "$d" ] || echo "$d"; done <"$work/dirs" >"$work/new-dirs"

echo "+ dpkg -i $(basename "$deb")"
installed=1
dpkg -i "$deb" >"$work/dpkg-i.log" 2>&1 || {
  cat "$work/dpkg-i.log"
  fail "dpkg -i failed (a Depends package missing on this machine?)"
}
status=0
check() { # check NAME COMMAND...: runs the command, reports, records a failure
  local name="$1"
  shift
  if "$@" >"$work/out.log" 2>&1; then echo "ok: $name"; else
    echo "not ok: $name"
    tail -n 20 "$work/out.log"
    status=1
  fi
}
version="$(dpkg-deb -f "$deb" Version)"
cd "$work" || fail "no work folder"
unset MASKSCOPE_ENGINE_PATH
export QT_QPA_PLATFORM=offscreen
check "maskscope --version says $version" bash -c "[ \"\$(/usr/bin/maskscope --version)\" = 'maskscope $version' ]"
check "lint builtin:demo --json gives JSON" bash -c \
  '/usr/bin/maskscope lint builtin:demo --json >lint.json; [ $? -le 1 ] && python3 -m json.tool lint.json >/dev/null'
check "man -w maskscope finds the installed page" bash -c '[ "$(man -w maskscope)" = /usr/share/man/man1/maskscope.1.gz ]'
# The loss needs the engine module: LD_DEBUG names every library loaded, so the run proves it was the
# installed one (the binary also knows its build tree's copy, which must not be the one used).
check "loss --model builtin:tiny runs on the installed engine module" bash -c \
  'LD_DEBUG=files LD_DEBUG_OUTPUT=ld /usr/bin/maskscope loss --model builtin:tiny --data builtin:demo \
     --tokenizer builtin:demo --rows 0:2 --no-gradients --json >loss.json
   rc=$?; [ $rc -le 1 ] && python3 -m json.tool loss.json >/dev/null &&
   grep -hE "file=/usr/(bin/\.\./)?lib/maskscope/libmaskscope_torch\.so " ld.* &&
   ! grep -hoE "file=[^ ]*libmaskscope_torch\.so " ld.* | grep -vE "^file=/usr/(bin/\.\./)?lib/maskscope/"'
# The capture module imports from the installed folder without torch or transformers (docs/capture.md).
check "python3 imports maskscope_capture from /usr/share/maskscope/python" bash -c \
  'PYTHONPATH=/usr/share/maskscope/python python3 -c "import maskscope_capture as m; m.wrap_collator(len); m.Callback()"'
check "snapshot --view attention writes a PNG (Qt plugins of the package's Depends)" bash -c \
  '/usr/bin/maskscope snapshot --view attention --out grid.png && [ "$(head -c 4 grid.png | tail -c 3)" = PNG ]'
check "snapshot --view lab writes a PNG (the Training lab's Qt Charts from Depends)" bash -c \
  '/usr/bin/maskscope snapshot --view lab --out lab.png && [ "$(head -c 4 lab.png | tail -c 3)" = PNG ]'

echo "+ dpkg -r maskscope"
dpkg -r maskscope >"$work/dpkg-r.log" 2>&1 || {
  cat "$work/dpkg-r.log"
  fail "dpkg -r maskscope failed"
}
installed=0
while read -r f; do [ -e "$f" ] || [ -L "$f" ] && { echo "left behind: $f"; status=1; }; done <"$work/files"
while read -r d; do [ -d "$d" ] && { echo "left behind: directory $d"; status=1; }; done <"$work/new-dirs"
man -w maskscope >/dev/null 2>&1 && { echo "left behind: man -w still finds maskscope"; status=1; }
# CPack adds an ldconfig postrm (the module sits under /usr/lib), so dpkg -r keeps the package's
# record in state rc; purging drops it and leaves dpkg's database as it was.
dpkg --purge maskscope >"$work/dpkg-purge.log" 2>&1 || { cat "$work/dpkg-purge.log"; fail "dpkg --purge failed"; }
state="$(dpkg-query -W -f='${db:Status-Abbrev}' maskscope 2>/dev/null)"
case "$state" in "" | ?n*) ;; *) fail "after dpkg -r and --purge, dpkg still records maskscope (status $state)" ;; esac
[ $status -eq 0 ] || fail "see above"
echo "PASS: installed, ran (engine module from /usr/lib/maskscope) and removed without leftovers"
