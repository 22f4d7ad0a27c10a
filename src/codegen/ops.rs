//! One IR operation → one C expression, per target and slicing.
//!
//! - `std`: plain C operators on `uintN_t` (vslice: the smallest container of the word size,
//!   values kept zero-extended, masked after ops that can overflow) or `uint64_t` (bit/hslice).
//! - SIMD (`sse`, `avx2`, `avx512`, `neon`): the `NK_*` macros of the runtime prelude.
//!
//! Bit permutations (`Shuffle` in vslice) and slot permutations (hslice `Shl/Shr/Rotl/Rotr/
//! Shuffle`, plus `Sar`/`Bitmask` which are also slot maps) become small generated helper
//! functions or one `NK_PSHUFB`, deduplicated per pattern in [`Helpers`].

use super::c_emit::lit;
use super::Arch;
use crate::fxhash::FxHashMap as HashMap;
use crate::ir::{mask, Node, Op, Slicing, VarId};
use crate::runtime::{std_container, std_container_bits};
use crate::target::shuffle::{self, Term};
use std::collections::BTreeMap;

/// Target facts the expressions depend on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpTarget {
    pub arch: Arch,
    pub slicing: Slicing,
    /// hslice lane width L: `arch.hslice_lane_bits()`, or `-bits-per-reg N` on std (C3).
    pub lane_bits: u32,
    /// One 256-bit half of the AVX-512 raw entry's registers (`--entry-halves`): the
    /// functions' registers are `__m256i`.
    pub half: bool,
    /// (a half, in place: `--halves-in-place`) Every `DATATYPE` array the functions read or
    /// write (parameters, kept loops' buffers and the arrays passed to them) holds element `f`
    /// at `f * 2`, the other half's element between (see [`OpTarget::stride`]).
    pub strided: bool,
    /// Memory-form loop bodies read each state slot into a register the C compiler cannot
    /// trace back to memory, again only after [`STATE_LOAD_WINDOW`] instructions without a
    /// read (`--state-loads`; `None`: [`crate::codegen::state_loads_rule`] decides per body).
    pub state_loads: Option<bool>,
    /// `--loop-align K` (`CodegenConfig::loop_align`).
    pub loop_align: Option<u32>,
}

/// With `--state-loads`, a state slot read again within this many instructions of its last
/// read reuses the register; later, it is read from memory again (measured on Zen 4: README
/// "State loads").
pub const STATE_LOAD_WINDOW: usize = 8;

impl OpTarget {
    /// hslice slot width S of m-bit words (`Arch::hslice_slot_bits` with this lane width).
    pub fn slot_bits(&self, m: u32) -> u32 {
        if self.arch == Arch::Std {
            self.lane_bits / m.max(1)
        } else {
            self.arch.hslice_slot_bits(m)
        }
    }
    fn simd(&self) -> bool {
        self.arch != Arch::Std
    }
    /// Elements of one register per `DATATYPE` array element: 2 in a half of the
    /// AVX-512 entry (the other half's element interleaved), else 1.
    pub fn stride(&self) -> usize {
        if self.strided {
            2
        } else {
            1
        }
    }
    /// The architecture whose intrinsics spell a register's width: AVX2's (256 bits) in a half.
    pub fn width_arch(&self) -> Arch {
        if self.half {
            Arch::Avx2
        } else {
            self.arch
        }
    }
    /// `v` with its last entry times the stride.
    fn last_strided(&self, mut v: Vec<usize>) -> Vec<usize> {
        if let Some(l) = v.last_mut() {
            *l *= self.stride();
        }
        v
    }
    /// `[d0][d1]..` of a `DATATYPE` array of these dimensions, the last one times the stride.
    pub fn dims(&self, d: &[usize]) -> String {
        super::dims(&self.last_strided(d.to_vec()))
    }
    /// `[i0][i1]..` of flat row-major index `flat` over `d` in a `DATATYPE` array, the last
    /// index times the stride (element `flat` sits at `flat * stride` of the strided array).
    pub fn index(&self, d: &[usize], flat: usize) -> String {
        super::dims(&self.last_strided(super::index_of(d, flat)))
    }
    /// Position of element `k` of a one-dimensional `DATATYPE` array (or pointer).
    pub fn at(&self, k: usize) -> usize {
        k * self.stride()
    }
    /// The C type of an atom of `bits` bits.
    pub fn atom_type(&self, bits: u32) -> String {
        if self.arch == Arch::Std && self.slicing == Slicing::V {
            std_container(bits).to_string()
        } else {
            "DATATYPE".to_string()
        }
    }
}

/// Generated helper functions (bit/slot permutations), deduplicated by pattern.
#[derive(Default)]
pub(crate) struct Helpers {
    pub defs: Vec<String>,
    /// Put before every helper's name: a second set of helpers in the same file, typed by
    /// another `DATATYPE` (`--entry-halves`), gets names of its own.
    pub name_prefix: &'static str,
    index: HashMap<String, String>,
    counter: BTreeMap<&'static str, usize>,
    /// 64-bit AVX-512 rotations emitted so far (for [`ROT64_P5_EVERY`]).
    rot64: usize,
    /// Whether the program being emitted takes [`ROT64_P5_EVERY`] (not interleaved).
    pub rot64_p5: bool,
}

/// SSE/AVX2 vslice: an all-ones word constant is `NK_ONES_OPAQUE`, all ones behind an empty
/// `asm` on the register, which the C compiler cannot see as such. Seen as all ones, gcc rewrote
/// ACE's `x ^ 0xffffffff` (its 64-bit constants' high words) into masks that it then did not fold
/// into `vpternlog` (with `-march=native` on a CPU with AVX-512VL): 178 `vpand` and 36
/// broadcasts more in ACE `-V` avx2's entry, 1863 vector ALU instructions against 1678. ACE `-V`,
/// time before / after (Intel, 2026-11-27): avx2 1.133 raw, 1.114 packed; sse 1.126 / 1.117. No
/// other shipped vsliced source has an all-ones word constant on these targets. AVX-512 keeps
/// `NK_SET1` (its ternlogs are nakiri's own; ACE there within 1%).
pub const OPAQUE_ONES: bool = true;

