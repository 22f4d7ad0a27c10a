#!/bin/bash
# The README's autotuner run: one `nakiri tune` per shipped cipher (first slicing), on std and
# avx2, budget $1 s (50 in the README); then BLAKE2s per goal and two interleaving runs.
# Outputs (C, reports, plots, logs) go to $OUT (default /tmp/campaign); summary on stdout.
# Usage: bash benches/tune/campaign.sh 50   (from the repository root, after cargo build --release)
# ARCHS="avx512" EXTRA=0 bash benches/tune/campaign.sh 50: other targets, without the goal and
# interleaving runs (the AVX-512 run of 2026-11-24).
set -u
OUT=${OUT:-/tmp/campaign}
NAKIRI=${NAKIRI:-./target/release/nakiri}
mkdir -p "$OUT"
B=${1:-50}
list="aes/aes.ua:B aes/aes_planes.ua:H aes/aes_rk.ua:H des/des.ua:B chacha20/chacha20.ua:V gimli/gimli.ua:V xoodoo/xoodoo.ua:V ascon/ascon.ua:V rectangle/rectangle.ua:V serpent/serpent.ua:V present/present.ua:B gift/gift.ua:B gift/gift_v.ua:V skinny128_256/skinny128_256.ua:B pyjamask128/pyjamask128.ua:V clyde128/clyde128.ua:V photon256/photon256.ua:B spongent160/spongent160.ua:B subterranean/subterranean.ua:B blake2s/blake2s.ua:V ace/ace.ua:V"
for arch in ${ARCHS:-std avx2}; do
  for e in $list; do
    f=${e%%:*}; s=${e##*:}; n=$(basename $f .ua)
    echo "=== $n -$s $arch" 
    NAKIRI_TUNE_CACHE=$OUT/cache $NAKIRI tune ciphers/$f -$s --arch $arch --budget $B -o $OUT/$n-$s-$arch.c > $OUT/$n-$s-$arch.log 2>&1
    grep -E "chosen|final check|error" $OUT/$n-$s-$arch.log
  done
done
# BLAKE2s per goal, and two interleaving runs.
if [ "${EXTRA:-1}" = 0 ]; then echo DONE; exit 0; fi
for arch in std avx2; do for g in hot cold size; do
  echo "=== blake2s goal $g $arch"
  NAKIRI_TUNE_CACHE=$OUT/cache $NAKIRI tune ciphers/blake2s/blake2s.ua -V --arch $arch --goal $g --budget 60 -o $OUT/b2goal-$g-$arch.c > $OUT/b2goal-$g-$arch.log 2>&1
  grep -E "chosen|final check|error" $OUT/b2goal-$g-$arch.log
done; done
for e in "rectangle/rectangle.ua std" "serpent/serpent.ua avx2"; do set -- $e; n=$(basename $1 .ua)
  echo "=== $n interleave $2"
  NAKIRI_TUNE_CACHE=$OUT/cache $NAKIRI tune ciphers/$1 -V --arch $2 --allow-abi-change --knobs interleave,inline,loops --budget 60 -o $OUT/inter-$n-$2.c > $OUT/inter-$n-$2.log 2>&1
  grep -E "chosen|final check|error" $OUT/inter-$n-$2.log
done
echo DONE
