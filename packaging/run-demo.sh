#!/usr/bin/env bash
# README's first command: install what is missing, build, and open the app on the built-in demo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/packaging/setup-debian.sh"
bash "$root/packaging/build.sh"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "run-demo: no display found; opening the app under a virtual X server (xvfb-run)." >&2
  exec xvfb-run -a "$root/build/bin/maskscope" "$@"
fi
exec "$root/build/bin/maskscope" "$@"