/// On AVX-512, one 64-bit rotation in this many (in emission order) is `NK_ROTR64_P5` /
/// `NK_ROTL64_P5`: `vpmultishiftqb` (VBMI) where the C compiler targets it, which runs on port
/// 5 where `vprorq` runs on port 0 only (Intel), so a program dense in rotations (Ascon's
/// linear layer: 10 of its ~27 instructions per round) spreads them over both vector ports.
/// Ascon p12 `-V` avx512 raw on the Intel machine (2026-11-27, hand-edited C, time after /
/// before): one in 2 0.977, one in 3 0.968, one in 4 0.975, one in 5 0.970; all of them 0.93
/// (`vpmultishiftqb` has latency 3). Not in interleaved programs (the packed entry's 2-way
/// kernel, `--interleave`), whose copies give the ports work already: Ascon p12 / p8 / p6
/// packed 0.994 / 0.968 / 0.999 with it in the kernel. Only 64-bit lanes: a 32-bit rotation's
/// bits wrap inside its half of the qword, which the byte-window gather cannot express.
/// Intel only (`--uarch`): on Zen 4 `vpmultishiftqb` and `vprorq` share one pipe (8 of either,
/// or 4 of each, take 8 cycles) and their latencies are 3 and 2, so the form only lengthens
/// the chain: without it Ascon p12 / p6 / p8 `-V` avx512 run 1.037 / 1.023 / 1.033x faster
/// raw (2026-11-27, `bench compare`).
pub const ROT64_P5_EVERY: usize = 3;

impl Helpers {
    /// Returns the name of the helper for `key`, building its definition with `make(name)`
    /// the first time.
    pub(crate) fn get(
        &mut self,
        prefix: &'static str,
        key: String,
        make: impl FnOnce(&str) -> String,
    ) -> String {
        if let Some(n) = self.index.get(&key) {
            return n.clone();
        }
        let c = self.counter.entry(prefix).or_insert(0);
        let name = format!("{}{}{}", self.name_prefix, prefix, c);
        *c += 1;
        self.defs.push(make(&name));
        self.index.insert(key, name.clone());
        name
    }
}

/// Where each slot of an hslice word comes from: `Some(src)` or `None` (zero slot).
/// `None` when the op is not a slot map.
fn slot_map(op: &Op, m: u32) -> Option<Vec<Option<u32>>> {
    let r: Vec<Option<u32>> = match op {
        Op::Shl(_, k) => (0..m)
            .map(|j| if j + k < m { Some(j + k) } else { None })
            .collect(),
        Op::Shr(_, k) => (0..m)
            .map(|j| if j >= *k { Some(j - k) } else { None })
            .collect(),
        Op::Sar(_, k) => (0..m)
            .map(|j| if j >= *k { Some(j - k) } else { Some(0) })
            .collect(),
        Op::Rotl(_, k) => (0..m).map(|j| Some((j + k) % m)).collect(),
        Op::Rotr(_, k) => (0..m).map(|j| Some((j + m - k % m) % m)).collect(),
        Op::Shuffle(_, p) => p.iter().map(|&s| Some(s)).collect(),
        Op::Bitmask(_, k) => (0..m).map(|_| Some(*k)).collect(),
        _ => return None,
    };
    Some(r)
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Const(_) => "Const",
        Op::Copy(_) => "Copy",
        Op::Not(_) => "Not",
        Op::And(..) => "And",
        Op::Or(..) => "Or",
        Op::Xor(..) => "Xor",
        Op::Andn(..) => "Andn",
        Op::Add(..) => "Add",
        Op::Sub(..) => "Sub",
        Op::Mul(..) => "Mul",
        Op::Shl(..) => "Shl",
        Op::Shr(..) => "Shr",
        Op::Sar(..) => "Sar",
        Op::Rotl(..) => "Rotl",
        Op::Rotr(..) => "Rotr",
        Op::Shuffle(..) => "Shuffle",
        Op::Bitmask(..) => "Bitmask",
        Op::Pack(..) => "Pack",
        Op::Ternlog(..) => "Ternlog",
    }
}

/// How the target spells the logic operations (for expanding `Ternlog` where it is not native).
struct LogicSpelling {
    simd: bool,
}

impl LogicSpelling {
    fn and(&self, a: &str, b: &str) -> String {
        if self.simd {
            format!("NK_AND({}, {})", a, b)
        } else {
            format!("({} & {})", a, b)
        }
    }
    fn or(&self, a: &str, b: &str) -> String {
        if self.simd {
            format!("NK_OR({}, {})", a, b)
        } else {
            format!("({} | {})", a, b)
        }
    }
    fn xor(&self, a: &str, b: &str) -> String {
        if self.simd {
            format!("NK_XOR({}, {})", a, b)
        } else {
            format!("({} ^ {})", a, b)
        }
    }
    fn andn(&self, a: &str, b: &str) -> String {
        if self.simd {
            format!("NK_ANDN({}, {})", a, b)
        } else {
            format!("(~{} & {})", a, b)
        }
    }
    fn not(&self, a: &str) -> String {
        if self.simd {
            format!("NK_NOT({})", a)
        } else {
            format!("~{}", a)
        }
    }
    fn zero(&self) -> String {
        if self.simd {
            "NK_ZERO".into()
        } else {
            "0".into()
        }
    }
    fn ones(&self) -> String {
        if self.simd {
            "NK_ONES".into()
        } else {
            "~(uint64_t)0".into()
        }
    }
}

/// A C expression for the two-input function `f` of `b`, `c` (truth table in 4 bits: bit
/// `2b + c`).
fn two_input(s: &LogicSpelling, f: u8, b: &str, c: &str) -> String {
    match f & 15 {
        0x0 => s.zero(),
        0xf => s.ones(),
        0xa => c.to_string(),
        0xc => b.to_string(),
        0x5 => s.not(c),
        0x3 => s.not(b),
        0x8 => s.and(b, c),
        0xe => s.or(b, c),
        0x6 => s.xor(b, c),
        0x9 => s.not(&s.xor(b, c)),
        0x2 => s.andn(b, c),
        0x4 => s.andn(c, b),
        0x7 => s.not(&s.and(b, c)),
        0x1 => s.not(&s.or(b, c)),
        0xb => s.or(&s.not(b), c),
        _ => s.or(b, &s.not(c)), // 0xd
    }
}

/// `Ternlog(a, b, c, imm)` with the target's logic operations, by Shannon expansion on `a`:
/// `f = a ? f1(b, c) : f0(b, c)`. Used only where `vpternlog` is missing (the optimiser makes
/// ternlogs only for targets that have it, so this serves tests and hand-written IR).
fn ternlog_expansion(s: &LogicSpelling, imm: u8, a: &str, b: &str, c: &str) -> String {
    let f0 = imm & 15;
    let f1 = imm >> 4;
    if f0 == f1 {
        return two_input(s, f0, b, c);
    }
    let e0 = two_input(s, f0, b, c);
    let e1 = two_input(s, f1, b, c);
    match (f0, f1) {
        (0, _) => s.and(a, &e1),
        (_, 0) => s.andn(a, &e0),
        (15, _) => s.or(&s.not(a), &e1),
        (_, 15) => s.or(a, &e0),
        _ if f0 == !f1 & 15 => s.xor(a, &e0),
        // f0 ^ (a & (f0 ^ f1))
        _ => s.xor(&e0, &s.and(a, &two_input(s, f0 ^ f1, b, c))),
    }
}

