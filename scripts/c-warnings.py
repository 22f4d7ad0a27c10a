#!/usr/bin/env python3
"""Count the C compilers' -Wall -Wextra warnings on nakiri's output for every shipped cipher.

For every cipher x slicing of the `bench ciphers` table (src/cli/bench/ciphers.rs) and every
x86 target (std, sse, avx2, avx512) it writes the C and header with the nakiri binary, then
runs `gcc` and `clang` with `-std=gnu11 -fsyntax-only -Wall -Wextra` on each file (avx512 with
`-march=icelake-server`, which only checks it: this need not be the host's CPU), and on the mode
helpers that include a generated header (ciphers/aes/aes_ctr.c over aes_rk.h, and
ciphers/chacha20/chacha20_stream.c over chacha20.h). Prints the warnings per class (the
`-W...` flag the compiler names) per compiler, and with `-v` each file's count.

    scripts/c-warnings.py [--nakiri target/release/nakiri] [--out DIR] [--only WORD,..]
                          [--arch std,sse,avx2,avx512] [--keep-going] [-j N] [-v]
                          [-- extra nakiri compile flags]

Exit status 0 when there is no warning, 1 otherwise.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCH_FLAGS = {
    "std": [],
    "sse": [],
    "avx2": [],
    "avx512": ["-march=icelake-server"],
}
WARN_RE = re.compile(r"^(\S+?):(\d+):(\d+): warning: (.*?)(?: \[(-W[^\]]+)\])?$")


def cipher_table():
    """(file, slicings) of src/cli/bench/ciphers.rs's CIPHERS."""
    text = open(os.path.join(ROOT, "src/cli/bench/ciphers.rs")).read()
    out = []
    for m in re.finditer(r'file:\s*"([^"]+)",\s*slicings:\s*&\[([^\]]*)\]', text):
        out.append((m.group(1), [s.strip() for s in m.group(2).split(",") if s.strip()]))
    if not out:
        sys.exit("no cipher found in src/cli/bench/ciphers.rs")
    return out


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nakiri", default=os.path.join(ROOT, "target/release/nakiri"))
    ap.add_argument("--out", default="/tmp/nk-warn")
    ap.add_argument("--only", default="")
    ap.add_argument("--arch", default="std,sse,avx2,avx512")
    ap.add_argument("--cc", default="gcc,clang")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--no-generate", action="store_true", help="reuse the C already in --out")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    archs = a.arch.split(",")
    ccs = [c for c in a.cc.split(",") if shutil.which(c)]
    only = [w for w in a.only.split(",") if w]
    os.makedirs(a.out, exist_ok=True)

    jobs = []  # (stem, file, slicing, arch)
    for f, sl in cipher_table():
        if only and not any(w in f for w in only):
            continue
        for s in sl:
            for arch in archs:
                stem = "%s.%s.%s" % (os.path.basename(f)[:-3], s, arch)
                jobs.append((stem, f, s, arch))

    def generate(job):
        stem, f, s, arch = job
        d = os.path.join(a.out, stem)
        os.makedirs(d, exist_ok=True)
        base = os.path.basename(f)[:-3]
        rc, msg = run([a.nakiri, "compile", os.path.join(ROOT, f), "-" + s, "--arch", arch,
                       "-o", os.path.join(d, base + ".c")] + a.extra)
        return job, rc, msg

    if not a.no_generate:
        with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
            for (stem, *_), rc, msg in ex.map(generate, jobs):
                if rc != 0:
                    sys.exit("nakiri failed on %s:\n%s" % (stem, msg))

    # Compile units: each generated .c, plus the mode helpers over their generated header.
    units = []  # (label, cc, args)
    for stem, f, s, arch in jobs:
        d = os.path.join(a.out, stem)
        base = os.path.basename(f)[:-3]
        srcs = [os.path.join(d, base + ".c")]
        if base == "aes_rk":
            srcs.append(os.path.join(ROOT, "ciphers/aes/aes_ctr.c"))
        if base == "chacha20":
            srcs.append(os.path.join(ROOT, "ciphers/chacha20/chacha20_stream.c"))
        for src in srcs:
            for cc in ccs:
                args = [cc, "-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra"] + ARCH_FLAGS[arch]
                args += ["-I", d, "-I", os.path.dirname(src), src]
                units.append(("%s/%s" % (stem, os.path.basename(src)), cc, args))

    def compile_unit(u):
        label, cc, args = u
        rc, msg = run(args)
        return u, rc, msg

    counts = {cc: collections.Counter() for cc in ccs}
    per_file = collections.Counter()
    errors = []
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        for (label, cc, args), rc, msg in ex.map(compile_unit, units):
            if rc != 0:
                errors.append((label, cc, msg[:2000]))
            for line in msg.splitlines():
                m = WARN_RE.match(line)
                if m:
                    counts[cc][m.group(5) or "(no flag)"] += 1
                    per_file[(label, cc)] += 1

    for label, cc, msg in errors:
        print("ERROR %s %s\n%s" % (cc, label, msg))
    if a.v:
        for (label, cc), n in sorted(per_file.items()):
            print("%6d  %-6s %s" % (n, cc, label))
    print("units: %d files x %d compilers (%d compiles)" % (len(units) // max(len(ccs), 1), len(ccs), len(units)))
    total = 0
    for cc in ccs:
        print("%s: %d warnings" % (cc, sum(counts[cc].values())))
        for k, n in counts[cc].most_common():
            print("  %7d  %s" % (n, k))
        total += sum(counts[cc].values())
    return 1 if total or errors else 0


if __name__ == "__main__":
    sys.exit(main())
