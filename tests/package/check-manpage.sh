#!/usr/bin/env bash
# Checks the man page generated at build time (packaging/manpage.cmake): it renders without roff
# warnings, and every command and every option the program's own --help lists appears in it.
# Usage: check-manpage.sh MASKSCOPE_EXECUTABLE PAGE.1
set -uo pipefail
exe="$1"
page="$2"
if ! command -v man >/dev/null; then
  echo "SKIP: man is missing (Debian package man-db)"
  exit 77
fi
[ -f "$page" ] || { echo "FAIL: $page was not generated"; exit 1; }
status=0
warnings="$(mktemp)"
trap 'rm -f "$warnings"' EXIT
rendered="$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$page" 2>"$warnings")"
if [ -s "$warnings" ] || [ -z "$rendered" ]; then
  cat "$warnings"
  echo "FAIL: man reports warnings (above) or renders nothing for $page"
  status=1
fi
# Commands: the names under "Subcommands:" in `maskscope --help`.
commands="$("$exe" --help | sed -n '/^Subcommands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')"
[ -n "$commands" ] || { echo "FAIL: no commands found in maskscope --help"; exit 1; }
for c in $commands; do
  if ! grep -q "^   maskscope $c\$" <<<"$rendered"; then
    echo "FAIL: command $c has no section in the man page"
    status=1
  fi
  # Options: each long option of the command's help must appear in that command's section.
  section="$(awk -v h="   maskscope $c" '$0 == h {on = 1; next} /^   maskscope / {on = 0} on' <<<"$rendered")"
  for opt in $("$exe" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -qE -- "^ *(-[a-zA-Z], )?$opt\b" <<<"$section" || { echo "FAIL: $c $opt is missing from its man page section"; status=1; }
  done
done
[ $status -eq 0 ] && echo "PASS: man page renders cleanly and covers: ${commands//$'\n'/ }"
exit $status
