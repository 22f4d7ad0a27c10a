#!/usr/bin/env bash
# Installs the peers `nakiri bench ciphers` measures nakiri against (OpenSSL, libsodium, Botan 2)
# and the tools the benchmark uses (objdump from binutils, a C++ compiler for the Botan harness).
# Idempotent; quiet when all is there. A peer that still is missing afterwards is reported by
# `nakiri bench ciphers` as `missing (run scripts/install-peers.sh)`, never an error.
set -u
need=()
have_hdr() { [ -e "/usr/include/$1" ] || [ -e "/usr/include/x86_64-linux-gnu/$1" ]; }
command -v objdump >/dev/null 2>&1 || need+=(binutils)
command -v g++ >/dev/null 2>&1 || need+=(g++)
have_hdr openssl/evp.h || need+=(libssl-dev)
have_hdr sodium.h || need+=(libsodium-dev)
have_hdr botan-2/botan/block_cipher.h || need+=(libbotan-2-dev)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO=sudo
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 \
    || echo "warning: could not install ${need[*]}; \`nakiri bench ciphers\` reports those peers as missing"
fi
exit 0