/// The C expression computing `op` into an atom of `m` bits. `nm` gives operands' C names.
/// Errors are user-facing messages without the node context.
pub(crate) fn op_expr(
    t: &OpTarget,
    helpers: &mut Helpers,
    node: &Node,
    m: u32,
    op: &Op,
    nm: &dyn Fn(VarId) -> String,
) -> Result<String, String> {
    // Operations that are the identity whatever the target.
    match op {
        Op::Copy(a) => return Ok(nm(*a)),
        Op::Shl(a, 0) | Op::Shr(a, 0) | Op::Sar(a, 0) | Op::Rotl(a, 0) | Op::Rotr(a, 0) => {
            return Ok(nm(*a))
        }
        Op::Shuffle(a, p) if p.iter().enumerate().all(|(j, &s)| s == j as u32) => {
            return Ok(nm(*a))
        }
        Op::Ternlog(a, b, c, imm) => {
            if t.arch == Arch::Avx512 {
                let e = format!(
                    "NK_TERNLOG({}, {}, {}, {:#04x})",
                    nm(*a),
                    nm(*b),
                    nm(*c),
                    imm
                );
                if t.slicing == Slicing::V && (2..8).contains(&m) {
                    return Ok(format!("NK_AND({}, NK_SET1_8({}))", e, lit(mask(m), 8)));
                }
                return Ok(e);
            }
            let e = ternlog_expansion(
                &LogicSpelling { simd: t.simd() },
                *imm,
                &nm(*a),
                &nm(*b),
                &nm(*c),
            );
            if t.simd() && t.slicing == Slicing::V && (2..8).contains(&m) {
                return Ok(format!("NK_AND({}, NK_SET1_8({}))", e, lit(mask(m), 8)));
            }
            if t.arch == Arch::Std && t.slicing == Slicing::V && m < std_container_bits(m) {
                return Ok(format!("({}) & {}", e, lit(mask(m), std_container_bits(m))));
            }
            return Ok(e);
        }
        _ => {}
    }
    match (t.arch, t.slicing) {
        (Arch::Std, Slicing::V) => std_v(helpers, node, m, op, nm),
        (Arch::Std, Slicing::B) => std_b(op, nm),
        (Arch::Std, Slicing::H) => std_h(t, helpers, m, op, nm),
        (_, Slicing::B) => simd_b(op, nm),
        (_, Slicing::V) => simd_v(t, helpers, m, op, nm),
        (_, Slicing::H) => simd_h(t, helpers, m, op, nm),
    }
}

fn logic_c(op: &Op, nm: &dyn Fn(VarId) -> String) -> Option<String> {
    Some(match op {
        Op::And(a, b) => format!("{} & {}", nm(*a), nm(*b)),
        Op::Or(a, b) => format!("{} | {}", nm(*a), nm(*b)),
        Op::Xor(a, b) => format!("{} ^ {}", nm(*a), nm(*b)),
        Op::Andn(a, b) => format!("~{} & {}", nm(*a), nm(*b)),
        _ => return None,
    })
}

fn logic_simd(op: &Op, nm: &dyn Fn(VarId) -> String) -> Option<String> {
    Some(match op {
        Op::Not(a) => format!("NK_NOT({})", nm(*a)),
        Op::And(a, b) => format!("NK_AND({}, {})", nm(*a), nm(*b)),
        Op::Or(a, b) => format!("NK_OR({}, {})", nm(*a), nm(*b)),
        Op::Xor(a, b) => format!("NK_XOR({}, {})", nm(*a), nm(*b)),
        Op::Andn(a, b) => format!("NK_ANDN({}, {})", nm(*a), nm(*b)),
        _ => return None,
    })
}

// ---------------------------------------------------------------- std vslice

fn std_v(
    helpers: &mut Helpers,
    node: &Node,
    m: u32,
    op: &Op,
    nm: &dyn Fn(VarId) -> String,
) -> Result<String, String> {
    let c = std_container_bits(m);
    let ty = std_container(m);
    let mk = mask(m);
    let needmask = m != c;
    // `e` masked to m bits when the container is wider than the word.
    let masked = |e: String| {
        if needmask {
            format!("({}) & {}", e, lit(mk, c))
        } else {
            e
        }
    };
    if let Some(e) = logic_c(op, nm) {
        return Ok(e);
    }
    Ok(match op {
        Op::Const(v) => lit(*v, c),
        Op::Not(a) => masked(format!("~{}", nm(*a))),
        Op::Add(a, b) => masked(format!("{} + {}", nm(*a), nm(*b))),
        Op::Sub(a, b) => masked(format!("{} - {}", nm(*a), nm(*b))),
        Op::Mul(a, b) => {
            if c < 32 {
                // uint8_t/uint16_t promote to int: multiply as unsigned to avoid overflow.
                masked(format!("(uint32_t){} * {}", nm(*a), nm(*b)))
            } else {
                masked(format!("{} * {}", nm(*a), nm(*b)))
            }
        }
        Op::Shl(a, k) => masked(format!("{} << {}", nm(*a), k)),
        Op::Shr(a, k) => format!("{} >> {}", nm(*a), k),
        Op::Sar(a, k) => {
            // ((x >> k) ^ s) - s, s = the sign bit after the shift.
            let s = lit(1u64 << (m - 1 - k), c);
            masked(format!("(({} >> {}) ^ {}) - {}", nm(*a), k, s, s))
        }
        Op::Rotl(a, k) => masked(format!("{} << {} | {} >> {}", nm(*a), k, nm(*a), m - k)),
        Op::Rotr(a, k) => masked(format!("{} >> {} | {} << {}", nm(*a), k, nm(*a), m - k)),
        Op::Bitmask(a, k) => masked(format!("({})(0 - (({} >> {}) & 1))", ty, nm(*a), m - 1 - k)),
        Op::Shuffle(a, p) => {
            let name = bit_shuffle_helper(helpers, None, m, p);
            format!("{}({})", name, nm(*a))
        }
        Op::Pack(a, b) => {
            let h = node.bits(*b);
            let cast = if c < 32 { "uint32_t" } else { ty };
            format!("({}){} << {} | {}", cast, nm(*a), h, nm(*b))
        }
        Op::Copy(_) | Op::And(..) | Op::Or(..) | Op::Xor(..) | Op::Andn(..) | Op::Ternlog(..) => {
            unreachable!()
        }
    })
}

/// Helper for a bit permutation inside m-bit words: `std` (simd_w = None, on uint64_t) or SIMD
/// lanes of `w` bits.
fn bit_shuffle_helper(helpers: &mut Helpers, simd_w: Option<u32>, m: u32, perm: &[u32]) -> String {
    bit_shuffle_helper_lanes(helpers, simd_w, m, perm, None, false)
}

