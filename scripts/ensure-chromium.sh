#!/usr/bin/env bash
# The Swagger UI test drives Chromium through playwright-core. Debian's package is used, as
# installed by apt (no browser download from elsewhere); CHROMIUM_PATH names another build.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] || [ -x /usr/bin/chromium ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "Chromium is missing and apt-get is not here: install Chromium and set CHROMIUM_PATH" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing Debian's chromium for the browser tests (once)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
