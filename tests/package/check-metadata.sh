#!/usr/bin/env bash
# Validates the AppStream metainfo (appstreamcli) and the desktop entry (desktop-file-validate).
# Any error, warning or hint fails: software centres and menus show these files as they are.
# Usage: check-metadata.sh METAINFO.xml ENTRY.desktop
set -uo pipefail
metainfo="$1"
desktop="$2"
for tool in appstreamcli desktop-file-validate; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is missing (Debian packages appstream and desktop-file-utils)"
    exit 77
  fi
done
status=0
if ! appstreamcli validate --no-net --explain "$metainfo"; then
  echo "FAIL: appstreamcli validate rejects $metainfo"
  status=1
fi
if ! hints="$(desktop-file-validate "$desktop" 2>&1)" || [ -n "$hints" ]; then
  echo "$hints"
  echo "FAIL: desktop-file-validate reports problems in $desktop"
  status=1
fi
# The metainfo's launchable must name the installed desktop entry, or software centres cannot start it.
if ! grep -q "<launchable type=\"desktop-id\">$(basename "$desktop")</launchable>" "$metainfo"; then
  echo "FAIL: $metainfo does not launch $(basename "$desktop")"
  status=1
fi
[ $status -eq 0 ] && echo "PASS: metainfo and desktop entry validate"
exit $status
