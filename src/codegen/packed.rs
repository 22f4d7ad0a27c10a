//! The packed entry point: n plain instances in memory in, n plain instances out; nobody
//! transposes by hand.
//!
//! For an entry node `E` the generated C file gets (besides the raw `E__` of `codegen`):
//!
//! ```c
//! size_t E__instances(void);   /* instances one raw call E__ processes (= E__INSTANCES) */
//! void   E__packed(size_t n, <const T *in> for each input, <T *out> for each output);
//! ```
//!
//! Parameters come in the entry node's order, inputs then outputs, with their source names.
//! `E__packed` processes `n` instances (any `n`, including 0 and a tail shorter than one
//! register): it transposes each chunk of `E__INSTANCES` instances into the sliced layout of
//! `target::layout`, calls `E__`, and transposes the results back. A short tail is padded
//! with zero instances and only the `n` real outputs are written; nothing is written past
//! `n` instances of any output. No branch or memory index depends on the data.
//!
//! # Memory format of one parameter
//! Let W be the parameter's number of *source words* (`interp::param_words`: 16 for `u32x16`,
//! 1 for `u64`, 64 for `b64` — a `bN` is N one-bit words — 8 for `u8[2][4]`, row-major) and m its
//! word size in bits.
//! - **m = 8, 16, 32 or 64**: `T` is `uint8_t`/`uint16_t`/`uint32_t`/`uint64_t`; each word is
//!   one native integer whose **most significant bit is Usuba bit 0** (so `0x80:u8` — bit 0 set —
//!   is the integer 0x80). Instance i occupies `p[i*W .. (i+1)*W)`, words in source (row-major)
//!   order. This is a value convention, not a byte convention: the integers are in host byte
//!   order.
//! - **any other m** (1-bit `bN`/`b1` parameters, `u4x16`, …): `T` is `uint8_t` and the
//!   instance is a **bit string**: its W words concatenated, each MSB-first (Usuba bit 0 first),
//!   stored from bit 0 = most significant bit of byte 0, then bit 1 = next bit of byte 0, …,
//!   padded with zero bits to B = ceil(W*m/8) bytes. Instance i occupies `p[i*B .. (i+1)*B)`.
//!   Padding bits are ignored on input and written as zero on output.
//! - **`const` parameters** are given **once**: W words (or B bytes), not n of them; the value is
//!   broadcast to every instance.
//!
//! Inputs are only read; an output may be the same buffer as an input of the same size and
//! type (the whole chunk is read before any of it is written), other overlaps are undefined.
//! `E__INSTANCES` (also `E__instances()`) is the number of instances of one raw call; for speed
//! pass n as a multiple of it (bitslice, vslice) or of R = register bits (hslice, which
//! transposes R instances and makes R/`E__INSTANCES` raw calls per step). The registers and
//! staging buffers live on the stack: a few times (instances per step) x (bytes per instance)
//! over all parameters.
//!
//! # Worked example
//! ```text
//! node Cipher (plain:u16x4, key:const u16x4[26]) returns (cipher:u16x4)
//! ```
//! compiled with `-V --arch avx2` gives `Cipher__INSTANCES` = 256/16 = 16 and
//! ```c
//! void Cipher__packed(size_t n, const uint16_t *plain, const uint16_t *key, uint16_t *cipher);
//! ```
//! where `plain` holds `4*n` words (word j of block i is `plain[4*i+j]`), `key` holds the
//! 26*4 = 104 round-key words once (`key[4*r+j]` = word j of round key r), and `cipher` receives
//! `4*n` words. With `-B` the same call works unchanged (`Cipher__INSTANCES` = 256). For a
//! Usuba word `(0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,1)` (bit 15 set) the integer is `0x0001`.
//!
//! A permutation on a bit vector, `node P (s:b64) returns (o:b64)`, has W = 64 words of 1 bit,
//! so `T` is `uint8_t` and each instance is 8 bytes: Usuba bit k of the state is bit `7 - k%8`
//! of byte `k/8` (byte 0's MSB is bit 0):
//! `void P__packed(size_t n, const uint8_t *s, uint8_t *o);`, `s` and `o` hold `8*n` bytes.
//!
//! # Prepared constants
//! When the entry has `const` inputs (round keys), the file also has
//!
//! ```c
//! typedef struct __attribute__((aligned(64))) { <registers of each const input> } E__consts;
//! void E__prepare_consts(E__consts *c, const T *k, ...);   /* the const inputs, in order */
//! void E__packed_with(size_t n, const E__consts *c, <non-const inputs>, <outputs>);
//! void E__wipe_consts(E__consts *c);
//! ```
//! `E__prepare_consts` puts the constants in their sliced form once (a broadcast, never a
//! transposition: every instance has the same value, so a bitslice register is all ones or all
//! zeros, a vslice lane the word, an hslice slot all ones or zeros); `E__packed_with` then skips
//! that work on every call. `E__packed` is `E__prepare_consts` + `E__packed_with` + wipe. Any
//! alignment of `c` works (not 64-byte aligned: copied to the stack first).
//!
//! # Per-parameter helpers (bitslice and vslice, not interleaved)
//! For mode helpers that build sliced inputs themselves (`ciphers/chacha20/chacha20_stream.c`,
//! `ciphers/aes/aes_ctr.c`): `E__pack_p(cnt, src, regs)` (cnt <= E__INSTANCES instances into
//! one raw call's registers of input p, zero instances after them), `E__bcast_p(one, regs)`
//! (one instance into every slot), `E__unpack_p(cnt, regs, x, dst)` (cnt instances of output
//! p out of one raw call's registers, XORed with `x` when it is not NULL; x may equal dst).
//! The header also defines `E__SLICING_B`, `_V` or `_H`.
//!
//! # Raw calls in one function (vslice and hslice of words; SSE/AVX2/AVX-512)
//! When one call's registers fit (`fused_step`), the packed loop runs each raw call of a whole
//! step through `<run>_step`: transposition in, raw entry (or interleaved kernel),
//! transposition out, in one `flatten` function whose register arrays the compiler keeps in
//! registers (no store and reload between the three). Without interleaving the rest of the
//! instances goes through it too (whole calls, then the last partial call on a zero-padded
//! copy) and the run function has no register arrays; with it, partial steps take the
//! general path.
//!
//! # The raw entry with its output XORed (vslice, SSE/AVX2/AVX-512, one output of words)
//! `E__xor_p([const E__consts *c,] <non-const inputs' registers>, const T *x, T *dst)`: `E__`
//! then `E__unpack_p(E__INSTANCES, ..., x, dst)` in one `flatten` function, so the output array
//! is scalar-replaced and never stored (`#define E__HAS_XOR_p 1` in the header; x not NULL).
//!
//! # Interleaved entries
//! With `--interleave k` the raw entry takes each non-`const` parameter k times (ABI C7) and
//! processes k x (instances of one copy); the packed API is unchanged (each parameter once):
//! a step of k x s instances (s = one copy's step) gives copy c the c-th group of s.
//!
//! # An interleaved kernel behind a plain raw entry
//! The raw entry need not be what `E__packed` calls: with a kernel (`emit_over`; chosen by
//! `driver::packed_kernel`, `--packed-interleave`), the file also holds the program compiled
//! with k-way interleaving as a `static` function `E__x<k>`, emitted inside the packed section.
//! `E__packed` runs each whole step of k raw steps through it (layout as above, k copies) and
//! the remaining instances through `E__`; nothing the header declares changes.
//!
//! The transposition routines themselves are in `runtime::transpose`.

use super::c_emit::{sanitize, Namer};
use super::CodegenError;
use crate::interp::param_words;
use crate::ir::{Param, Program, Slicing};
use crate::runtime::transpose as tp;
use crate::target::Arch;

/// How one parameter travels through the packed API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedParam {
    /// Source name.
    pub name: String,
    /// Name in the header's prototype (a C identifier, unique, not reserved).
    pub c_name: String,
    pub is_input: bool,
    pub is_const: bool,
    /// Source words per instance (W).
    pub words: usize,
    /// Word size in bits (m).
    pub word_bits: u32,
    /// Whether the instance is a bit string of bytes (m not 8/16/32/64).
    pub bit_string: bool,
    /// C element type of the pointer (`uint8_t`, …, `uint64_t`).
    pub elem_type: String,
    /// Elements of `elem_type` per instance (W, or ceil(W*m/8) for a bit string).
    pub elems: usize,
    /// Number of atoms (registers of the raw call) of the parameter.
    pub atoms: usize,
    /// Shape of the raw parameter.
    pub c_dims: Vec<usize>,
    /// C type of one of its registers (the raw entry's `DATATYPE`; per parameter because
    /// `std` vslice gives each word size its own `uintN_t`).
    pub reg_type: String,
}

