//! Static analysis of a built object's disassembly (`objdump -dwr` text): instructions, stack
//! loads/stores ("spills") and code bytes of a function and of the functions it calls.
//!
//! Counting rules (the same for every target, so numbers compare across variants):
//! - **Instructions per call** of a function = its own instructions, each multiplied by the trip
//!   counts of the loops around it, plus, at each `call` (or tail `jmp`) to a function of the
//!   same object, the callee's instructions per call (recursively; a call to a function outside
//!   the object, e.g. `memcpy`, counts as one instruction and is listed in `external`).
//! - **Loops**: a conditional jump backwards inside a function. Its trip count is recognised on
//!   the two shapes gcc emits for counted loops: a counter set by `mov $X,%r` before the loop and
//!   counted down by `sub $k,%r`/`dec %r` to zero (trip X/k), or counted up by `add $k,%r`/`inc`
//!   from `xor %r,%r`/`mov $X,%r` and compared with `cmp $N,%r` (trip (N-X)/k), or a pointer
//!   stepped by `add $k` up to another register, both set by `lea D(%base)` from one base
//!   (trip (D1-D0)/k; a pointer copied by `mov %base,%r` counts as D = 0), or the bound set
//!   by `lea D(%counter)` from the counter (trip D/k). Any other loop is counted once and the
//!   result is marked `approx`.
//! - **Spills**: instructions with a memory operand addressed by `%rsp` (or by `%rbp` in a
//!   function that sets up `%rbp` as its frame pointer); a store when that operand is the
//!   destination (last in AT&T syntax), else a load. `push`/`pop` (register saves in the
//!   prologue) and `lea` (no memory access) are not counted.
//! - **Code bytes**: the sizes of the function and of every function it reaches, each once,
//!   without the alignment padding after its last instruction.

use std::collections::{HashMap, HashSet};

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Insn {
    pub addr: u64,
    pub size: u64,
    pub mnemonic: String,
    pub operands: String,
    /// Function named as a call or jump target (from `<name>` or from a relocation).
    pub target_fn: Option<String>,
    /// Address of a jump target inside the same function.
    pub target_addr: Option<u64>,
}

/// One function of the disassembly.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub name: String,
    pub insns: Vec<Insn>,
}

/// Totals for one function and everything it calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub insns: f64,
    pub spill_loads: f64,
    pub spill_stores: f64,
    pub code_bytes: u64,
    /// Functions reached (the entry first).
    pub functions: Vec<String>,
    /// Functions called that are not in the object.
    pub external: Vec<String>,
    /// A loop whose trip count was not recognised was counted once.
    pub approx: bool,
}

const PREFIXES: &[&str] = &[
    "rep", "repz", "repe", "repnz", "repne", "lock", "cs", "ds", "ss", "es", "fs", "gs", "data16",
    "notrack", "bnd", "addr32",
];

