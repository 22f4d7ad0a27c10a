#!/usr/bin/env bash
# Installs what nakiri's tests and demo need beyond a Rust toolchain: a C compiler, valgrind (with
# its <valgrind/memcheck.h>, for `nakiri ctcheck` and tests/ctcheck.rs), (optional, for running
# NEON code) an aarch64 cross compiler with qemu, clang (a second compiler for `nakiri tune`); then scripts/install-peers.sh (the libraries
# `nakiri bench ciphers` compares with). Idempotent; quiet when all is there.
set -u
need=()
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null 2>&1 || need+=(qemu-user)
# clang: a second C compiler for `nakiri tune` to try (optional; gcc alone works).
command -v clang >/dev/null 2>&1 || need+=(clang)
{ command -v valgrind >/dev/null 2>&1 && [ -f /usr/include/valgrind/memcheck.h ]; } || need+=(valgrind)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO=sudo
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 \
    || echo "warning: could not install ${need[*]}; the NEON target and the constant-time checks will be reported as skipped"
fi
# The peers `nakiri bench ciphers` compares with (OpenSSL, libsodium, Botan 2), objdump, g++.
bash "$(dirname "$0")/install-peers.sh"
command -v cc >/dev/null 2>&1 || { echo "error: no C compiler (cc) available"; exit 1; }
command -v cargo >/dev/null 2>&1 || { echo "error: cargo not found: install Rust with rustup (https://rustup.rs)"; exit 1; }
exit 0