/// The packed layout of a whole entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedLayout {
    /// C name of the entry (`<entry>__` is the raw entry, `<entry>__packed` the packed one).
    pub entry: String,
    /// Name of the instance count in the header's prototype (`n` unless a parameter has it).
    pub n_name: String,
    pub arch: Arch,
    pub slicing: Slicing,
    /// Word size of the atoms in V/H (1 in B; on `std` vslice the largest one, words may mix).
    pub atom_bits: u32,
    /// Instances per raw call (all interleaved copies together).
    pub instances: usize,
    /// Interleaving factor k of the raw entry: one raw call runs k copies, copy c on the c-th
    /// group of `instances / k` instances of the step.
    pub interleave: usize,
    pub params: Vec<PackedParam>,
    /// The C function one step calls: the raw entry `<entry>__`, the internal interleaved
    /// kernel of [`emit_over`], or `<entry>__with_consts`.
    pub raw_fn: String,
    /// The prepared consts are one `uint64_t` per register and `raw_fn` is
    /// `<entry>__with_consts` (bitslice, `AbiConfig::compact_consts`).
    pub compact_consts: bool,
}

impl PackedLayout {
    /// Instances one transposition step of the packed entry handles (`instances`, or in
    /// hslice `instances` x the raw calls one transposition serves).
    pub fn step(&self) -> usize {
        self.instances * self.calls_per_step()
    }
    /// Raw calls per step (hslice: one transposition block serves several raw calls).
    pub fn calls_per_step(&self) -> usize {
        if self.slicing == Slicing::H {
            tp::h_calls_per_block(self.arch, self.atom_bits)
        } else {
            1
        }
    }
    /// Instances of one interleaved copy in one raw call.
    pub fn copy_instances(&self) -> usize {
        self.instances / self.interleave
    }
    /// Whether the per-parameter helpers (`E__pack_p`, `E__unpack_p`, `E__bcast_p`) exist:
    /// bitslice and vslice without interleaving (their registers are one raw call's).
    pub fn has_param_helpers(&self) -> bool {
        self.slicing != Slicing::H && self.interleave == 1
    }
    pub fn has_consts(&self) -> bool {
        self.params.iter().any(|p| p.is_const)
    }
    /// The output of `E__xor_p` (the raw entry and the XOR-ing output transposition in one
    /// function): vslice on SSE/AVX2/AVX-512, not interleaved, exactly one output, of words.
    pub fn xor_out(&self) -> Option<&PackedParam> {
        let mut outs = self.params.iter().filter(|p| !p.is_input);
        let o = outs.next()?;
        let simd = matches!(self.arch, Arch::Sse | Arch::Avx2 | Arch::Avx512);
        (outs.next().is_none()
            && simd
            && self.slicing == Slicing::V
            && self.interleave == 1
            && !o.bit_string)
            .then_some(o)
    }
}

fn err<T>(msg: String) -> Result<T, CodegenError> {
    Err(CodegenError(msg))
}

/// Computes the packed layout, or says why this program/arch cannot have a packed entry point.
pub fn layout(prog: &Program, arch: Arch) -> Result<PackedLayout, CodegenError> {
    let entry = prog.entry();
    let ileave = prog.interleave.max(1) as usize;
    // Interleaved entries (`opt::interleave`, ABI C7): every non-const parameter is followed by
    // its k-1 copies; the packed API shows each parameter once.
    let keep = |ps: &[Param]| -> Vec<Param> {
        let mut v = Vec::new();
        let mut i = 0;
        while i < ps.len() {
            v.push(ps[i].clone());
            i += if ps[i].is_const { 1 } else { ileave };
        }
        v
    };
    let (ins, outs) = (keep(&entry.inputs), keep(&entry.outputs));
    // Vslice with only 1-bit words on a SIMD target uses the bitslice register layout
    // (see codegen: one instance per register bit), so it gets the bitslice packing.
    let one_bit = ins
        .iter()
        .chain(&outs)
        .all(|p| p.word_bits == 1 && p.atoms.iter().all(|a| entry.bits(*a) == 1));
    let slicing = if prog.slicing == Slicing::V && arch != Arch::Std && one_bit {
        Slicing::B
    } else {
        prog.slicing
    };
    let all: Vec<(&Param, bool)> = ins
        .iter()
        .map(|p| (p, true))
        .chain(outs.iter().map(|p| (p, false)))
        .collect();
    // Atom word size (V/H: one per program, needed for the register layout).
    let mut atom_bits = 1u32;
    if slicing != Slicing::B {
        let mut seen: Option<u32> = None;
        for (p, _) in &all {
            for a in &p.atoms {
                let b = entry.bits(*a);
                if b != p.word_bits {
                    return err(format!(
                        "packed API: parameter `{}` has {}-bit atoms but {}-bit words",
                        p.name, b, p.word_bits
                    ));
                }
            }
            match seen {
                None => seen = Some(p.word_bits),
                Some(s) if s != p.word_bits && !(slicing == Slicing::V && arch == Arch::Std) => {
                    return err(format!(
                        "packed API: {}slice entry `{}` mixes {}-bit and {}-bit parameters (`{}`); \
                         one register layout needs one word size",
                        slicing, entry.name, s, p.word_bits, p.name
                    ))
                }
                Some(s) => seen = Some(s.max(p.word_bits)),
            }
        }
        atom_bits = seen.unwrap_or(arch.reg_bits());
        let m = atom_bits;
        if slicing == Slicing::V && arch == Arch::Std {
            // The registers are the raw entry's `DATATYPE` (C6).
            atom_bits = super::std_v_datatype_bits(entry);
        }
        match slicing {
            Slicing::V => {
                if arch != Arch::Std && !tp::is_native(m) {
                    return err(format!(
                        "packed API: vslice on {} needs 8/16/32/64-bit words, not {}-bit",
                        arch, m
                    ));
                }
                if let Some((p, _)) = all
                    .iter()
                    .find(|(p, _)| p.word_bits == 0 || p.word_bits > 64)
                {
                    return err(format!(
                        "packed API: parameter `{}` has an unsupported word size {}",
                        p.name, p.word_bits
                    ));
                }
            }
            Slicing::H => {
                let l = arch.hslice_lane_bits();
                if m == 0 || m > 64 || !l.is_multiple_of(m) {
                    return err(format!(
                        "packed API: hslice on {} needs a word size dividing {}, not {}",
                        arch, l, m
                    ));
                }
            }
            Slicing::B => unreachable!(),
        }
    } else {
        for (p, _) in &all {
            if p.word_bits == 0 || p.word_bits > 64 || p.atoms.len() % p.word_bits as usize != 0 {
                return err(format!(
                    "packed API: parameter `{}` has an unsupported word size",
                    p.name
                ));
            }
        }
    }
    let instances = tp::instances(arch, slicing, atom_bits) * ileave;
    let mut namer = Namer::new();
    let mut params = Vec::new();
    for (p, is_input) in all {
        let prod: usize = p.c_dims.iter().product();
        if prod != p.atoms.len() {
            return err(format!(
                "packed API: parameter `{}`: c_dims do not match its atoms",
                p.name
            ));
        }
        if !is_input && p.is_const {
            return err(format!("packed API: output `{}` cannot be const", p.name));
        }
        let words = param_words(slicing, p);
        let m = p.word_bits;
        let bit_string = !tp::is_native(m);
        let (elem_type, elems) = if bit_string {
            ("uint8_t".to_string(), (words * m as usize).div_ceil(8))
        } else {
            (format!("uint{}_t", m), words)
        };
        params.push(PackedParam {
            name: p.name.clone(),
            c_name: namer.fresh(&p.name),
            is_input,
            is_const: p.is_const,
            words,
            word_bits: m,
            bit_string,
            elem_type,
            elems,
            atoms: p.atoms.len(),
            c_dims: p.c_dims.clone(),
            reg_type: tp::reg_type(arch, slicing, atom_bits),
        });
    }
    Ok(PackedLayout {
        entry: sanitize(&entry.name),
        n_name: namer.fresh("n"),
        arch,
        slicing,
        atom_bits,
        instances,
        interleave: ileave,
        params,
        raw_fn: format!("{}__", sanitize(&entry.name)),
        compact_consts: false,
    })
}

/// Returns (C definitions, header declarations) of `<Entry>__packed` and `<Entry>__instances`,
/// to be appended after the raw entry `<Entry>__`.
pub fn emit(prog: &Program, arch: Arch) -> Result<(String, String), CodegenError> {
    emit_over(prog, None, None, arch)
}