fn is_hex_byte(s: &str) -> bool {
    s.len() == 2 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// Parses `objdump -dwr` output (raw bytes shown, one line per instruction).
pub fn parse(text: &str) -> Vec<Func> {
    let mut funcs: Vec<Func> = Vec::new();
    for line in text.lines() {
        let t = line.trim_end();
        // Function header: "0000000000000050 <name>:"
        if let Some(rest) = t.strip_suffix(">:") {
            if let Some((addr, name)) = rest.split_once(" <") {
                if u64::from_str_radix(addr.trim(), 16).is_ok() {
                    funcs.push(Func {
                        name: name.to_string(),
                        insns: Vec::new(),
                    });
                    continue;
                }
            }
        }
        let Some(f) = funcs.last_mut() else { continue };
        let trimmed = t.trim_start();
        let Some((addr_s, rest)) = trimmed.split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr_s.trim(), 16) else {
            continue;
        };
        let rest = rest.trim_start();
        // Relocation line: "1f: R_X86_64_PLT32\tmemcpy-0x4"
        if rest.starts_with("R_") {
            let sym = rest.split_whitespace().nth(1).unwrap_or("");
            let sym = sym.split(['+', '-']).next().unwrap_or("").to_string();
            if let Some(last) = f.insns.last_mut() {
                let is_branch =
                    last.mnemonic.starts_with("call") || last.mnemonic.starts_with("jmp");
                if is_branch
                    && addr > last.addr
                    && addr < last.addr + last.size
                    && !sym.is_empty()
                    && !sym.starts_with('.')
                {
                    last.target_fn = Some(sym);
                    last.target_addr = None;
                }
            }
            continue;
        }
        // Instruction line: "<bytes>\t<mnemonic> <operands>"
        let (bytes_s, asm) = match rest.split_once('\t') {
            Some((b, a)) => (b, a.trim()),
            None => (rest, ""),
        };
        let size = bytes_s
            .split_whitespace()
            .filter(|b| is_hex_byte(b))
            .count() as u64;
        if size == 0 {
            continue;
        }
        if asm.is_empty() {
            // A continuation of the previous instruction's bytes (objdump without -w).
            if let Some(last) = f.insns.last_mut() {
                last.size += size;
            }
            continue;
        }
        let mut words = asm.split_whitespace().peekable();
        let mut mnemonic = String::new();
        while let Some(w) = words.next() {
            if !mnemonic.is_empty() {
                mnemonic.push(' ');
            }
            mnemonic.push_str(w);
            if !PREFIXES.contains(&w) || words.peek().is_none() {
                break;
            }
        }
        let operands = words.collect::<Vec<_>>().join(" ");
        let operands = match operands.split_once('#') {
            Some((o, _)) => o.trim().to_string(),
            None => operands,
        };
        let base = mnemonic.rsplit(' ').next().unwrap_or("").to_string();
        let (mut target_fn, mut target_addr) = (None, None);
        if base.starts_with('j') || base.starts_with("call") {
            if let (Some(lt), Some(gt)) = (operands.find('<'), operands.rfind('>')) {
                let inner = &operands[lt + 1..gt];
                let name = inner.split('+').next().unwrap_or(inner);
                let tgt = operands[..lt].trim();
                let ta = u64::from_str_radix(tgt, 16).ok();
                if name == f.name {
                    target_addr = ta;
                } else if !inner.contains('+') {
                    target_fn = Some(name.to_string());
                }
            }
        }
        f.insns.push(Insn {
            addr,
            size,
            mnemonic,
            operands,
            target_fn,
            target_addr,
        });
    }
    for f in &mut funcs {
        while f.insns.last().is_some_and(is_padding) {
            f.insns.pop();
        }
    }
    funcs
}

fn is_padding(i: &Insn) -> bool {
    let b = i.mnemonic.rsplit(' ').next().unwrap_or("");
    b.starts_with("nop") || b == "int3" || (b == "xchg" && i.operands == "%ax,%ax")
}

fn base_mnemonic(i: &Insn) -> &str {
    i.mnemonic.rsplit(' ').next().unwrap_or("")
}