/// [`bit_shuffle_helper`]; on SIMD the terms of [`shuffle::plan`] (which `Target::emitted_cost`
/// counts): with `lane_prefix` (x86 SIMD: `_mm`, `_mm256`, `_mm512`), a group of bits that a
/// 16- or 32-bit lane shift moves exactly is that shift, without its AND; and with `slow_rot`
/// too (rotations are two shifts and an OR), rotations by amounts a whole number of bytes
/// apart share one rotation.
fn bit_shuffle_helper_lanes(
    helpers: &mut Helpers,
    simd_w: Option<u32>,
    m: u32,
    perm: &[u32],
    lane_prefix: Option<&'static str>,
    slow_rot: bool,
) -> String {
    let key = format!(
        "shuffle/{:?}/{}/{:?}/{:?}/{}",
        simd_w, m, perm, lane_prefix, slow_rot
    );
    helpers.get("nk_shuffle", key, |name| {
        let mut s = String::new();
        s.push_str(&format!(
            "/* bit permutation of {}-bit words (result bit j = bit p[j], MSB first): {:?} */\n",
            m, perm
        ));
        let terms: Vec<String> = match simd_w {
            None => {
                s.push_str(&format!(
                    "static inline uint64_t {}(uint64_t x)\n{{\n",
                    name
                ));
                shuffle::groups(m, perm)
                    .into_iter()
                    .map(|(d, msk)| match d.cmp(&0) {
                        std::cmp::Ordering::Equal => format!("(x & {})", lit(msk, 64)),
                        std::cmp::Ordering::Greater => format!("(x & {}) << {}", lit(msk, 64), d),
                        std::cmp::Ordering::Less => format!("(x & {}) >> {}", lit(msk, 64), -d),
                    })
                    .collect()
            }
            Some(w) => {
                s.push_str(&format!(
                    "static inline NK_TARGET DATATYPE {}(DATATYPE x)\n{{\n",
                    name
                ));
                let sel = |msk: u64| format!("NK_AND(x, NK_SET1_{}({}))", w, lit(msk, w));
                let pshufb = |e: String, k: i32| {
                    let ctrl = byte_shuffle(w, &Op::Rotl(VarId(0), k as u32))
                        .expect("a whole-byte rotation is a byte shuffle");
                    format!(
                        "NK_PSHUFB({}, {}, {})",
                        e,
                        lit(u64::from_le_bytes(ctrl[8..16].try_into().unwrap()), 64),
                        lit(u64::from_le_bytes(ctrl[0..8].try_into().unwrap()), 64)
                    )
                };
                shuffle::plan(w, m, perm, lane_prefix.is_some(), slow_rot)
                    .into_iter()
                    .map(|t| match t {
                        Term::Merged { d, msk, partners } => {
                            let mut e = sel(msk);
                            for (p, pm) in partners {
                                e = format!("NK_OR({}, {})", e, pshufb(sel(pm), p - d));
                            }
                            format!("NK_ROTL{}({}, {})", w, e, d)
                        }
                        Term::Rot { d, msk } if d % 8 == 0 && w >= 16 => pshufb(sel(msk), d),
                        Term::Rot { d, msk } => format!("NK_ROTL{}({}, {})", w, sel(msk), d),
                        Term::Exact { d, lanes } => {
                            let dir = if d > 0 { "L" } else { "R" };
                            if lanes == w {
                                format!("NK_SH{}{}(x, {})", dir, w, d.unsigned_abs())
                            } else {
                                format!(
                                    "{}_s{}li_epi{}(x, {})",
                                    lane_prefix.unwrap_or("_mm"),
                                    dir.to_lowercase(),
                                    lanes,
                                    d.unsigned_abs()
                                )
                            }
                        }
                        Term::Masked { d, msk } => match d.cmp(&0) {
                            std::cmp::Ordering::Equal => sel(msk),
                            std::cmp::Ordering::Greater => {
                                format!("NK_SHL{}({}, {})", w, sel(msk), d)
                            }
                            std::cmp::Ordering::Less => {
                                format!("NK_SHR{}({}, {})", w, sel(msk), -d)
                            }
                        },
                    })
                    .collect()
            }
        };
        let ty = if simd_w.is_some() {
            "DATATYPE"
        } else {
            "uint64_t"
        };
        for (i, term) in terms.iter().enumerate() {
            match (i, simd_w) {
                (0, _) => s.push_str(&format!("    {} r = {};\n", ty, term)),
                (_, None) => s.push_str(&format!("    r |= {};\n", term)),
                (_, Some(_)) => s.push_str(&format!("    r = NK_OR(r, {});\n", term)),
            }
        }
        s.push_str("    return r;\n}\n");
        s
    })
}

// ---------------------------------------------------------------- std bitslice / hslice

fn std_b(op: &Op, nm: &dyn Fn(VarId) -> String) -> Result<String, String> {
    if let Some(e) = logic_c(op, nm) {
        return Ok(e);
    }
    Ok(match op {
        Op::Const(0) => "UINT64_C(0)".to_string(),
        Op::Const(_) => "~UINT64_C(0)".to_string(),
        Op::Not(a) => format!("~{}", nm(*a)),
        other => {
            return Err(format!(
                "`{}` cannot appear in bitsliced code",
                op_name(other)
            ))
        }
    })
}

/// The L-bit lane pattern of an hslice constant: slot j all ones iff bit j (MSB first) is set.
/// Returned as (hi, lo) 64-bit halves (hi = 0 when L = 64).
fn h_const(t: &OpTarget, m: u32, v: u64) -> (u64, u64) {
    let s = t.slot_bits(m);
    let mut bits = 0u128;
    for j in 0..m {
        if (v >> (m - 1 - j)) & 1 == 1 {
            let slot: u128 = if s == 128 {
                u128::MAX
            } else {
                ((1u128 << s) - 1) << (j * s)
            };
            bits |= slot;
        }
    }
    ((bits >> 64) as u64, bits as u64)
}

fn h_arith_error(t: &OpTarget, m: u32, op: &Op) -> String {
    format!(
        "hslice cannot express `{}` on {}-bit words (target {}): arithmetic in hslice must be lowered before code generation; use -V or -B for this program",
        op_name(op),
        m,
        t.arch
    )
}