/// The layout of `kernel` if it can run the whole steps of `lay`'s packed entry: interleaved
/// (k > 1), with the same parameters and k times the instances.
fn kernel_layout(lay: &PackedLayout, kernel: &Program, arch: Arch) -> Option<PackedLayout> {
    let kl = layout(kernel, arch).ok()?;
    let same = kl.params.len() == lay.params.len()
        && kl.params.iter().zip(&lay.params).all(|(a, b)| {
            a.c_name == b.c_name
                && a.c_dims == b.c_dims
                && a.reg_type == b.reg_type
                && a.elems == b.elems
        });
    (kl.interleave > 1
        && kl.slicing == lay.slicing
        && kl.instances == lay.instances * kl.interleave
        && same)
        .then_some(kl)
}

/// Whether `kernel` can run the whole steps of `prog`'s packed entry ([`emit_over`]).
pub fn kernel_fits(prog: &Program, kernel: &Program, arch: Arch) -> bool {
    layout(prog, arch)
        .ok()
        .is_some_and(|lay| lay.interleave == 1 && kernel_layout(&lay, kernel, arch).is_some())
}

/// [`emit`], with the packed entry's full steps run by `kernel`: the same program compiled
/// with interleaving (`opt::interleave`, factor k > 1), whose raw entry is the C function
/// named by the second field (internal, `static`). Everything the header shows still
/// describes the raw entry of `prog` (`E__INSTANCES`, `E__INTERLEAVE`, the per-parameter
/// helpers); `E__packed` runs each whole step of k x (one raw step) instances as one call
/// of the kernel and the rest (fewer than k raw steps' worth) through the raw entry, so a
/// short message costs no more than without the kernel.
pub fn emit_over(
    prog: &Program,
    kernel: Option<(&Program, &str)>,
    with_consts: Option<&str>,
    arch: Arch,
) -> Result<(String, String), CodegenError> {
    let mut lay = layout(prog, arch)?;
    if let Some(wf) = with_consts {
        if kernel.is_some() || lay.slicing != Slicing::B || lay.interleave > 1 {
            return err("packed API: compact consts are for bitslice without a kernel".to_string());
        }
        lay.raw_fn = wf.to_string();
        lay.compact_consts = true;
    }
    if lay.interleave > 1 && kernel.is_some() {
        return err(
            "packed API: an interleaved raw entry has no separate interleaved kernel".to_string(),
        );
    }
    let klay = match kernel {
        Some((k, name)) => {
            let Some(mut kl) = kernel_layout(&lay, k, arch) else {
                return err(format!(
                    "packed API: kernel `{}` is not an interleaved copy of the raw entry",
                    name
                ));
            };
            kl.raw_fn = name.to_string();
            Some(kl)
        }
        None => None,
    };
    Ok((c_text(&lay, klay.as_ref()), h_text(&lay, klay.as_ref())))
}

fn proto_args(
    lay: &PackedLayout,
    pick: impl Fn(&PackedParam) -> bool,
    prefix: &str,
) -> Vec<String> {
    lay.params
        .iter()
        .filter(|p| pick(p))
        .map(|p| {
            format!(
                "{}{} *{}{}",
                if p.is_input { "const " } else { "" },
                p.elem_type,
                prefix,
                p.c_name
            )
        })
        .collect()
}

fn join_args(first: &[String], rest: &[String]) -> String {
    first
        .iter()
        .chain(rest)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ")
}

/// Name of the prepared-constants argument in the header's prototypes.
fn consts_arg(lay: &PackedLayout) -> String {
    let mut n = "consts".to_string();
    while lay.params.iter().any(|p| p.c_name == n) || lay.n_name == n {
        n.push('_');
    }
    n
}

fn consts_typedef(lay: &PackedLayout) -> String {
    let e = &lay.entry;
    let mut s = format!("#ifndef {e}__CONSTS_DEFINED\n#define {e}__CONSTS_DEFINED\n");
    s.push_str(&format!(
        "/* The const inputs of {e} in their sliced form (E__prepare_consts): one raw call's registers. */\ntypedef struct __attribute__((aligned(64))) {{\n"
    ));
    for p in lay.params.iter().filter(|p| p.is_const) {
        s.push_str(&format!(
            "    {} {}{};\n",
            if lay.compact_consts {
                "uint64_t"
            } else {
                p.reg_type.as_str()
            },
            p.c_name,
            dims(&p.c_dims)
        ));
    }
    s.push_str(&format!("}} {e}__consts;\n#endif\n"));
    s
}

fn h_text(lay: &PackedLayout, klay: Option<&PackedLayout>) -> String {
    let e = &lay.entry;
    let n = &lay.n_name;
    let mut h = String::new();
    h.push_str("#include <stddef.h>\n#include <stdint.h>\n");
    h.push_str(&format!(
        "#ifndef {e}__INSTANCES\n#define {e}__INSTANCES {}\n#endif\n",
        lay.instances
    ));
    h.push_str(&format!("/* Register layout of the raw entry: {e}__SLICING_B, _V or _H (src/target/layout.rs). */\n#ifndef {e}__SLICING_{s}\n#define {e}__SLICING_{s} 1\n#endif\n", s = lay.slicing));
    h.push_str(&format!(
        "/* Interleaving factor: the raw entry takes each non-const parameter this many times. */\n#ifndef {e}__INTERLEAVE\n#define {e}__INTERLEAVE {}\n#endif\n",
        lay.interleave
    ));
    h.push_str(&format!(
        "/* Instances processed by one call of the raw entry {e}__ ({} on {}). */\nsize_t {e}__instances(void);\n",
        lay.slicing, lay.arch
    ));
    h.push_str(&format!(
        "/* Runs {e} on {n} instances stored plainly in memory, instance-major; see the README\n   \
         (\"packed entry point\") for the word and bit order. const inputs are given once. */\n"
    ));
    let all = proto_args(lay, |_| true, "");
    h.push_str(&format!(
        "void {e}__packed(size_t {n}{}{});\n",
        if all.is_empty() { "" } else { ", " },
        all.join(", ")
    ));
    if lay.has_consts() {
        let ca = consts_arg(lay);
        match lay.arch {
            Arch::Sse | Arch::Avx2 | Arch::Avx512 => h.push_str("#include <immintrin.h>\n"),
            Arch::Neon => h.push_str("#include <arm_neon.h>\n"),
            Arch::Std => {}
        }
        h.push_str(&consts_typedef(lay));
        let consts = proto_args(lay, |p| p.is_const, "");
        h.push_str(&format!(
            "/* Slices the const inputs once ({e}__packed does it on every call); {e}__packed_with then\n   \
             takes them prepared. Any alignment of {ca} works (64-byte aligned saves a copy per call).\n   \
             The prepared form holds the constants (round keys): clear it with {e}__wipe_consts. */\n"
        ));
        h.push_str(&format!(
            "void {e}__prepare_consts({e}__consts *{ca}, {});\n",
            consts.join(", ")
        ));
        h.push_str(&format!("void {e}__wipe_consts({e}__consts *{ca});\n"));
        let rest = proto_args(lay, |p| !p.is_const, "");
        h.push_str(&format!(
            "void {e}__packed_with(size_t {n}, const {e}__consts *{ca}{}{});\n",
            if rest.is_empty() { "" } else { ", " },
            rest.join(", ")
        ));
    }
    if lay.has_param_helpers() {
        h.push_str(&format!(
            "/* One raw call's registers of a parameter (arrays of {e}__INSTANCES-instance registers, the\n   \
             raw entry's argument): E__pack_p transposes cnt <= {e}__INSTANCES plain instances in\n   \
             (zero instances after them), E__bcast_p puts one instance in every slot, E__unpack_p\n   \
             writes cnt instances out, XORed with x[] when x is not NULL (x may equal dst). */\n"
        ));
        for p in &lay.params {
            if p.is_input {
                if !p.is_const {
                    h.push_str(&format!(
                        "void {e}__pack_{c}(size_t cnt, const {t} *src, void *regs);\n",
                        c = p.c_name,
                        t = p.elem_type
                    ));
                }
                h.push_str(&format!(
                    "void {e}__bcast_{c}(const {t} *one, void *regs);\n",
                    c = p.c_name,
                    t = p.elem_type
                ));
            } else {
                h.push_str(&format!(
                    "void {e}__unpack_{c}(size_t cnt, const void *regs, const {t} *x, {t} *dst);\n",
                    c = p.c_name,
                    t = p.elem_type
                ));
            }
        }
    }
    if let Some(o) = lay.xor_out() {
        h.push_str(&format!(
            "/* {e}__ then {e}__unpack_{c}({e}__INSTANCES, ...) in one function: the output registers stay in\n   \
             registers (the keystream of a stream mode is never stored before its XOR). Takes {e}__'s\n   \
             input registers{cs}, then x (not NULL; may equal dst) and dst. */\n#define {e}__HAS_XOR_{c} 1\n",
            c = o.c_name,
            cs = if lay.has_consts() { format!(" (the const ones as one {e}__consts, 64-byte aligned, first)") } else { String::new() }
        ));
        h.push_str(&format!(
            "void {e}__xor_{}({});\n",
            o.c_name,
            xor_params(lay, o).join(", ")
        ));
        if let Some(kl) = klay {
            h.push_str(&format!(
                "/* {e}__xor_{c} over {k} raw calls' worth at once, through the internal {k}-way interleaved kernel:\n   \
                 each input pointer holds {k} consecutive raw calls' registers (instances 0..{k}*{e}__INSTANCES-1,\n   \
                 call by call), x and dst {k}*{e}__INSTANCES instances. */\n#define {e}__XOR_KERNEL_{c} {k}\n",
                c = o.c_name,
                k = kl.interleave
            ));
            h.push_str(&format!(
                "void {e}__xor_kernel_{}({});\n",
                o.c_name,
                xor_params(lay, o).join(", ")
            ));
        }
    }
    h
}

