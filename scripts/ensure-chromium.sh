#!/usr/bin/env bash
# The Swagger UI test drives Chromium through playwright-core. Debian's package is used, as
# installed by apt (no browser download from elsewhere); CHROMIUM_PATH names another build.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ]; then echo "  Chromium: ${CHROMIUM_PATH} (CHROMIUM_PATH)"; exit 0; fi
if [ -x /usr/bin/chromium ]; then echo "  Chromium: /usr/bin/chromium"; exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "Chromium is missing and apt-get is not here: install Chromium and set CHROMIUM_PATH" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "  Chromium is missing: installing Debian's 'chromium' package with apt-get${SUDO:+ (through sudo)}, once,"
echo "  so the Swagger UI test can open the API docs in a real headless browser (CHROMIUM_PATH names another build)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "  Chromium: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