fn std_h(
    t: &OpTarget,
    helpers: &mut Helpers,
    m: u32,
    op: &Op,
    nm: &dyn Fn(VarId) -> String,
) -> Result<String, String> {
    if let Some(e) = logic_c(op, nm) {
        return Ok(e);
    }
    match op {
        Op::Const(v) => Ok(lit(h_const(t, m, *v).1, 64)),
        Op::Not(a) => Ok(format!("~{}", nm(*a))),
        Op::Add(..) | Op::Sub(..) | Op::Mul(..) | Op::Pack(..) => Err(h_arith_error(t, m, op)),
        _ => {
            let map = slot_map(op, m).expect("slot map op");
            let a = op.operands()[0];
            let s = t.slot_bits(m);
            let key = format!("slots/std/{}/{:?}", m, map);
            let name = helpers.get("nk_slots", key, |name| {
                // Group by displacement in bits (positive = left shift).
                let slot_mask = if s == 64 { u64::MAX } else { (1u64 << s) - 1 };
                let mut g: BTreeMap<i64, u64> = BTreeMap::new();
                for (j, src) in map.iter().enumerate() {
                    if let Some(src) = src {
                        let d = (j as i64 - *src as i64) * s as i64;
                        *g.entry(d).or_insert(0) |= slot_mask << (src * s);
                    }
                }
                let mut txt = format!(
                    "/* hslice slot map of {}-bit words ({} bits per slot): slot j <- {:?} */\nstatic inline uint64_t {}(uint64_t x)\n{{\n",
                    m,
                    s,
                    map.iter().map(|x| x.map(|v| v as i64).unwrap_or(-1)).collect::<Vec<_>>(),
                    name
                );
                if g.is_empty() {
                    txt.push_str("    (void)x;\n    return 0;\n}\n");
                    return txt;
                }
                let mut first = true;
                for (d, msk) in &g {
                    let term = match d.cmp(&0) {
                        std::cmp::Ordering::Equal => format!("(x & {})", lit(*msk, 64)),
                        std::cmp::Ordering::Greater => format!("(x & {}) << {}", lit(*msk, 64), d),
                        std::cmp::Ordering::Less => format!("(x & {}) >> {}", lit(*msk, 64), -d),
                    };
                    if first {
                        txt.push_str(&format!("    uint64_t r = {};\n", term));
                        first = false;
                    } else {
                        txt.push_str(&format!("    r |= {};\n", term));
                    }
                }
                txt.push_str("    return r;\n}\n");
                txt
            });
            Ok(format!("{}({})", name, nm(a)))
        }
    }
}

// ---------------------------------------------------------------- SIMD

fn simd_b(op: &Op, nm: &dyn Fn(VarId) -> String) -> Result<String, String> {
    if let Some(e) = logic_simd(op, nm) {
        return Ok(e);
    }
    Ok(match op {
        Op::Const(0) => "NK_ZERO".to_string(),
        Op::Const(_) => "NK_ONES".to_string(),
        other => {
            return Err(format!(
                "`{}` cannot appear in bitsliced code",
                op_name(other)
            ))
        }
    })
}

fn simd_v(
    t: &OpTarget,
    helpers: &mut Helpers,
    m: u32,
    op: &Op,
    nm: &dyn Fn(VarId) -> String,
) -> Result<String, String> {
    debug_assert!(t.simd());
    if (2..8).contains(&m) {
        return simd_v_small(helpers, m, op, nm);
    }
    if let Some(e) = logic_simd(op, nm) {
        return Ok(e);
    }
    let w = m;
    if w == 1 {
        // 1-bit lanes: the bitslice layout; arithmetic modulo 2 is logic.
        return Ok(match op {
            Op::Const(0) => "NK_ZERO".to_string(),
            Op::Const(_) => "NK_ONES".to_string(),
            Op::Add(a, b) | Op::Sub(a, b) => format!("NK_XOR({}, {})", nm(*a), nm(*b)),
            Op::Mul(a, b) => format!("NK_AND({}, {})", nm(*a), nm(*b)),
            // the only shifts / permutations of a 1-bit word are identities
            Op::Bitmask(a, _)
            | Op::Shl(a, _)
            | Op::Shr(a, _)
            | Op::Sar(a, _)
            | Op::Rotl(a, _)
            | Op::Rotr(a, _)
            | Op::Shuffle(a, _) => nm(*a),
            Op::Pack(..) => {
                return Err(format!(
                "`Pack` needs mixed word sizes, which vslice on {} cannot express; use --arch std",
                t.arch
            ))
            }
            Op::Copy(_)
            | Op::Not(_)
            | Op::And(..)
            | Op::Or(..)
            | Op::Xor(..)
            | Op::Andn(..)
            | Op::Ternlog(..) => unreachable!(),
        });
    }
    // Rotations and bit permutations moving whole bytes: one byte shuffle (unless the target
    // has a native rotate).
    let native_rot = t.arch == Arch::Avx512 && (w == 32 || w == 64);
    if w >= 16
        && (matches!(op, Op::Shuffle(..))
            || (matches!(op, Op::Rotl(..) | Op::Rotr(..)) && !native_rot))
    {
        if let Some(ctrl) = byte_shuffle(w, op) {
            let lo = u64::from_le_bytes(ctrl[0..8].try_into().unwrap());
            let hi = u64::from_le_bytes(ctrl[8..16].try_into().unwrap());
            return Ok(format!(
                "NK_PSHUFB({}, {}, {})",
                nm(op.operands()[0]),
                lit(hi, 64),
                lit(lo, 64)
            ));
        }
    }
    Ok(match op {
        Op::Const(v) if OPAQUE_ONES && *v == mask(w) && matches!(t.arch, Arch::Sse | Arch::Avx2) => {
            "NK_ONES_OPAQUE".to_string()
        }
        Op::Const(v) => format!("NK_SET1_{}({})", w, lit(*v, w)),
        Op::Add(a, b) => format!("NK_ADD{}({}, {})", w, nm(*a), nm(*b)),
        Op::Sub(a, b) => format!("NK_SUB{}({}, {})", w, nm(*a), nm(*b)),
        Op::Mul(a, b) => format!("NK_MUL{}({}, {})", w, nm(*a), nm(*b)),
        Op::Shl(a, k) => format!("NK_SHL{}({}, {})", w, nm(*a), k),
        Op::Shr(a, k) => format!("NK_SHR{}({}, {})", w, nm(*a), k),
        Op::Sar(a, k) => format!("NK_SAR{}({}, {})", w, nm(*a), k),
        Op::Rotl(a, k) | Op::Rotr(a, k) => {
            let dir = if matches!(op, Op::Rotl(..)) { "L" } else { "R" };
            let mut p5 = "";
            if t.arch == Arch::Avx512 && w == 64 && helpers.rot64_p5 {
                helpers.rot64 += 1;
                if helpers.rot64.is_multiple_of(ROT64_P5_EVERY) {
                    p5 = "_P5";
                }
            }
            format!("NK_ROT{}{}{}({}, {})", dir, w, p5, nm(*a), k)
        }
        Op::Bitmask(a, k) => format!("NK_BITMASK{}({}, {})", w, nm(*a), k),
        Op::Shuffle(a, p) => {
            let lanes = t.arch.x86_intrinsics().map(|(pre, _)| pre);
            let name = bit_shuffle_helper_lanes(helpers, Some(w), m, p, lanes, !native_rot);
            format!("{}({})", name, nm(*a))
        }
        Op::Pack(..) => {
            return Err(format!(
                "`Pack` (joining two {}-bit words into one {}-bit word) needs mixed word sizes, which vslice on {} cannot express; use --arch std",
                m / 2,
                m,
                t.arch
            ))
        }
        Op::Copy(_) | Op::Not(_) | Op::And(..) | Op::Or(..) | Op::Xor(..) | Op::Andn(..) | Op::Ternlog(..) => unreachable!(),
    })
}