/// The parameters of `E__xor_p` (header and definition): the prepared constants, the non-const
/// inputs' registers, then x and dst of output `o`.
fn xor_params(lay: &PackedLayout, o: &PackedParam) -> Vec<String> {
    let mut v = Vec::new();
    if lay.has_consts() {
        v.push(format!("const {}__consts *nkp_cs", lay.entry));
    }
    for p in lay.params.iter().filter(|p| p.is_input && !p.is_const) {
        v.push(format!("const void *nkp_p_{}", p.c_name));
    }
    v.push(format!("const {} *nkp_x", o.elem_type));
    v.push(format!("{} *nkp_dst", o.elem_type));
    v
}

fn dims(c_dims: &[usize]) -> String {
    c_dims.iter().map(|d| format!("[{d}]")).collect()
}

fn c_text(lay: &PackedLayout, klay: Option<&PackedLayout>) -> String {
    let e = &lay.entry;
    let arch = lay.arch;
    let a = arch.name();
    let inst = lay.instances;
    let attr = tp::target_attr(arch);
    let sp = if attr.is_empty() { "" } else { " " };
    let mut c = String::new();
    c.push_str(&format!(
        "\n/* ---- packed entry point of {e} ({}slice, {}) ---- */\n",
        lay.slicing, a
    ));
    c.push_str(&tp::common());
    match lay.slicing {
        Slicing::B => c.push_str(&tp::b_routines(arch)),
        Slicing::V => {
            let mut ms: Vec<u32> = lay.params.iter().map(|p| p.word_bits).collect();
            ms.sort();
            ms.dedup();
            for m in ms {
                c.push_str(&tp::v_routines(arch, m, lay.atom_bits));
            }
        }
        Slicing::H => c.push_str(&tp::h_routines(arch, lay.atom_bits)),
    }
    c.push_str(&format!(
        "#ifdef {e}__INSTANCES\n_Static_assert({e}__INSTANCES == {inst}, \"packed API and raw entry disagree on {e}__INSTANCES\");\n#endif\n"
    ));
    c.push_str(&format!(
        "size_t {e}__instances(void) {{ return {inst}; }}\n"
    ));
    let consts = lay.has_consts();
    if consts {
        c.push_str(&consts_typedef(lay));
        let cargs = proto_args(lay, |p| p.is_const, "nkp_p_");
        c.push_str(&format!(
            "void {e}__prepare_consts({e}__consts *nkp_cs, {}) {{\n",
            cargs.join(", ")
        ));
        for p in lay.params.iter().filter(|p| p.is_const) {
            if lay.compact_consts {
                // one uint64_t per register: the broadcast into 8-byte "registers"
                c.push_str(&format!(
                    "    nkp_bcast_B_u{}(nkp_p_{c}, {}, 8, ((uint64_t *)&nkp_cs->{c}));\n",
                    if p.bit_string { 8 } else { p.word_bits },
                    p.atoms,
                    c = p.c_name
                ));
                continue;
            }
            c.push_str(&bcast_call(
                lay,
                p,
                &format!("nkp_p_{}", p.c_name),
                &format!("(({} *)&nkp_cs->{})", p.reg_type, p.c_name),
            ));
        }
        c.push_str("}\n");
        c.push_str(&format!(
            "void {e}__wipe_consts({e}__consts *nkp_cs) {{ nkp_wipe(nkp_cs, sizeof *nkp_cs); }}\n"
        ));
    }
    let run_args = proto_args(lay, |p| !p.is_const, "nkp_p_");
    let cs_param = if consts {
        vec![format!("{e}__consts *nkp_cs")]
    } else {
        vec![]
    };
    c.push_str(&run_text(lay, &format!("nkp_run_{e}")));
    // With an interleaved kernel: whole kernel steps through it, the rest through the raw entry.
    let go = match klay {
        None => format!("nkp_run_{e}"),
        Some(kl) => {
            c.push_str(&run_text(kl, &format!("nkp_runk_{e}")));
            let kstep = kl.copy_instances() * kl.calls_per_step() * kl.interleave;
            let fw = |off: &str| -> String {
                let mut v: Vec<String> = Vec::new();
                if consts {
                    v.push("nkp_cs".to_string());
                }
                for p in lay.params.iter().filter(|p| !p.is_const) {
                    v.push(if off.is_empty() {
                        format!("nkp_p_{}", p.c_name)
                    } else {
                        format!("nkp_p_{} + {off} * {}", p.c_name, p.elems)
                    });
                }
                v.join(", ")
            };
            c.push_str(&format!(
                "/* Whole steps of {kstep} instances through the {k}-way interleaved kernel, the rest through {e}__. */\n",
                k = kl.interleave
            ));
            c.push_str(&format!(
                "static {attr}{sp}void nkp_go_{e}(size_t nkp_n{}{}) {{\n",
                if cs_param.is_empty() && run_args.is_empty() {
                    ""
                } else {
                    ", "
                },
                join_args(&cs_param, &run_args)
            ));
            c.push_str(&format!(
                "    const size_t nkp_full = nkp_n / {kstep} * {kstep};\n"
            ));
            let sep = |a: String| if a.is_empty() { a } else { format!(", {a}") };
            c.push_str(&format!(
                "    if (nkp_full) nkp_runk_{e}(nkp_full{});\n",
                sep(fw(""))
            ));
            c.push_str(&format!(
                "    if (nkp_n > nkp_full) nkp_run_{e}(nkp_n - nkp_full{});\n",
                sep(fw("nkp_full"))
            ));
            c.push_str("}\n");
            format!("nkp_go_{e}")
        }
    };
    let fwd: Vec<String> = lay
        .params
        .iter()
        .filter(|p| !p.is_const)
        .map(|p| format!("nkp_p_{}", p.c_name))
        .collect();
    let fwd = if fwd.is_empty() {
        String::new()
    } else {
        format!(", {}", fwd.join(", "))
    };
    // E__packed: constants sliced on every call.
    let all = proto_args(lay, |_| true, "nkp_p_");
    c.push_str(&format!(
        "{attr}{sp}void {e}__packed(size_t nkp_n{}{}) {{\n",
        if all.is_empty() { "" } else { ", " },
        all.join(", ")
    ));
    c.push_str("    if (nkp_n == 0) return;\n");
    if consts {
        let cn: Vec<String> = lay
            .params
            .iter()
            .filter(|p| p.is_const)
            .map(|p| format!("nkp_p_{}", p.c_name))
            .collect();
        c.push_str(&format!(
            "    {e}__consts nkp_cs;\n    {e}__prepare_consts(&nkp_cs, {});\n",
            cn.join(", ")
        ));
        c.push_str(&format!("    {go}(nkp_n, &nkp_cs{fwd});\n"));
        c.push_str("    nkp_wipe(&nkp_cs, sizeof nkp_cs);\n");
    } else {
        c.push_str(&format!("    {go}(nkp_n{fwd});\n"));
    }
    c.push_str("}\n");
    if consts {
        c.push_str(&format!(
            "{attr}{sp}void {e}__packed_with(size_t nkp_n, const {e}__consts *nkp_csp{}{}) {{\n",
            if run_args.is_empty() { "" } else { ", " },
            run_args.join(", ")
        ));
        c.push_str("    if (nkp_n == 0) return;\n");
        c.push_str(&format!("    if (((uintptr_t)(const void *)nkp_csp & 63) == 0) {{ {go}(nkp_n, ({e}__consts *)nkp_csp{fwd}); return; }}\n"));
        c.push_str(&format!(
            "    {e}__consts nkp_cs;\n    memcpy(&nkp_cs, nkp_csp, sizeof nkp_cs);\n"
        ));
        c.push_str(&format!("    {go}(nkp_n, &nkp_cs{fwd});\n"));
        c.push_str("    nkp_wipe(&nkp_cs, sizeof nkp_cs);\n}\n");
    }
    if lay.has_param_helpers() {
        for p in &lay.params {
            let regs = format!("(({} *)nkp_regs)", p.reg_type);
            if p.is_input {
                if !p.is_const {
                    c.push_str(&format!("{attr}{sp}void {e}__pack_{}(size_t nkp_cnt, const {} *nkp_src, void *nkp_regs) {{\n", p.c_name, p.elem_type));
                    c.push_str(&format!("    if (nkp_cnt > {inst}) nkp_cnt = {inst};\n"));
                    if p.bit_string && lay.slicing == Slicing::V {
                        c.push_str(&in_call(lay, p, "nkp_src", "nkp_cnt", &regs));
                    } else {
                        c.push_str(&format!("    if (nkp_cnt < {inst}) {{\n        {} nkp_s[{}];\n        memset(nkp_s, 0, sizeof nkp_s);\n        if (nkp_cnt) memcpy(nkp_s, nkp_src, nkp_cnt * {} * sizeof(nkp_s[0]));\n", p.elem_type, inst * p.elems, p.elems));
                        c.push_str(&in_call(lay, p, "nkp_s", &format!("{inst}"), &regs));
                        c.push_str(
                            "        nkp_wipe(nkp_s, sizeof nkp_s);\n        return;\n    }\n",
                        );
                        c.push_str(&in_call(lay, p, "nkp_src", &format!("{inst}"), &regs));
                    }
                    c.push_str("}\n");
                }
                c.push_str(&format!(
                    "void {e}__bcast_{}(const {} *nkp_one, void *nkp_regs) {{\n",
                    p.c_name, p.elem_type
                ));
                c.push_str(&bcast_call(lay, p, "nkp_one", &regs));
                c.push_str("}\n");
            } else {
                c.push_str(&format!(
                    "{attr}{sp}void {e}__unpack_{c}(size_t nkp_cnt, const void *nkp_regs, const {t} *nkp_x, {t} *nkp_dst) {{\n",
                    c = p.c_name,
                    t = p.elem_type
                ));
                c.push_str(&format!("    if (nkp_cnt > {inst}) nkp_cnt = {inst};\n"));
                if lay.slicing == Slicing::V
                    && arch != Arch::Std
                    && arch != Arch::Neon
                    && !p.bit_string
                {
                    c.push_str(&format!(
                        "    if (nkp_cnt == {inst}) {{ nkp_V_outx_u{m}_{a}(nkp_regs, {w}, nkp_x, nkp_dst); return; }}\n",
                        m = p.word_bits,
                        w = p.words
                    ));
                }
                if lay.slicing == Slicing::B
                    && matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512)
                {
                    // the XOR fused into the transposition's stores (runtime: nkp_B_outx)
                    c.push_str(&format!(
                        "    if (nkp_cnt == {inst}) {{ nkp_B_outx_u{ub}_{a}({regs}, {}, {}, nkp_x, nkp_dst); return; }}\n",
                        p.elems,
                        p.atoms,
                        ub = if p.bit_string { 8 } else { p.word_bits },
                        a = arch.name()
                    ));
                }
                c.push_str(&format!("    {} nkp_s[{}];\n", p.elem_type, inst * p.elems));
                c.push_str(&out_call(lay, p, "nkp_s", &format!("{inst}"), &regs));
                c.push_str(&format!(
                    "    for (size_t i = 0; i < nkp_cnt * {el}; i++) nkp_dst[i] = ({t})(nkp_s[i] ^ (nkp_x ? nkp_x[i] : 0));\n",
                    el = p.elems,
                    t = p.elem_type
                ));
                c.push_str("    nkp_wipe(nkp_s, sizeof nkp_s);\n}\n");
            }
        }
    }
    if let Some(o) = lay.xor_out() {
        // flatten: the raw entry (and its nodes) inlined, so its output array is scalar-replaced
        // and goes straight into the transposition network. x is declared non-NULL so that gcc
        // does not version the network on it (that version copied the array through memcpy).
        // Wiping the output array would force it to memory (measured 4% on chacha20_xor): it is
        // wiped only under NAKIRI_SCRUB_STACK, like the raw entry's spills.
        c.push_str(&format!(
            "__attribute__((flatten)) {attr}{sp}void {e}__xor_{}({}) {{\n",
            o.c_name,
            xor_params(lay, o).join(", ")
        ));
        c.push_str(&format!("    {} nkp_o{};\n", o.reg_type, dims(&o.c_dims)));
        c.push_str(&prefetch_for_write(
            "    ",
            "nkp_dst",
            &(lay.instances * o.elems).to_string(),
        ));
        let args: Vec<String> = lay
            .params
            .iter()
            .map(|p| {
                if !p.is_input {
                    if p.c_dims.is_empty() {
                        "&nkp_o".to_string()
                    } else {
                        "nkp_o".to_string()
                    }
                } else if p.is_const {
                    format!("(({e}__consts *)nkp_cs)->{}", p.c_name)
                } else if p.c_dims.is_empty() {
                    format!("*(const {} *)nkp_p_{}", p.reg_type, p.c_name)
                } else {
                    format!("(void *)nkp_p_{}", p.c_name)
                }
            })
            .collect();
        c.push_str(&format!("    {e}__({});\n", args.join(", ")));
        c.push_str("    if (!nkp_x) __builtin_unreachable();\n");
        c.push_str(&format!(
            "    nkp_V_outx_u{}_{a}(&nkp_o, {}, nkp_x, nkp_dst);\n",
            o.word_bits, o.words
        ));
        c.push_str("#ifdef NAKIRI_SCRUB_STACK\n    nkp_wipe(&nkp_o, sizeof nkp_o);\n#endif\n}\n");
        if let Some(kl) = klay {
            c.push_str(&xor_kernel_text(lay, kl, o));
        }
    }
    c
}