/// Splits AT&T operands at top-level commas.
fn split_operands(ops: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in ops.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(ops[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    if !ops.trim().is_empty() {
        out.push(ops[start..].trim());
    }
    out
}

/// The register family (`%eax`, `%rax`, `%al` → `a`; `%r8d` → `r8`).
fn reg_family(r: &str) -> Option<String> {
    let r = r.trim().strip_prefix('%')?;
    if let Some(d) = r.strip_prefix('r') {
        let digits: String = d.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            return Some(format!("r{}", digits));
        }
    }
    let core = r.trim_start_matches(['r', 'e']);
    let fam = match core {
        "ax" | "al" | "ah" => "a",
        "bx" | "bl" | "bh" => "b",
        "cx" | "cl" | "ch" => "c",
        "dx" | "dl" | "dh" => "d",
        "si" | "sil" => "si",
        "di" | "dil" => "di",
        "bp" | "bpl" => "bp",
        "sp" | "spl" => "sp",
        _ => return None,
    };
    Some(fam.to_string())
}

/// Where a loop counter lives: a register family, or a memory operand's text (a counter gcc
/// keeps on the stack, `decl -0x18(%rsp)`).
fn loc(o: &str) -> Option<String> {
    let o = o.trim();
    if o.starts_with('%') {
        reg_family(o)
    } else if o.contains('(') && !o.starts_with('$') {
        Some(o.to_string())
    } else {
        None
    }
}

/// `decl`/`subq`/`movl`/`cmpl`… → `dec`/`sub`/`mov`/`cmp` (the ALU mnemonics loops use).
fn alu(b: &str) -> &str {
    for base in ["add", "sub", "inc", "dec", "cmp", "mov", "xor"] {
        if b == base
            || (b.len() == base.len() + 1
                && b.starts_with(base)
                && b.ends_with(['b', 'w', 'l', 'q']))
        {
            return base;
        }
    }
    b
}

fn imm(s: &str) -> Option<i64> {
    let s = s.trim().strip_prefix('$')?;
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        // (objdump prints a negative 64-bit immediate as its two's complement:
        // `sub $0xffffffffffffff80,%rdx` adds 128)
        Some(h) => u64::from_str_radix(h, 16).ok()? as i64,
        None => s.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// Instructions that do not write the flags (skipped when looking for a loop's counter).
fn keeps_flags(i: &Insn) -> bool {
    let b = base_mnemonic(i);
    b.starts_with('v')
        || b.starts_with('p')
        || b.starts_with("mov")
        || b == "lea"
        || b.starts_with("nop")
        || b.starts_with("cmov")
        || b.starts_with("set")
        || b.starts_with("kmov")
        || b.ends_with("ps")
        || b.ends_with("pd")
        || [
            "rorx", "sarx", "shlx", "shrx", "mulx", "bswap", "not", "notl", "notq",
        ]
        .contains(&b)
}

/// Initial value of register family `fam` set before instruction index `before`: a constant
/// (`mov $X`, `xor %r,%r`) or an address `lea D(%base)` (base register, D).
fn init_value_at(insns: &[Insn], before: usize, fam: &str) -> Option<(Option<String>, i64)> {
    for i in insns[..before].iter().rev() {
        let ops = split_operands(&i.operands);
        let b = alu(base_mnemonic(i));
        if ops.len() == 2 && loc(ops[1]).as_deref() == Some(fam) {
            if b == "mov" {
                // `mov $X,%r`, or `mov %base,%r` (a pointer copied: base + 0)
                return match imm(ops[0]) {
                    Some(v) => Some((None, v)),
                    None if ops[0].trim().starts_with('%') => {
                        Some((Some(ops[0].trim().to_string()), 0))
                    }
                    None => None,
                };
            }
            if b == "xor" && loc(ops[0]).as_deref() == Some(fam) {
                return Some((None, 0));
            }
            if b == "lea" {
                let (disp, base) = ops[0].split_once('(')?;
                if base.contains(',') {
                    return None;
                }
                let d = if disp.is_empty() {
                    0
                } else {
                    imm(&format!("${}", disp))?
                };
                return Some((Some(base.trim_end_matches(')').to_string()), d));
            }
            return None;
        }
    }
    None
}

fn init_value(insns: &[Insn], before: usize, fam: &str) -> Option<i64> {
    match init_value_at(insns, before, fam)? {
        (None, v) => Some(v),
        _ => None,
    }
}

/// Trip count of the loop closed by the backward conditional jump `insns[j]` to `insns[start]`.
fn trip_count(insns: &[Insn], start: usize, j: usize) -> Option<u64> {
    let cond = base_mnemonic(&insns[j]).to_string();
    let mut k = j;
    let flag_setter = loop {
        if k == start {
            return None;
        }
        k -= 1;
        if !keeps_flags(&insns[k]) {
            break k;
        }
    };
    let i = &insns[flag_setter];
    let b = alu(base_mnemonic(i));
    let ops = split_operands(&i.operands);
    let step_of = |ins: &Insn, fam: &str| -> Option<i64> {
        let o = split_operands(&ins.operands);
        match (alu(base_mnemonic(ins)), o.len()) {
            ("add", 2) if loc(o[1]).as_deref() == Some(fam) => imm(o[0]),
            ("sub", 2) if loc(o[1]).as_deref() == Some(fam) => imm(o[0]).map(|v| -v),
            ("inc", 1) if loc(o[0]).as_deref() == Some(fam) => Some(1),
            ("dec", 1) if loc(o[0]).as_deref() == Some(fam) => Some(-1),
            _ => None,
        }
    };
    let trip = if b == "cmp"
        && ops.len() == 2
        && loc(ops[0]).is_some()
        && !ops[0].contains('(')
        && !ops[1].contains('(')
    {
        // cmp %r1,%r2 ; one stepped in the loop up to the other (pointers walking an array:
        // both set by `lea D(%base)` from the same base, or both constants)
        let (f0, f1) = (loc(ops[0])?, loc(ops[1])?);
        let s0 = insns[start..j].iter().find_map(|x| step_of(x, &f0));
        let s1 = insns[start..j].iter().find_map(|x| step_of(x, &f1));
        let (ctr, bound, step) = match (s0, s1) {
            (Some(st), None) => (f0, f1, st),
            (None, Some(st)) => (f1, f0, st),
            _ => return None,
        };
        let (b0, x0) = init_value_at(insns, start, &ctr)?;
        let (b1, n) = init_value_at(insns, start, &bound)?;
        // (the bound may also be `lea D(%ctr)`, set from the counter's initial value)
        let (b1, n) = match &b1 {
            Some(b) if reg_family(b).as_deref() == Some(ctr.as_str()) => (b0.clone(), x0 + n),
            _ => (b1, n),
        };
        if b0 != b1 || step <= 0 || n <= x0 || cond != "jne" || (n - x0) % step != 0 {
            return None;
        }
        (n - x0) / step
    } else if b == "cmp" && ops.len() == 2 {
        // cmp $N,%r ; counter stepped somewhere in the loop
        let n = imm(ops[0])?;
        let fam = loc(ops[1])?;
        let step = insns[start..j].iter().find_map(|x| step_of(x, &fam))?;
        let x0 = init_value(insns, start, &fam)?;
        if step <= 0 || n <= x0 {
            return None;
        }
        let span = n - x0;
        match cond.as_str() {
            "jne" | "jb" | "jl" => (span + step - 1) / step,
            "jbe" | "jle" => span / step + 1,
            _ => return None,
        }
    } else {
        // sub $k,%r / dec %r / add $-k,%r ; jne: counts down to zero
        let fam = loc(ops.last()?)?;
        let step = step_of(i, &fam)?;
        if cond != "jne" || step >= 0 {
            return None;
        }
        let x0 = init_value(insns, start, &fam)?;
        if x0 <= 0 || x0 % -step != 0 {
            return None;
        }
        x0 / -step
    };
    (trip > 0).then_some(trip as u64)
}

/// Per-instruction loop multipliers of one function; `approx` when a loop was not recognised.
fn multipliers(f: &Func) -> (Vec<f64>, bool) {
    let mut mult = vec![1.0; f.insns.len()];
    let mut approx = false;
    let index: HashMap<u64, usize> = f
        .insns
        .iter()
        .enumerate()
        .map(|(k, i)| (i.addr, k))
        .collect();
    for (j, i) in f.insns.iter().enumerate() {
        let b = base_mnemonic(i);
        if !b.starts_with('j') || b == "jmp" {
            continue;
        }
        let Some(ta) = i.target_addr else { continue };
        if ta >= i.addr {
            continue;
        }
        let Some(&start) = index.get(&ta) else {
            approx = true;
            continue;
        };
        match trip_count(&f.insns, start, j) {
            Some(t) => {
                for m in &mut mult[start..=j] {
                    *m *= t as f64;
                }
            }
            None => approx = true,
        }
    }
    (mult, approx)
}

fn uses_frame_pointer(f: &Func) -> bool {
    f.insns
        .iter()
        .take(8)
        .any(|i| base_mnemonic(i) == "mov" && i.operands.replace(' ', "") == "%rsp,%rbp")
}

/// (load, store) spill counts of one instruction.
fn spill_kind(i: &Insn, frame: bool) -> (u32, u32) {
    let b = base_mnemonic(i);
    if b == "lea"
        || b.starts_with("push")
        || b.starts_with("pop")
        || b.starts_with("nop")
        || b.starts_with("prefetch")
    {
        return (0, 0);
    }
    let ops = split_operands(&i.operands);
    let is_stack = |o: &str| o.contains("(%rsp") || (frame && o.contains("(%rbp"));
    let Some(pos) = ops.iter().rposition(|o| is_stack(o)) else {
        return (0, 0);
    };
    let read_only = b.starts_with("cmp")
        || b.starts_with("test")
        || b.contains("ucomis")
        || b.contains("comis")
        || b.ends_with("ptest")
        || b == "bt";
    let rmw1 = ops.len() == 1
        && ["inc", "dec", "neg", "not"]
            .iter()
            .any(|m| b.starts_with(m));
    if rmw1 || (pos + 1 == ops.len() && ops.len() > 1 && !read_only) {
        (0, 1)
    } else {
        (1, 0)
    }
}

struct Analyzer<'a> {
    by_name: HashMap<&'a str, &'a Func>,
    memo: HashMap<String, (f64, f64, f64)>,
    reached: Vec<String>,
    seen: HashSet<String>,
    external: Vec<String>,
    approx: bool,
}

impl<'a> Analyzer<'a> {
    fn cost(&mut self, name: &str, stack: &mut Vec<String>) -> (f64, f64, f64) {
        if let Some(c) = self.memo.get(name) {
            return *c;
        }
        let Some(f) = self.by_name.get(name).copied() else {
            return (0.0, 0.0, 0.0);
        };
        if self.seen.insert(name.to_string()) {
            self.reached.push(name.to_string());
        }
        stack.push(name.to_string());
        let (mult, approx) = multipliers(f);
        self.approx |= approx;
        let frame = uses_frame_pointer(f);
        let (mut n, mut ld, mut st) = (0.0, 0.0, 0.0);
        for (i, m) in f.insns.iter().zip(&mult) {
            n += m;
            let (l, s) = spill_kind(i, frame);
            ld += m * l as f64;
            st += m * s as f64;
            let b = base_mnemonic(i);
            if let Some(t) = &i.target_fn {
                if b.starts_with("call") || b == "jmp" {
                    if self.by_name.contains_key(t.as_str()) {
                        if !stack.contains(t) {
                            let (cn, cl, cs) = self.cost(t, stack);
                            n += m * cn;
                            ld += m * cl;
                            st += m * cs;
                        }
                    } else if !self.external.contains(t) {
                        self.external.push(t.clone());
                    }
                }
            }
        }
        stack.pop();
        self.memo.insert(name.to_string(), (n, ld, st));
        (n, ld, st)
    }
}

/// Statistics of `entry` (per call) and everything it calls; `None` if it is not in `funcs`.
pub fn analyze(funcs: &[Func], entry: &str) -> Option<Stats> {
    let by_name: HashMap<&str, &Func> = funcs.iter().map(|f| (f.name.as_str(), f)).collect();
    by_name.get(entry)?;
    let mut a = Analyzer {
        by_name,
        memo: HashMap::new(),
        reached: Vec::new(),
        seen: HashSet::new(),
        external: Vec::new(),
        approx: false,
    };
    let (n, ld, st) = a.cost(entry, &mut Vec::new());
    let code_bytes = a
        .reached
        .iter()
        .map(|f| {
            a.by_name[f.as_str()]
                .insns
                .iter()
                .map(|i| i.size)
                .sum::<u64>()
        })
        .sum();
    Some(Stats {
        insns: n,
        spill_loads: ld,
        spill_stores: st,
        code_bytes,
        functions: a.reached,
        external: a.external,
        approx: a.approx,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written by hand in the shape of `objdump -dwr` output of a gcc -O3 object: an entry with
    /// a counted-down loop calling a helper, a helper with spills, a call to memcpy through a
    /// relocation, alignment padding, and an unrelated function.
    const SNIPPET: &str = "
ex.o:     file format elf64-x86-64


Disassembly of section .text:

0000000000000000 <helper>:
   0:\t55                   \tpush   %rbp
   1:\t48 89 e5             \tmov    %rsp,%rbp
   4:\tc5 fd 7f 44 24 20    \tvmovdqa %ymm0,0x20(%rsp)
   a:\tc5 fd 6f 4d e0       \tvmovdqa -0x20(%rbp),%ymm1
   f:\tc5 f5 ef 44 24 20    \tvpxor  0x20(%rsp),%ymm1,%ymm0
  15:\t48 8d 44 24 08       \tlea    0x8(%rsp),%rax
  1a:\t5d                   \tpop    %rbp
  1b:\tc3                   \tret
  1c:\t0f 1f 40 00          \tnopl   0x0(%rax)

0000000000000020 <E__>:
  20:\t53                   \tpush   %rbx
  21:\tbb 0a 00 00 00       \tmov    $0xa,%ebx
  26:\tc5 fd 6f 07          \tvmovdqa (%rdi),%ymm0
  2a:\te8 d1 ff ff ff       \tcall   0 <helper>
  2f:\tc5 fd ef c0          \tvpxor  %ymm0,%ymm0,%ymm0
  33:\t83 eb 01             \tsub    $0x1,%ebx
  36:\t75 ee                \tjne    26 <E__+0x6>
  38:\t31 c0                \txor    %eax,%eax
  3a:\t48 89 04 24          \tmov    %rax,(%rsp)
  3e:\t48 83 c0 01          \tadd    $0x1,%rax
  42:\t48 83 f8 04          \tcmp    $0x4,%rax
  46:\t75 f2                \tjne    3a <E__+0x1a>
  48:\te8 00 00 00 00       \tcall   4d <E__+0x2d>
\t\t\t49: R_X86_64_PLT32\tmemcpy-0x4
  4d:\t5b                   \tpop    %rbx
  4e:\tc3                   \tret
  4f:\t90                   \tnop

0000000000000050 <other>:
  50:\tc3                   \tret
";

    #[test]
    fn parses_functions_sizes_and_targets() {
        let f = parse(SNIPPET);
        assert_eq!(
            f.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["helper", "E__", "other"]
        );
        assert_eq!(f[0].insns.len(), 8, "trailing nopl is padding");
        assert_eq!(f[0].insns[2].size, 6);
        assert_eq!(f[1].insns[3].target_fn.as_deref(), Some("helper"));
        assert_eq!(f[1].insns[6].target_addr, Some(0x26));
        assert_eq!(
            f[1].insns[12].target_fn.as_deref(),
            Some("memcpy"),
            "callee from the relocation"
        );
        assert_eq!(f[1].insns.len(), 15);
    }

    #[test]
    fn counts_loops_calls_and_spills() {
        let f = parse(SNIPPET);
        let h = analyze(&f, "helper").unwrap();
        assert_eq!(h.insns, 8.0);
        // 0x20(%rsp) store, -0x20(%rbp) load (frame pointer), 0x20(%rsp) load; lea/push/pop not counted
        assert_eq!((h.spill_loads, h.spill_stores), (2.0, 1.0));
        assert_eq!(h.code_bytes, 0x1c);
        let e = analyze(&f, "E__").unwrap();
        // own: 2 before the loop + 5 in the loop x10 + xor + 4 in the loop x4 + call, pop, ret
        // helper: 8 per call x 10
        assert_eq!(e.insns, 2.0 + 50.0 + 1.0 + 16.0 + 3.0 + 80.0);
        assert_eq!(e.spill_stores, 4.0 + 10.0);
        assert_eq!(e.spill_loads, 20.0);
        assert_eq!(e.code_bytes, 0x1c + (0x4f - 0x20));
        assert_eq!(e.functions, ["E__", "helper"]);
        assert_eq!(e.external, ["memcpy"]);
        assert!(!e.approx);
        assert!(analyze(&f, "missing").is_none());
    }

    #[test]
    fn unknown_loop_is_counted_once_and_marked() {
        let text = "0000000000000000 <f>:\n   0:\t48 ff c0 \tinc    %rax\n   3:\t48 39 d8 \tcmp    %rbx,%rax\n   6:\t75 f8    \tjne    0 <f>\n   8:\tc3       \tret\n";
        let f = parse(text);
        // the jump shows `<f>` (offset 0): it is a jump inside f
        let s = analyze(&f, "f").unwrap();
        assert_eq!(s.insns, 4.0);
        assert!(s.approx);
    }

    #[test]
    fn counter_on_the_stack() {
        let text = "0000000000000000 <f>:\n   0:\tc7 44 24 e8 0a 00 00 00 \tmovl   $0xa,-0x18(%rsp)\n   8:\t48 01 c3 \tadd    %rax,%rbx\n   b:\tff 4c 24 e8 \tdecl   -0x18(%rsp)\n   f:\t75 f7    \tjne    8 <f+0x8>\n  11:\tc3       \tret\n";
        let s = analyze(&parse(text), "f").unwrap();
        assert_eq!(s.insns, 1.0 + 30.0 + 1.0);
        assert!(!s.approx);
        // the counter's init and decrement are stack accesses: 1 store, 10 read-modify-writes (stores)
        assert_eq!(s.spill_stores, 11.0);
    }

    /// The instructions `f` in `text` executes, asserting the count is exact (no `~`).
    fn exact_insns(text: &str) -> f64 {
        let s = analyze(&parse(text), "f").unwrap();
        assert!(!s.approx, "loop bound not recognised");
        s.insns
    }

    #[test]
    fn pointer_walking_loop() {
        let text = "0000000000000000 <f>:\n   0:\t48 8d 94 24 08 02 00 00 \tlea    0x208(%rsp),%rdx\n   8:\t48 8d 84 24 48 01 00 00 \tlea    0x148(%rsp),%rax\n  10:\tc5 fd 6f 00 \tvmovdqa (%rax),%ymm0\n  14:\t48 83 c0 20 \tadd    $0x20,%rax\n  18:\t48 39 c2 \tcmp    %rax,%rdx\n  1b:\t75 f3    \tjne    10 <f+0x10>\n  1d:\tc3       \tret\n";
        // (0x208 - 0x148) / 0x20 = 6 iterations of 4 instructions
        assert_eq!(exact_insns(text), 2.0 + 24.0 + 1.0);
    }

    #[test]
    fn pointer_bound_from_the_counter() {
        // gcc 12 on a single-buffer kept loop (Ascon -B avx512): a table pointer from `lea
        // (%rip)`, the bound `lea 0x300(%rdx)` from it, stepped by 0x40: 12 iterations
        let text = "0000000000000000 <f>:\n   0:\t48 8d 15 00 00 00 00 \tlea    0x0(%rip),%rdx        # 7 <f+0x7>\n   7:\t48 8d 8a 00 03 00 00 \tlea    0x300(%rdx),%rcx\n   e:\tc5 fd 6f 02 \tvmovdqa (%rdx),%ymm0\n  12:\t48 83 c2 40 \tadd    $0x40,%rdx\n  16:\t48 39 d1 \tcmp    %rdx,%rcx\n  19:\t75 f3    \tjne    e <f+0xe>\n  1b:\tc3       \tret\n";
        assert_eq!(exact_insns(text), 2.0 + 12.0 * 4.0 + 1.0);
    }

    #[test]
    fn pointer_copied_from_the_base() {
        // gcc 12 on RECTANGLE -B avx512 (round keys read in place): the key pointer copied,
        // the bound 25 rounds of 0x1000 bytes past it
        let text = "0000000000000000 <f>:\n   0:\t48 89 f1 \tmov    %rsi,%rcx\n   3:\t48 8d be 00 90 01 00 \tlea    0x19000(%rsi),%rdi\n   a:\t62 f1 7d 48 6f 19 \tvmovdqa32 (%rcx),%zmm3\n  10:\t48 81 c1 00 10 00 00 \tadd    $0x1000,%rcx\n  17:\t48 39 cf \tcmp    %rcx,%rdi\n  1a:\t75 ee    \tjne    a <f+0xa>\n  1c:\tc3       \tret\n";
        assert_eq!(exact_insns(text), 2.0 + 25.0 * 4.0 + 1.0);
    }

    #[test]
    fn operand_helpers() {
        assert_eq!(
            split_operands("0x8(%rsp,%rax,8),%ymm1"),
            ["0x8(%rsp,%rax,8)", "%ymm1"]
        );
        assert_eq!(reg_family("%r8d").as_deref(), Some("r8"));
        assert_eq!(imm("$0xffffffffffffff80"), Some(-128));
        assert_eq!(imm("$0x40"), Some(64));
        assert_eq!(reg_family("%eax").as_deref(), Some("a"));
        assert_eq!(reg_family("%rsi").as_deref(), Some("si"));
        assert_eq!(imm("$0xa"), Some(10));
        assert_eq!(imm("$-0x2"), Some(-2));
    }
}