/// vslice on SIMD with words of 2..7 bits (C8): each word sits zero-extended in an 8-bit lane;
/// results that could set the bits above the word are masked.
fn simd_v_small(
    helpers: &mut Helpers,
    m: u32,
    op: &Op,
    nm: &dyn Fn(VarId) -> String,
) -> Result<String, String> {
    let mk = lit(mask(m), 8);
    let masked = |e: String| format!("NK_AND({}, NK_SET1_8({}))", e, mk);
    if let Op::Not(a) = op {
        return Ok(format!("NK_XOR({}, NK_SET1_8({}))", nm(*a), mk));
    }
    if let Some(e) = logic_simd(op, nm) {
        return Ok(e);
    }
    Ok(match op {
        Op::Const(v) => format!("NK_SET1_8({})", lit(*v, 8)),
        Op::Add(a, b) => masked(format!("NK_ADD8({}, {})", nm(*a), nm(*b))),
        Op::Sub(a, b) => masked(format!("NK_SUB8({}, {})", nm(*a), nm(*b))),
        Op::Mul(a, b) => masked(format!("NK_MUL8({}, {})", nm(*a), nm(*b))),
        Op::Shl(a, k) => masked(format!("NK_SHL8({}, {})", nm(*a), k)),
        Op::Shr(a, k) => format!("NK_SHR8({}, {})", nm(*a), k),
        Op::Sar(a, k) => {
            let s = lit(1u64 << (m - 1 - k), 8);
            masked(format!(
                "NK_SUB8(NK_XOR(NK_SHR8({}, {}), NK_SET1_8({s})), NK_SET1_8({s}))",
                nm(*a),
                k
            ))
        }
        Op::Rotl(a, k) => masked(format!(
            "NK_OR(NK_SHL8({a}, {}), NK_SHR8({a}, {}))",
            k,
            m - k,
            a = nm(*a)
        )),
        Op::Rotr(a, k) => masked(format!(
            "NK_OR(NK_SHR8({a}, {}), NK_SHL8({a}, {}))",
            k,
            m - k,
            a = nm(*a)
        )),
        Op::Bitmask(a, k) => masked(format!("NK_BITMASK8({}, {})", nm(*a), k + 8 - m)),
        Op::Shuffle(a, p) => {
            let name = bit_shuffle_helper(helpers, Some(8), m, p);
            format!("{}({})", name, nm(*a))
        }
        Op::Pack(..) => return Err(
            "`Pack` needs mixed word sizes, which vslice on SIMD cannot express; use --arch std"
                .into(),
        ),
        Op::Copy(_)
        | Op::Not(_)
        | Op::And(..)
        | Op::Or(..)
        | Op::Xor(..)
        | Op::Andn(..)
        | Op::Ternlog(..) => unreachable!(),
    })
}

fn simd_h(
    t: &OpTarget,
    helpers: &mut Helpers,
    m: u32,
    op: &Op,
    nm: &dyn Fn(VarId) -> String,
) -> Result<String, String> {
    if let Some(e) = logic_simd(op, nm) {
        return Ok(e);
    }
    match op {
        Op::Const(v) => {
            let (hi, lo) = h_const(t, m, *v);
            Ok(format!("NK_CONST128({}, {})", lit(hi, 64), lit(lo, 64)))
        }
        Op::Add(..) | Op::Sub(..) | Op::Mul(..) | Op::Pack(..) => Err(h_arith_error(t, m, op)),
        _ => {
            let map = slot_map(op, m).expect("slot map op");
            let a = op.operands()[0];
            if map.iter().enumerate().all(|(j, s)| *s == Some(j as u32)) {
                return Ok(nm(a));
            }
            let s = t.slot_bits(m);
            if let Some(e) = lane_funnel(s, m, op, &nm(a)) {
                return Ok(e);
            }
            if !s.is_multiple_of(8) && 8 % s == 0 {
                let name = sub_byte_slot_helper(helpers, m, s, &map);
                return Ok(format!("{}({})", name, nm(a)));
            }
            if !s.is_multiple_of(8) {
                return Err(format!(
                    "hslice on {} cannot permute the bits of {}-bit words: each bit is a {}-bit slot of a 128-bit lane and byte shuffles need slots of whole bytes (word sizes up to 16); use -V or -B, or --arch std",
                    t.arch, m, s
                ));
            }
            let bs = s / 8;
            let mut ctrl = [0u8; 16];
            for (j, src) in map.iter().enumerate() {
                for b in 0..bs {
                    ctrl[(j as u32 * bs + b) as usize] = match src {
                        Some(src) => (src * bs + b) as u8,
                        None => 0x80,
                    };
                }
            }
            let lo = u64::from_le_bytes(ctrl[0..8].try_into().unwrap());
            let hi = u64::from_le_bytes(ctrl[8..16].try_into().unwrap());
            Ok(format!(
                "NK_PSHUFB({}, {}, {})",
                nm(a),
                lit(hi, 64),
                lit(lo, 64)
            ))
        }
    }
}