/// The C line that prefetches for writing (`nkp_prefetchw`, `prefetchw`) the `elems` elements
/// at `dst`, which the caller writes after its computation: issued before it, the lines' read
/// for ownership overlaps the computation instead of filling the store buffer at the end.
/// `chacha20_xor` on avx512 (Intel, 2026-11-27), 1 MiB buffers that L2 does not hold: 0.441 ->
/// 0.416 c/B (OpenSSL 0.424); 16 KiB unchanged (0.413 / 0.415). Not in the packed loop: there
/// the same prefetch of each step's output made `-B` avx512 packed 4-6% slower on 64 KiB
/// (Xoodoo, Ascon, Gimli, RECTANGLE; `-V`/`-H` unchanged), its lines competing with the input
/// transposition's loads.
fn prefetch_for_write(indent: &str, dst: &str, elems: &str) -> String {
    format!("{indent}nkp_prefetchw({dst}, {elems} * sizeof *({dst}));\n")
}

/// `E__xor_kernel_p`: [`E__xor_p`](c_text) for k raw calls' worth of instances through the
/// k-way interleaved kernel, flattened, so both the kernel's output arrays stay in registers.
/// ChaCha20 `-V` avx512 on the Intel machine (2026-11-26, a hand-written prototype of this
/// function in `chacha20_xor`'s loop): 0.403 c/B on 16 KiB against 0.462 through `E__xor_p`,
/// 0.440 against 0.513 on 1 MiB (the kernel through memory, then two `E__unpack_p`: 0.415 /
/// 0.470).
fn xor_kernel_text(lay: &PackedLayout, kl: &PackedLayout, o: &PackedParam) -> String {
    let e = &lay.entry;
    let a = lay.arch.name();
    let attr = tp::target_attr(lay.arch);
    let sp = if attr.is_empty() { "" } else { " " };
    let k = kl.interleave;
    let mut c = format!(
        "__attribute__((flatten)) {attr}{sp}void {e}__xor_kernel_{}({}) {{\n",
        o.c_name,
        xor_params(lay, o).join(", ")
    );
    c.push_str(&format!(
        "    {} nkp_o[{k}]{};\n",
        o.reg_type,
        dims(&o.c_dims)
    ));
    c.push_str(&prefetch_for_write(
        "    ",
        "nkp_dst",
        &(k * lay.instances * o.elems).to_string(),
    ));
    let mut args = Vec::new();
    for p in &kl.params {
        if p.is_const {
            args.push(format!("(({e}__consts *)nkp_cs)->{}", p.c_name));
            continue;
        }
        for copy in 0..k {
            if !p.is_input {
                args.push(if p.c_dims.is_empty() {
                    format!("&nkp_o[{copy}]")
                } else {
                    format!("nkp_o[{copy}]")
                });
            } else {
                // copy `copy`'s registers: the copy-th raw call's worth of the input
                let base = format!(
                    "(const {t} *)nkp_p_{n} + {copy} * {len}",
                    t = p.reg_type,
                    n = p.c_name,
                    len = p.c_dims.iter().product::<usize>().max(1)
                );
                args.push(if p.c_dims.is_empty() {
                    format!("*({base})")
                } else {
                    format!("(void *)({base})")
                });
            }
        }
    }
    c.push_str(&format!("    {}({});\n", kl.raw_fn, args.join(", ")));
    c.push_str("    if (!nkp_x) __builtin_unreachable();\n");
    let per = lay.instances * o.elems;
    for copy in 0..k {
        c.push_str(&format!(
            "    nkp_V_outx_u{}_{a}(&nkp_o[{copy}], {}, nkp_x + {}, nkp_dst + {});\n",
            o.word_bits,
            o.words,
            copy * per,
            copy * per
        ));
    }
    c.push_str("#ifdef NAKIRI_SCRUB_STACK\n    nkp_wipe(&nkp_o, sizeof nkp_o);\n#endif\n}\n");
    c
}

