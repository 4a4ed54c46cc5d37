#!/usr/bin/env bash
# Installs Debian's headless Chromium for the HTML explorer test when it is missing, as root with
# apt-get; otherwise says why that test will skip. A failed install names apt's own reason (a dpkg
# lock another apt holds, no network), not only "could not be installed". Never fails the build.
set -u
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  echo "chromium is missing and cannot be installed here (it needs root and apt-get): the HTML explorer test will skip"
  exit 0
fi
echo "installing chromium for the HTML explorer test"
log=$(mktemp)
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1; then
  reason=$(grep -E '^(E|Err):' "$log" | tail -n 1)
  echo "chromium could not be installed: ${reason:-$(tail -n 1 "$log")}; the HTML explorer test will skip"
fi
rm -f "$log"
exit 0