/// A rotation or shift of hslice words whose m slots of S bits fill the 128-bit lane (S * m =
/// 128), by a number of bits S * k that is not a whole number of bytes: the word rotation is a
/// rotation of the lane (slot j <- slot j + k: the lane moves k slots toward its LSB), done as
/// two 64-bit shifts of the lane and of its qwords swapped (one byte shuffle), ORed: 4
/// instructions where the sub-byte helper takes 7; a shift, the same with the qword moved
/// instead of swapped (zeros coming in). `None` otherwise (whole bytes: one byte shuffle;
/// other operations and layouts: the helper).
fn lane_funnel(s: u32, m: u32, op: &Op, x: &str) -> Option<String> {
    if s * m != 128 || s.is_multiple_of(8) {
        return None;
    }
    // (amount in bits toward the LSB (right) or toward the MSB (left), rotate?)
    let (right, bits, rot) = match *op {
        Op::Rotl(_, k) => (true, (s * (k % m)) % 128, true),
        Op::Rotr(_, k) => (true, (128 - s * (k % m)) % 128, true),
        Op::Shl(_, k) => (true, s * k, false),
        Op::Shr(_, k) => (false, s * k, false),
        _ => return None,
    };
    if bits % 8 == 0 || bits >= 128 {
        return None;
    }
    let shuffle = |ctrl: [u8; 16]| -> String {
        let lo = u64::from_le_bytes(ctrl[0..8].try_into().unwrap());
        let hi = u64::from_le_bytes(ctrl[8..16].try_into().unwrap());
        format!("NK_PSHUFB({}, {}, {})", x, lit(hi, 64), lit(lo, 64))
    };
    let swap: [u8; 16] = core::array::from_fn(|i| ((i + 8) % 16) as u8);
    // high qword to the low one, zeros above / low qword to the high one, zeros below
    let down: [u8; 16] = core::array::from_fn(|i| if i < 8 { (i + 8) as u8 } else { 0x80 });
    let up: [u8; 16] = core::array::from_fn(|i| if i < 8 { 0x80 } else { (i - 8) as u8 });
    let (n, big) = (bits % 64, bits >= 64);
    Some(match (rot, right, big) {
        (true, _, false) => format!(
            "NK_OR(NK_SHR_U64({x}, {n}), NK_SHL_U64({}, {}))",
            shuffle(swap),
            64 - n
        ),
        (true, _, true) => format!(
            "NK_OR(NK_SHR_U64({}, {n}), NK_SHL_U64({x}, {}))",
            shuffle(swap),
            64 - n
        ),
        (false, true, false) => format!(
            "NK_OR(NK_SHR_U64({x}, {n}), NK_SHL_U64({}, {}))",
            shuffle(down),
            64 - n
        ),
        (false, true, true) => format!("NK_SHR_U64({}, {n})", shuffle(down)),
        (false, false, false) => format!(
            "NK_OR(NK_SHL_U64({x}, {n}), NK_SHR_U64({}, {}))",
            shuffle(up),
            64 - n
        ),
        (false, false, true) => format!("NK_SHL_U64({}, {n})", shuffle(up)),
    })
}

/// Slot map for hslice slots smaller than a byte (S = 2 or 4 bits, i.e. 64- or 32-bit words on
/// 128-bit lanes). Each (source position in byte, destination position in byte) pair is one
/// byte shuffle of the masked source, shifted inside the bytes by the position difference;
/// pairs with the same shift and the same shuffle are merged (so rotations by an even number of
/// slots are a single shuffle).
/// The terms of [`sub_byte_slot_helper`]: (shift in bits, shuffle control) -> byte mask of the
/// source bits taken.
fn sub_byte_terms(s: u32, map: &[Option<u32>]) -> BTreeMap<(i32, [u8; 16]), u8> {
    let p = 8 / s;
    let mut pairs: BTreeMap<(u32, u32), [u8; 16]> = BTreeMap::new();
    for (j, src) in map.iter().enumerate() {
        if let Some(src) = src {
            let j = j as u32;
            let ctrl = pairs.entry((src % p, j % p)).or_insert([0x80u8; 16]);
            ctrl[(j / p) as usize] = (src / p) as u8;
        }
    }
    let mut terms: BTreeMap<(i32, [u8; 16]), u8> = BTreeMap::new();
    for ((sp, dp), ctrl) in &pairs {
        let d = (*dp as i32 - *sp as i32) * s as i32;
        let mb = (((1u32 << s) - 1) << (sp * s)) as u8;
        *terms.entry((d, *ctrl)).or_insert(0) |= mb;
    }
    terms
}

/// Vector instructions the C emitted for a slot-map operation (shift, rotation, shuffle,
/// bitmask) of `m`-bit words in hslice on a SIMD `arch` takes, counted in that C: one byte
/// shuffle for slots of whole bytes, four for a lane funnel, the AND / shuffle / shift / OR
/// terms of the sub-byte helper otherwise, 0 for the identity; `None` for other operations
/// (and on `std`). Used by `nakiri bench limits`, where `Target::cost` counts each such
/// operation as one.
pub fn simd_h_insns(arch: Arch, m: u32, op: &Op) -> Option<u64> {
    if arch == Arch::Std || slot_map(op, m).is_none() {
        return None;
    }
    // The C `simd_h` emits for it, with any helper it defines, counted operation by operation.
    let t = OpTarget {
        arch,
        slicing: Slicing::H,
        lane_bits: arch.hslice_lane_bits(),
        half: false,
        strided: false,
        state_loads: Some(false),
        loop_align: None,
    };
    let mut helpers = Helpers::default();
    let e = simd_h(&t, &mut helpers, m, op, &|_| "x".to_string()).ok()?;
    let count = |text: &str| -> u64 {
        [
            "NK_AND(",
            "NK_OR(",
            "NK_PSHUFB(",
            "NK_SHL_U64(",
            "NK_SHR_U64(",
        ]
        .iter()
        .map(|p| text.matches(p).count() as u64)
        .sum()
    };
    Some(count(&e) + helpers.defs.iter().map(|d| count(d)).sum::<u64>())
}

fn sub_byte_slot_helper(helpers: &mut Helpers, m: u32, s: u32, map: &[Option<u32>]) -> String {
    let key = format!("hslots/{}/{:?}", m, map);
    helpers.get("nk_hslots", key, |name| {
        // (shift in bits, shuffle control) -> byte mask of the source bits taken
        let terms = sub_byte_terms(s, map);
        let mut txt = format!(
            "/* hslice slot map of {}-bit words ({}-bit slots): slot j <- {:?} (-1: zero) */\nstatic inline NK_TARGET DATATYPE {}(DATATYPE x)\n{{\n",
            m,
            s,
            map.iter().map(|x| x.map(|v| v as i64).unwrap_or(-1)).collect::<Vec<_>>(),
            name
        );
        if terms.is_empty() {
            txt.push_str("    (void)x;\n    return NK_ZERO;\n}\n");
            return txt;
        }
        let mut first = true;
        for ((d, ctrl), mb) in &terms {
            let mut e = "x".to_string();
            if *mb != 0xFF {
                let m64 = u64::from(*mb) * 0x0101_0101_0101_0101;
                e = format!("NK_AND({}, NK_CONST128({}, {}))", e, lit(m64, 64), lit(m64, 64));
            }
            if ctrl.iter().enumerate().any(|(i, &c)| c != i as u8) {
                let lo = u64::from_le_bytes(ctrl[0..8].try_into().unwrap());
                let hi = u64::from_le_bytes(ctrl[8..16].try_into().unwrap());
                e = format!("NK_PSHUFB({}, {}, {})", e, lit(hi, 64), lit(lo, 64));
            }
            match d.cmp(&0) {
                std::cmp::Ordering::Greater => e = format!("NK_SHL_U64({}, {})", e, d),
                std::cmp::Ordering::Less => e = format!("NK_SHR_U64({}, {})", e, -d),
                std::cmp::Ordering::Equal => {}
            }
            if first {
                txt.push_str(&format!("    DATATYPE r = {};\n", e));
                first = false;
            } else {
                txt.push_str(&format!("    r = NK_OR(r, {});\n", e));
            }
        }
        txt.push_str("    return r;\n}\n");
        txt
    })
}