/// Outputs whose register array can be an input's (the same register type and shape): the raw
/// entry is then called in place, as it allows (its loads come before its output stores, and a
/// state kept in the output array skips its copy when the output is the input: codegen
/// `state_in_output`). One array fewer per output in the step's working set: Ascon `-B` on
/// AVX-512 keeps 20 KB of registers instead of 40 (docs/history.md, "One register array in place").
/// Pairs of (output, input) parameter indices of `lay.params`, each input used once.
fn shared_register_arrays(lay: &PackedLayout) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut taken = vec![false; lay.params.len()];
    for (oi, o) in lay.params.iter().enumerate() {
        if o.is_input || o.is_const {
            continue;
        }
        if let Some(ii) = lay.params.iter().enumerate().position(|(ii, p)| {
            !taken[ii]
                && p.is_input
                && !p.is_const
                && p.reg_type == o.reg_type
                && p.c_dims == o.c_dims
        }) {
            taken[ii] = true;
            pairs.push((oi, ii));
        }
    }
    pairs
}

/// The static function `name(n, [consts,] params...)` that runs the packed loop over steps of
/// `lay` (calling `lay.raw_fn` once per raw call of a step).
fn run_text(lay: &PackedLayout, name: &str) -> String {
    let e = &lay.entry;
    let k = lay.interleave;
    let nc = lay.calls_per_step();
    let cinst = lay.copy_instances();
    let cstep = cinst * nc;
    let step = cstep * k;
    let attr = tp::target_attr(lay.arch);
    let sp = if attr.is_empty() { "" } else { " " };
    let consts = lay.has_consts();
    let mut c = String::new();
    let run_args = proto_args(lay, |p| !p.is_const, "nkp_p_");
    // Not const: the raw entry's array parameters are not (it only reads its inputs).
    let cs_param = if consts {
        vec![format!("{e}__consts *nkp_cs")]
    } else {
        vec![]
    };
    c.push_str(&format!(
        "/* {k} interleaved cop{ies} x {nc} raw call(s) x {cinst} instances per step; copy c takes the c-th group of {cstep}. */\n",
        ies = if k == 1 { "y" } else { "ies" }
    ));
    let fused = fused_step(lay);
    if fused {
        c.push_str(&fused_step_text(lay, name));
    }
    // Outside the fused steps an output may live in an input's register array.
    let shared = if fused {
        Vec::new()
    } else {
        shared_register_arrays(lay)
    };
    let own = |pi: usize| !shared.iter().any(|(o, _)| *o == pi);
    let arr = |pi: usize| {
        let i = shared
            .iter()
            .find(|(o, _)| *o == pi)
            .map_or(pi, |(_, i)| *i);
        format!("nkp_r_{}", lay.params[i].c_name)
    };
    c.push_str(&format!(
        "static {attr}{sp}void {name}(size_t nkp_n{}{}) {{\n",
        if cs_param.is_empty() && run_args.is_empty() {
            ""
        } else {
            ", "
        },
        join_args(&cs_param, &run_args)
    ));
    // fused without interleaving: every instance goes through the step (below), no arrays here
    let only_steps = fused && k == 1;
    for (_, p) in lay
        .params
        .iter()
        .enumerate()
        .filter(|(pi, p)| !p.is_const && !only_steps && own(*pi))
    {
        c.push_str(&format!(
            "    {} nkp_r_{}[{}]{};\n",
            p.reg_type,
            p.c_name,
            k * nc,
            dims(&p.c_dims)
        ));
        if !p.is_input && (nc > 1 || k > 1) {
            // Sets of calls skipped in the tail are transposed back but never copied out.
            c.push_str(&format!(
                "    memset(nkp_r_{0}, 0, sizeof nkp_r_{0});\n",
                p.c_name
            ));
        }
    }
    c.push_str(&format!(
        "    for (size_t nkp_base = 0; nkp_base < nkp_n; nkp_base += {step}) {{\n"
    ));
    if fused {
        let mut v: Vec<String> = Vec::new();
        if consts {
            v.push("nkp_cs".to_string());
        }
        for p in lay.params.iter().filter(|p| !p.is_const) {
            v.push(format!("nkp_p_{} + nkp_base * {}", p.c_name, p.elems));
        }
        let v: Vec<String> = v
            .iter()
            .map(|a| a.replace("nkp_base", &format!("(nkp_base + nkp_c * {cinst})")))
            .collect();
        c.push_str(&format!(
            "        if (nkp_n - nkp_base >= {step}) {{\n            for (size_t nkp_c = 0; nkp_c < {nc}; nkp_c++) {name}_step({});\n            continue;\n        }}\n",
            v.join(", ")
        ));
        if k == 1 {
            // The rest (less than a step): its whole raw calls through the step too, then the
            // last partial call through the step on a zero-padded copy (not the block
            // transposition below, which transposes a whole hslice block for any count).
            let st: Vec<String> = lay
                .params
                .iter()
                .filter(|p| !p.is_const)
                .map(|p| format!("nkp_t_{}", p.c_name))
                .collect();
            let mut t = String::from("        {\n");
            t.push_str(&format!(
                "            const size_t nkp_whole = (nkp_n - nkp_base) / {cinst};\n"
            ));
            t.push_str(&format!(
                "            for (size_t nkp_c = 0; nkp_c < nkp_whole; nkp_c++) {name}_step({});\n",
                v.join(", ")
            ));
            t.push_str(&format!("            nkp_base += nkp_whole * {cinst};\n            if (nkp_base < nkp_n) {{\n                const size_t nkp_cnt = nkp_n - nkp_base;\n"));
            for p in lay.params.iter().filter(|p| !p.is_const) {
                t.push_str(&format!(
                    "                {} nkp_t_{}[{}];\n",
                    p.elem_type,
                    p.c_name,
                    cinst * p.elems
                ));
                if p.is_input {
                    t.push_str(&format!(
                        "                memset(nkp_t_{c}, 0, sizeof nkp_t_{c});\n                memcpy(nkp_t_{c}, nkp_p_{c} + nkp_base * {el}, nkp_cnt * {el} * sizeof(nkp_t_{c}[0]));\n",
                        c = p.c_name,
                        el = p.elems
                    ));
                }
            }
            let sa: Vec<String> = if consts {
                std::iter::once("nkp_cs".to_string())
                    .chain(st.iter().cloned())
                    .collect()
            } else {
                st.clone()
            };
            t.push_str(&format!(
                "                {name}_step({});\n",
                sa.join(", ")
            ));
            for p in lay.params.iter().filter(|p| !p.is_input) {
                t.push_str(&format!("                memcpy(nkp_p_{c} + nkp_base * {el}, nkp_t_{c}, nkp_cnt * {el} * sizeof(nkp_t_{c}[0]));\n", c = p.c_name, el = p.elems));
            }
            for n in &st {
                t.push_str(&format!("                nkp_wipe({n}, sizeof {n});\n"));
            }
            t.push_str("            }\n            break;\n        }\n    }\n");
            c.push_str(&t);
            // the step's arrays are wiped in it under NAKIRI_SCRUB_STACK; its spills:
            c.push_str("#ifdef NAKIRI_SCRUB_STACK\n    nkp_scrub_stack();\n#endif\n}\n");
            return c;
        }
    }
    c.push_str(&format!(
        "        for (size_t nkp_k = 0; nkp_k < {k}; nkp_k++) {{\n"
    ));
    c.push_str(&format!(
        "            const size_t nkp_cb = nkp_base + nkp_k * {cstep};\n"
    ));
    c.push_str(&format!("            const size_t nkp_cnt = nkp_cb >= nkp_n ? 0 : nkp_n - nkp_cb < {cstep} ? nkp_n - nkp_cb : {cstep};\n"));
    c.push_str("            (void)nkp_cnt;\n");
    for (pi, p) in lay
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_input && !p.is_const)
    {
        let regs = format!("(({} *)&{}[nkp_k * {nc}])", p.reg_type, arr(pi));
        c.push_str("            {\n");
        c.push_str(&format!(
            "                const {t} *nkp_src = nkp_p_{nm} + nkp_cb * {el};\n",
            t = p.elem_type,
            nm = p.c_name,
            el = p.elems
        ));
        if p.bit_string && lay.slicing == Slicing::V {
            // Converted to words anyway: the conversion handles the tail.
            c.push_str(&in_call(lay, p, "nkp_src", "nkp_cnt", &regs));
        } else {
            c.push_str(&format!(
                "                {} nkp_s[{}];\n",
                p.elem_type,
                cstep * p.elems
            ));
            c.push_str(&format!(
                "                if (nkp_cnt < {cstep}) {{\n                    memset(nkp_s, 0, sizeof nkp_s);\n                    if (nkp_cnt) memcpy(nkp_s, nkp_src, nkp_cnt * {el} * sizeof(nkp_s[0]));\n                    nkp_src = nkp_s;\n                }}\n",
                el = p.elems
            ));
            c.push_str(&in_call(lay, p, "nkp_src", &format!("{cstep}"), &regs));
            c.push_str(&format!(
                "                if (nkp_cnt < {cstep}) nkp_wipe(nkp_s, sizeof nkp_s);\n"
            ));
        }
        c.push_str("            }\n");
    }
    c.push_str("        }\n");
    // The raw calls: parameters in the entry's order, non-const ones once per copy (C7).
    let raw_args = raw_call_args(lay, &arr, |copy| format!("{} + nkp_c", copy * nc));
    c.push_str(&format!("        for (size_t nkp_c = 0; nkp_c < {nc} && nkp_base + nkp_c * {cinst} < nkp_n; nkp_c++)\n"));
    c.push_str(&format!(
        "            {}({});\n",
        lay.raw_fn,
        raw_args.join(", ")
    ));
    c.push_str(&format!(
        "        for (size_t nkp_k = 0; nkp_k < {k}; nkp_k++) {{\n"
    ));
    c.push_str(&format!(
        "            const size_t nkp_cb = nkp_base + nkp_k * {cstep};\n"
    ));
    c.push_str("            if (nkp_cb >= nkp_n) break;\n");
    c.push_str(&format!(
        "            const size_t nkp_cnt = nkp_n - nkp_cb < {cstep} ? nkp_n - nkp_cb : {cstep};\n"
    ));
    c.push_str("            (void)nkp_cnt;\n");
    for (pi, p) in lay.params.iter().enumerate().filter(|(_, p)| !p.is_input) {
        let regs = format!("(({} *)&{}[nkp_k * {nc}])", p.reg_type, arr(pi));
        c.push_str("            {\n");
        c.push_str(&format!(
            "                {t} *nkp_dst = nkp_p_{nm} + nkp_cb * {el};\n",
            t = p.elem_type,
            nm = p.c_name,
            el = p.elems
        ));
        if p.bit_string && lay.slicing == Slicing::V {
            c.push_str(&out_call(lay, p, "nkp_dst", "nkp_cnt", &regs));
        } else if cstep == 1 {
            c.push_str(&out_call(lay, p, "nkp_dst", "", &regs));
        } else {
            c.push_str(&format!("                if (nkp_cnt == {cstep}) {{\n"));
            c.push_str(&out_call(lay, p, "nkp_dst", "", &regs));
            c.push_str("                } else {\n");
            c.push_str(&format!(
                "                    {} nkp_s[{}];\n",
                p.elem_type,
                cstep * p.elems
            ));
            c.push_str(&out_call(lay, p, "nkp_s", "", &regs));
            c.push_str(&format!(
                "                    memcpy(nkp_dst, nkp_s, nkp_cnt * {} * sizeof(nkp_s[0]));\n",
                p.elems
            ));
            c.push_str("                    nkp_wipe(nkp_s, sizeof nkp_s);\n");
            c.push_str("                }\n");
        }
        c.push_str("            }\n");
    }
    c.push_str("        }\n");
    c.push_str("    }\n");
    // Secrets do not outlive the call: every register array (plaintext, keystream).
    c.push_str("#ifdef NAKIRI_SCRUB_STACK\n    nkp_scrub_stack();\n#endif\n");
    for (_, p) in lay
        .params
        .iter()
        .enumerate()
        .filter(|(pi, p)| !p.is_const && own(*pi))
    {
        c.push_str(&format!(
            "    nkp_wipe(nkp_r_{0}, sizeof nkp_r_{0});\n",
            p.c_name
        ));
    }
    c.push_str("}\n");
    c
}