/// The 16-byte shuffle control (per 128 bits, lanes of `w` bits) implementing a vslice
/// `Rotl`/`Rotr`/`Shuffle` that moves whole bytes, if it does.
fn byte_shuffle(w: u32, op: &Op) -> Option<[u8; 16]> {
    // src[j] = source bit (MSB first) of result bit j
    let src: Vec<u32> = match op {
        Op::Rotl(_, k) => (0..w).map(|j| (j + k) % w).collect(),
        Op::Rotr(_, k) => (0..w).map(|j| (j + w - k) % w).collect(),
        Op::Shuffle(_, p) => p.clone(),
        _ => return None,
    };
    shuffle::byte_shuffle(w, &src)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many times the patterns occur in `text` (operations counted in emitted C).
    fn occurrences(text: &str, pats: &[&str]) -> u32 {
        pats.iter().map(|p| text.matches(p).count() as u32).sum()
    }

    /// `Target::emitted_cost` of a vsliced bit permutation counts exactly the operations of
    /// the helper the C calls (`shuffle::plan`'s terms as spelled here), on every target and
    /// word size: random permutations, rotations inside lanes (each lane by its own amount:
    /// AES's ShiftRows on a plane, GIFT's half-word rotations) and lane shifts.
    #[test]
    fn shuffle_emitted_cost_counts_the_helpers_operations() {
        use crate::target::Target;
        let simd_count = |text: &str, native_rot: bool| {
            let rot = if native_rot { 1 } else { 3 };
            occurrences(
                text,
                &[
                    "NK_AND(",
                    "NK_OR(",
                    "NK_SHL",
                    "NK_SHR",
                    "NK_PSHUFB(",
                    "li_epi",
                ],
            ) + rot * occurrences(text, &["NK_ROTL"])
        };
        let std_count = |text: &str| occurrences(text, &[" & ", " << ", " >> ", "|="]);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as u32
        };
        let mut perms: Vec<(u32, Vec<u32>)> = Vec::new();
        for m in [3u32, 5, 8, 16, 32, 64] {
            for _ in 0..4 {
                let mut p: Vec<u32> = (0..m).collect();
                for i in (1..m as usize).rev() {
                    p.swap(i, rnd(i as u32 + 1) as usize);
                }
                perms.push((m, p));
            }
            for l in [2u32, 4, 8, 16, 32, 64]
                .into_iter()
                .filter(|&l| m.is_multiple_of(l))
            {
                for k in 0..l {
                    // Lane i (MSB first) rotated left by k·i, and all lanes by k.
                    let per_lane = |r: &dyn Fn(u32) -> u32| -> Vec<u32> {
                        (0..m)
                            .map(|j| (j / l) * l + (j % l + r(j / l)) % l)
                            .collect()
                    };
                    perms.push((m, per_lane(&|i| k * i)));
                    perms.push((m, per_lane(&|_| k)));
                }
            }
            for k in 1..m {
                // The whole word rotated by k.
                perms.push((
                    m,
                    (0..m)
                        .map(|j| if j + k < m { j + k } else { j + k - m })
                        .collect(),
                ));
            }
        }
        for arch in [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512, Arch::Neon] {
            let target = Target::new(arch);
            let t = OpTarget {
                arch,
                slicing: Slicing::V,
                lane_bits: arch.hslice_lane_bits(),
                half: false,
                strided: false,
                state_loads: Some(false),
                loop_align: None,
            };
            for (m, p) in &perms {
                let op = Op::Shuffle(VarId(0), p.clone());
                let mut h = Helpers::default();
                // The expression (a helper's call, or one byte shuffle) and any helper.
                let (emitted, text) = if arch == Arch::Std {
                    bit_shuffle_helper(&mut h, None, *m, p);
                    (std_count(&h.defs[0]), h.defs.concat())
                } else {
                    let e = simd_v(&t, &mut h, *m, &op, &|_| "x".to_string()).unwrap();
                    let text = format!("{e}\n{}", h.defs.concat());
                    (simd_count(&text, arch == Arch::Avx512 && *m >= 32), text)
                };
                assert_eq!(
                    target.emitted_cost(&op, *m, Slicing::V).insns,
                    emitted,
                    "{arch}: {p:?} on {m}-bit words:\n{text}"
                );
            }
        }
    }

    /// `simd_h_insns` counts exactly the vector operations of the C emitted for hslice slot
    /// maps: every rotation and shift of 32- and 64-bit words (2- and 4-bit slots: the
    /// sub-byte helper's text) and of 16-bit words (one byte shuffle), on avx2.
    #[test]
    fn simd_h_insns_counts_the_emitted_operations() {
        let count = |text: &str| {
            occurrences(
                text,
                &[
                    "NK_AND(",
                    "NK_PSHUFB(",
                    "NK_SHL_U64(",
                    "NK_SHR_U64(",
                    "NK_OR(",
                ],
            ) as u64
        };
        let x = VarId(0);
        for m in [16u32, 32, 64] {
            let s = Arch::Avx2.hslice_slot_bits(m);
            for k in 1..m {
                for op in [Op::Rotl(x, k), Op::Rotr(x, k), Op::Shl(x, k), Op::Shr(x, k)] {
                    let map = slot_map(&op, m).unwrap();
                    let emitted = if s.is_multiple_of(8) {
                        1
                    } else if let Some(e) = lane_funnel(s, m, &op, "x") {
                        count(&e)
                    } else {
                        let mut h = Helpers::default();
                        sub_byte_slot_helper(&mut h, m, s, &map);
                        count(&h.defs[0])
                    };
                    assert_eq!(
                        simd_h_insns(Arch::Avx2, m, &op),
                        Some(emitted),
                        "{op:?} on {m}-bit words"
                    );
                }
            }
        }
        assert_eq!(simd_h_insns(Arch::Avx2, 32, &Op::Rotl(x, 0)), Some(0));
        assert_eq!(simd_h_insns(Arch::Std, 32, &Op::Rotl(x, 3)), None);
        assert_eq!(simd_h_insns(Arch::Avx2, 32, &Op::Xor(x, x)), None);
    }
}