/// The arguments of one raw call: parameters in the entry's order, const ones from `nkp_cs`,
/// non-const ones once per copy (ABI C7) as `arr(p)[index(copy)]`, `arr` naming the register
/// array each parameter uses (a scalar output by
/// address).
fn raw_call_args(
    lay: &PackedLayout,
    arr: &dyn Fn(usize) -> String,
    index: impl Fn(usize) -> String,
) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for (pi, p) in lay.params.iter().enumerate() {
        if p.is_const {
            v.push(format!("nkp_cs->{}", p.c_name));
            continue;
        }
        for copy in 0..lay.interleave {
            let r = format!("{}[{}]", arr(pi), index(copy));
            v.push(if p.c_dims.is_empty() && !p.is_input {
                format!("&{r}")
            } else {
                r
            });
        }
    }
    v
}

/// Whether whole steps of `lay` go through one flattened function per raw call
/// (`fused_step_text`): vslice on SSE/AVX2/AVX-512, or hslice there with 8- to 64-bit words
/// (whose transposition is the vslice one plus a bit permutation per register,
/// `runtime::transpose::h_routines_simd` and `h_routines_simd_small`); parameters of words; one call's non-const
/// registers (inputs and outputs, every copy) at most twice the register file, so that the
/// compiler keeps them in registers rather than in a stack array nobody wipes. With interleaved
/// copies (k > 1) the copies' inputs together must also leave registers free: ChaCha20's
/// 2 x 16 state rows on AVX-512 (32 registers) spilled 182 times in the fused step and lost 5%
/// (Clyde's 2 x 12 on AVX2 2%), while 2 x 12 on AVX-512 (Xoodoo, Gimli) gained 3-5% (docs/history.md,
/// "Stop 27").
fn fused_step(lay: &PackedLayout) -> bool {
    let nregs = match lay.arch {
        Arch::Avx512 => 32,
        Arch::Sse | Arch::Avx2 => 16,
        _ => return false,
    };
    let layout_ok = match lay.slicing {
        Slicing::V => true,
        Slicing::H => {
            matches!(lay.atom_bits, 8 | 16 | 32 | 64)
                && lay.params.iter().all(|p| p.word_bits == lay.atom_bits)
        }
        Slicing::B => false,
    };
    let atoms = |inputs: bool| -> usize {
        lay.params
            .iter()
            .filter(|p| !p.is_const && p.is_input == inputs)
            .map(|p| p.atoms)
            .sum::<usize>()
            * lay.interleave
    };
    let (ins, outs) = (atoms(true), atoms(false));
    layout_ok
        && lay.params.iter().all(|p| !p.bit_string)
        && ins + outs <= 2 * nregs
        && (lay.interleave == 1 || ins < nregs)
}

/// `<name>_step([consts,] params at the call's first instance)`: the instances of one raw call
/// (every copy's, copy c at c x the copy's step) transposed in, run and transposed out,
/// `flatten`ed so that the transpositions and the raw entry are one body and the sliced
/// registers never go through memory (1-5% of the packed entry on the fast vsliced kernels,
/// more where the kernel reloaded many rows). A whole step of the packed loop calls it once per
/// raw call of the step (hslice: `calls_per_step`). Its arrays are wiped only under
/// NAKIRI_SCRUB_STACK (a wipe would force them to memory), like the raw entry's spills.
fn fused_step_text(lay: &PackedLayout, name: &str) -> String {
    let e = &lay.entry;
    let a = lay.arch.name();
    let k = lay.interleave;
    let cstep = lay.copy_instances() * lay.calls_per_step();
    let attr = tp::target_attr(lay.arch);
    let mut v: Vec<String> = Vec::new();
    if lay.has_consts() {
        v.push(format!("{e}__consts *nkp_cs"));
    }
    v.extend(proto_args(lay, |p| !p.is_const, "nkp_p_"));
    let mut c = format!(
        "static __attribute__((flatten)) {attr} void {name}_step({}) {{\n",
        v.join(", ")
    );
    for p in lay.params.iter().filter(|p| !p.is_const) {
        c.push_str(&format!(
            "    {} nkp_r_{}[{k}]{};\n",
            p.reg_type,
            p.c_name,
            dims(&p.c_dims)
        ));
    }
    // hslice: the vslice network, then the slot bit permutation on every register (in) / its
    // inverse before the network (out), as nkp_H_in/out do per call
    let (m, h) = (lay.atom_bits, lay.slicing == Slicing::H);
    // The per-register slot permutation of the hslice routines (runtime::transpose).
    let hp = if m >= 32 { "hsk" } else { "h8b" };
    let slot_perm = |p: &PackedParam, copy: usize, dir: &str| -> String {
        format!(
            "    for (size_t nkp_a = 0; nkp_a < {w}; nkp_a++) ((NKP_VT_{a} *)&nkp_r_{n}[{copy}])[nkp_a] = nkp_{hp}_{dir}_{a}_m{m}(((NKP_VT_{a} *)&nkp_r_{n}[{copy}])[nkp_a]);\n",
            w = p.words,
            n = p.c_name
        )
    };
    for p in lay.params.iter().filter(|p| p.is_input && !p.is_const) {
        for copy in 0..k {
            c.push_str(&format!(
                "    nkp_V_in_u{}_{a}(nkp_p_{} + {}, {}, &nkp_r_{}[{copy}]);\n",
                p.word_bits,
                p.c_name,
                copy * cstep * p.elems,
                p.words,
                p.c_name
            ));
            if h {
                c.push_str(&slot_perm(p, copy, "fwd"));
            }
        }
    }
    let raw_args = raw_call_args(
        lay,
        &|pi| format!("nkp_r_{}", lay.params[pi].c_name),
        |copy| copy.to_string(),
    );
    c.push_str(&format!("    {}({});\n", lay.raw_fn, raw_args.join(", ")));
    for p in lay.params.iter().filter(|p| !p.is_input) {
        for copy in 0..k {
            if h {
                c.push_str(&slot_perm(p, copy, "bwd"));
            }
            c.push_str(&format!(
                "    nkp_V_out_u{}_{a}(&nkp_r_{}[{copy}], {}, nkp_p_{} + {});\n",
                p.word_bits,
                p.c_name,
                p.words,
                p.c_name,
                copy * cstep * p.elems
            ));
        }
    }
    c.push_str("#ifdef NAKIRI_SCRUB_STACK\n");
    for p in lay.params.iter().filter(|p| !p.is_const) {
        c.push_str(&format!(
            "    nkp_wipe(nkp_r_{0}, sizeof nkp_r_{0});\n",
            p.c_name
        ));
    }
    c.push_str("#endif\n}\n");
    c
}

/// Broadcasts one plain instance at `src` into every slot of p's registers `regs` (no
/// transposition: every instance is equal).
fn bcast_call(lay: &PackedLayout, p: &PackedParam, src: &str, regs: &str) -> String {
    let ub = if p.bit_string { 8 } else { p.word_bits };
    let ind = "    ";
    match lay.slicing {
        Slicing::B => format!(
            "{ind}nkp_bcast_B_u{ub}({src}, {}, sizeof({}), {regs});\n",
            p.atoms, p.reg_type
        ),
        Slicing::V if lay.arch == Arch::Std => {
            // One instance per register: the transposition of one instance.
            format!("{ind}{{\n{}{ind}}}\n", in_call(lay, p, src, "1", regs))
        }
        Slicing::V => format!(
            "{ind}nkp_bcast_V_u{ub}({src}, {}, sizeof({}), {regs});\n",
            p.words, p.reg_type
        ),
        Slicing::H => format!(
            "{ind}nkp_bcast_H_u{ub}({src}, {}, {}, {}, sizeof({}), {regs});\n",
            p.words,
            p.word_bits,
            lay.arch.hslice_lane_bits(),
            p.reg_type
        ),
    }
}

/// Transposes `cnt` instances at `src` (elements of p.elem_type) into the registers `regs`. For
/// native words, B and H, `cnt` must be the full chunk (the caller pads); bit strings in `std`
/// vslice are converted to words here (zero padding included).
fn in_call(lay: &PackedLayout, p: &PackedParam, src: &str, cnt: &str, regs: &str) -> String {
    let a = lay.arch.name();
    let inst = lay.copy_instances();
    let m = p.word_bits;
    let ind = "                ";
    match lay.slicing {
        Slicing::B => {
            let ub = if p.bit_string { 8 } else { m };
            format!(
                "{ind}nkp_B_in_u{ub}_{a}({src}, {}, {}, {regs});\n",
                p.elems, p.atoms
            )
        }
        Slicing::H => {
            let ub = if p.bit_string { 8 } else { m };
            format!(
                "{ind}nkp_H_in_u{ub}_{a}_m{m}({src}, {}, {}, {regs});\n",
                p.elems, p.words
            )
        }
        _ if p.bit_string => {
            let w = p.words;
            let mut s = format!("{ind}uint64_t nkp_w[{}];\n", inst * w);
            s.push_str(&format!("{ind}memset(nkp_w, 0, sizeof nkp_w);\n"));
            s.push_str(&format!(
                "{ind}nkp_bits_to_words({src}, {}, {w}, {m}, {cnt}, nkp_w);\n",
                p.elems
            ));
            s.push_str(&format!(
                "{ind}nkp_V_in_u64_std_d{}(nkp_w, {w}, {regs});\n",
                tp::std_bits(lay.atom_bits)
            ));
            s.push_str(&format!("{ind}nkp_wipe(nkp_w, sizeof nkp_w);\n"));
            s
        }
        Slicing::V if lay.arch == Arch::Std => {
            format!(
                "{ind}nkp_V_in_u{m}_std_d{}({src}, {}, {regs});\n",
                tp::std_bits(lay.atom_bits),
                p.words
            )
        }
        _ => format!("{ind}nkp_V_in_u{m}_{a}({src}, {}, {regs});\n", p.words),
    }
}

/// Transposes the registers `regs` back into plain instances at `dst`: all of them for native
/// words, B and H (`cnt` unused), the first `cnt` for bit strings in `std` vslice.
fn out_call(lay: &PackedLayout, p: &PackedParam, dst: &str, cnt: &str, regs: &str) -> String {
    let a = lay.arch.name();
    let inst = lay.copy_instances();
    let m = p.word_bits;
    let ind = "                    ";
    match lay.slicing {
        Slicing::B => {
            let ub = if p.bit_string { 8 } else { m };
            format!(
                "{ind}nkp_B_out_u{ub}_{a}({regs}, {}, {}, {dst});\n",
                p.elems, p.atoms
            )
        }
        Slicing::H => {
            let ub = if p.bit_string { 8 } else { m };
            format!(
                "{ind}nkp_H_out_u{ub}_{a}_m{m}({regs}, {}, {}, {dst});\n",
                p.elems, p.words
            )
        }
        _ if p.bit_string => {
            let w = p.words;
            let mut s = format!("{ind}uint64_t nkp_w[{}];\n", inst * w);
            s.push_str(&format!(
                "{ind}nkp_V_out_u64_std_d{}({regs}, {w}, nkp_w);\n",
                tp::std_bits(lay.atom_bits)
            ));
            s.push_str(&format!(
                "{ind}nkp_words_to_bits(nkp_w, {w}, {m}, {cnt}, {}, {dst});\n",
                p.elems
            ));
            s.push_str(&format!("{ind}nkp_wipe(nkp_w, sizeof nkp_w);\n"));
            s
        }
        Slicing::V if lay.arch == Arch::Std => {
            format!(
                "{ind}nkp_V_out_u{m}_std_d{}({regs}, {}, {dst});\n",
                tp::std_bits(lay.atom_bits),
                p.words
            )
        }
        _ => format!("{ind}nkp_V_out_u{m}_{a}({regs}, {}, {dst});\n", p.words),
    }
}
