//! Usuba0: the flat, monomorphic, three-address IR every back end consumes.
//!
//! Produced by `sema` (which elaborates the typed program: loops unrolled, tuples,
//! tables, perms, node arrays and `:=` gone), transformed by `opt` (which may keep loops again
//! as [`Instr::Loop`]), printed by `codegen`.
//!
//! # Model
//! A [`Program`] is a list of [`Node`]s in definition order; the **last** one is the entry.
//! Calls only go to earlier nodes (no recursion). Every node has its own arena of *atoms*
//! ([`Var`]): one atom is one machine register's worth of one word of **one instance**:
//! - `Slicing::V` (vslice): an atom is an m-bit word, one lane per instance.
//! - `Slicing::H` (hslice): an atom is an m-bit word whose bits are spread over m packed
//!   elements of the register (element j holds bit j, MSB-first, of several instances).
//! - `Slicing::B` (bitslice): every atom has `bits == 1`; bit k of the register belongs to
//!   instance k. All arithmetic, shifts and shuffles were already lowered to logic.
//!
//! **Semantics** (what `interp` implements and every back end must preserve): each atom holds
//! an unsigned integer of `bits` bits for a single instance; bit 0 is the *most significant*
//! bit (Usuba's convention, used by `Shuffle` and `Bitmask`). Ops are defined on those values.
//!
//! # Invariants (checked by [`verify`])
//! - every atom is defined exactly once, either as a node input or by one instruction;
//! - instructions only read atoms defined earlier (inputs, or earlier instructions);
//! - operand widths agree with the op (see [`Op`]); shift amounts are `< bits`;
//! - `Call` argument/result atoms match the callee's flattened inputs/outputs in count and width;
//! - in a `Slicing::B` program every atom has `bits == 1` and only logic ops, `Copy`, `Const`,
//!   `Call` and `Loop` appear;
//! - a `Loop` has `count >= 1`, one argument per callee input and one result per callee
//!   output with matching widths, `count` atoms in every per-iteration list, and exactly one
//!   result per state.

pub mod parse;
pub mod print;
pub mod truth;
pub mod verify;

pub use verify::verify;

use std::fmt;

/// How instances are laid out in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slicing {
    V,
    H,
    B,
}

impl fmt::Display for Slicing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slicing::V => "V",
            Slicing::H => "H",
            Slicing::B => "B",
        })
    }
}

/// Index of an atom inside its node's `vars` arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Index of a node inside [`Program::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// One atom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// Human-readable, unique within the node, a valid C identifier (e.g. `x__3`, `tmp12`).
    pub name: AtomName,
    /// Word size m of the value (1 in bitslice).
    pub bits: u32,
}

/// An atom's name: a string kept inline up to [`AtomName::INLINE`] bytes (nearly every name:
/// `_t123`, `x__3__b15`), on the heap beyond. A bitsliced program has hundreds of thousands of
/// atoms; a `String` each was one allocation each. Reads as a `&str` (`Deref`); compares and
/// hashes by its bytes (no UTF-8 check: a set of names is asked with an `AtomName`, not a `str`).
#[derive(Clone)]
pub struct AtomName(NameRepr);

#[derive(Clone)]
enum NameRepr {
    Inline {
        len: u8,
        buf: [u8; AtomName::INLINE],
    },
    Heap(Box<str>),
}

impl AtomName {
    /// The longest name stored without an allocation (the type is as big as a `String`).
    pub const INLINE: usize = 22;

    fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            NameRepr::Inline { len, buf } => &buf[..*len as usize],
            NameRepr::Heap(s) => s.as_bytes(),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes are a prefix of a `&str` copied in `from`, so valid UTF-8.
            NameRepr::Inline { len, buf } => {
                std::str::from_utf8(&buf[..*len as usize]).expect("inline name is UTF-8")
            }
            NameRepr::Heap(s) => s,
        }
    }

    /// The name `prefix` followed by the decimal digits of `k` (`_t42`), without a `format!`.
    pub fn numbered(prefix: &str, k: usize) -> AtomName {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut k = k;
        loop {
            i -= 1;
            digits[i] = b'0' + (k % 10) as u8;
            k /= 10;
            if k == 0 {
                break;
            }
        }
        let digits = &digits[i..];
        let len = prefix.len() + digits.len();
        if len > AtomName::INLINE {
            let mut s = String::with_capacity(len);
            s.push_str(prefix);
            s.push_str(std::str::from_utf8(digits).expect("ASCII digits"));
            return AtomName::from(s);
        }
        let mut buf = [0u8; AtomName::INLINE];
        buf[..prefix.len()].copy_from_slice(prefix.as_bytes());
        buf[prefix.len()..len].copy_from_slice(digits);
        AtomName(NameRepr::Inline {
            len: len as u8,
            buf,
        })
    }
}

impl From<&str> for AtomName {
    fn from(s: &str) -> AtomName {
        if s.len() <= AtomName::INLINE {
            let mut buf = [0u8; AtomName::INLINE];
            buf[..s.len()].copy_from_slice(s.as_bytes());
            AtomName(NameRepr::Inline {
                len: s.len() as u8,
                buf,
            })
        } else {
            AtomName(NameRepr::Heap(s.into()))
        }
    }
}

impl From<String> for AtomName {
    fn from(s: String) -> AtomName {
        if s.len() <= AtomName::INLINE {
            AtomName::from(s.as_str())
        } else {
            AtomName(NameRepr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<&String> for AtomName {
    fn from(s: &String) -> AtomName {
        AtomName::from(s.as_str())
    }
}

impl From<AtomName> for String {
    fn from(n: AtomName) -> String {
        n.as_str().to_string()
    }
}

impl std::ops::Deref for AtomName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for AtomName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for AtomName {
    fn eq(&self, other: &AtomName) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for AtomName {}

impl PartialEq<str> for AtomName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for AtomName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for AtomName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::hash::Hash for AtomName {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write(self.as_bytes());
        h.write_u8(0xff);
    }
}

impl PartialOrd for AtomName {
    fn partial_cmp(&self, other: &AtomName) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for AtomName {
    fn cmp(&self, other: &AtomName) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl fmt::Display for AtomName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for AtomName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A source-level parameter of a node, kept for the C signature and the packed API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Source name (a valid C identifier).
    pub name: String,
    /// Shape of the C parameter, outermost first: `[]` = scalar. In bitslice a word of m > 1 bits
    /// adds a trailing dimension `m` (`u32x16` → `[16, 32]`, `b64` → `[64]`, `b1` → `[]`).
    pub c_dims: Vec<usize>,
    /// Word size of the *source* words (32 for `u32x16`, also in bitslice), used by the packed API.
    pub word_bits: u32,
    /// The atoms, flattened row-major over `c_dims` (so bits of one bitsliced word are
    /// consecutive, MSB first).
    pub atoms: Vec<VarId>,
    /// `const` parameter: same value for every instance.
    pub is_const: bool,
}

/// Operations producing exactly one atom. Operands are atoms of the same node.
/// Unless stated otherwise operands and result have the same `bits`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// The constant value (fits in `bits`), identical for every instance.
    Const(u64),
    Copy(VarId),
    Not(VarId),
    And(VarId, VarId),
    Or(VarId, VarId),
    Xor(VarId, VarId),
    /// `!a & b`
    Andn(VarId, VarId),
    /// Modulo 2^bits (V only after normalisation).
    Add(VarId, VarId),
    Sub(VarId, VarId),
    Mul(VarId, VarId),
    /// Towards bit 0 (the MSB): value << k. `k < bits`.
    Shl(VarId, u32),
    /// value >> k (logical).
    Shr(VarId, u32),
    /// value >> k, replicating the top bit.
    Sar(VarId, u32),
    Rotl(VarId, u32),
    Rotr(VarId, u32),
    /// Result bit j = operand bit `perm[j]` (bit 0 = MSB); `perm.len() == bits`.
    Shuffle(VarId, Vec<u32>),
    /// All ones if bit k (bit 0 = MSB) of the operand is set, else zero.
    Bitmask(VarId, u32),
    /// Result has `2 * bits(a)` bits: `a` in the high half, `b` in the low half (V only).
    Pack(VarId, VarId),
    /// Any boolean function of three operands, bit by bit: result bit = bit
    /// `4*a + 2*b + c` of `imm` (AVX-512's `vpternlog` immediate). Made by `opt::ternlog`
    /// only for targets that have it; the code generator also expands it elsewhere.
    Ternlog(VarId, VarId, VarId, u8),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    Assign {
        dst: VarId,
        op: Op,
    },
    /// `dsts` = callee's flattened outputs, `args` = callee's flattened inputs.
    Call {
        dsts: Vec<VarId>,
        callee: NodeId,
        args: Vec<VarId>,
    },
    /// `count` calls of `callee` in sequence, kept as a loop (made by `opt::reroll`; the C is a
    /// `for` loop). There is one [`LoopArg`] per flattened callee input and one [`LoopResult`]
    /// per flattened callee output. `state[j] = (init, last)`: state `j` starts as `init`,
    /// each iteration's `LoopResult::State { state: j, .. }` output becomes its next value, and after the
    /// last iteration it is the atom `last`. Semantics, for `i` in `0..count`:
    /// `outs = callee(args at iteration i)`; then every state and `Each` result is updated.
    Loop {
        callee: NodeId,
        count: u32,
        // Boxed slices (16 bytes each, not a `Vec`'s 24): `Instr` is 64 bytes, not 80.
        state: Box<[(VarId, VarId)]>,
        args: Box<[LoopArg]>,
        results: Box<[LoopResult]>,
    },
}

/// One callee input of an [`Instr::Loop`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopArg {
    /// The current value of loop state `j`.
    State(u32),
    /// The same atom in every iteration.
    Same(VarId),
    /// Atom `i` of the list in iteration `i` (`count` atoms).
    Each(Vec<VarId>),
}

/// One callee output of an [`Instr::Loop`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopResult {
    /// The next value of loop state `state` (exactly one result per state). `each` is empty, or
    /// holds `count - 1` atoms: the state after each iteration but the last (whose value is
    /// the state's final atom) — for a chain whose every step is also read outside the loop,
    /// like the round keys of a key schedule.
    State { state: u32, each: Vec<VarId> },
    /// Defines atom `i` of the list in iteration `i` (`count` atoms).
    Each(Vec<VarId>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Unique C-safe name (monomorphised instances get suffixes, e.g. `sbox__B1`).
    pub name: String,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    pub vars: Vec<Var>,
    pub body: Vec<Instr>,
    /// Hint from `_inline` (true) / `_no_inline` (false) / none.
    pub inline: Option<bool>,
    /// Set by `opt::sched_pairs`: the body (of a kept loop) runs its long chains two at a time,
    /// and the explicit spill plan may keep loop-carried values in memory across iterations
    /// (`target::spill::Home`; measured faster only in this order). Printed as `lockstep`.
    pub lockstep: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub slicing: Slicing,
    pub nodes: Vec<Node>,
    /// Interleaving factor of the entry (`opt::interleave`): its parameters are this many
    /// copies, each on its own instances (1: not interleaved).
    pub interleave: u32,
}

impl Program {
    /// Keeps the nodes at the old indices `order`, in that order (each at most once), and
    /// renumbers every call and loop to match. Every callee of a kept node must be kept.
    pub fn reorder_nodes(&mut self, order: &[usize]) {
        let mut remap = vec![None; self.nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = Some(NodeId(new as u32));
        }
        let mut all: Vec<Option<Node>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        for &old in order {
            let mut n = all[old].take().expect("each node placed once");
            for ins in &mut n.body {
                if let Some(c) = ins.callee() {
                    ins.set_callee(remap[c.0 as usize].expect("callee kept"));
                }
            }
            self.nodes.push(n);
        }
    }

    /// [`Program::reorder_nodes`] to `order` (old indices, each callee before its callers, the
    /// entry last), leaving out the nodes the entry does not reach (callees no call or loop
    /// runs any more).
    pub fn reorder_reachable(&mut self, mut order: Vec<usize>) {
        let mut used = vec![false; self.nodes.len()];
        if let Some(&entry) = order.last() {
            used[entry] = true;
        }
        for &i in order.iter().rev() {
            if used[i] {
                for ins in &self.nodes[i].body {
                    if let Some(c) = ins.callee() {
                        used[c.0 as usize] = true;
                    }
                }
            }
        }
        order.retain(|&i| used[i]);
        self.reorder_nodes(&order);
    }

    /// Per node, whether it is the body of a kept loop (`Instr::Loop`).
    pub fn loop_bodies(&self) -> Vec<bool> {
        let mut b = vec![false; self.nodes.len()];
        for ins in self.nodes.iter().flat_map(|n| &n.body) {
            if let Instr::Loop { callee, .. } = ins {
                b[callee.0 as usize] = true;
            }
        }
        b
    }

    /// Per node, where it is called when its only caller is one kept loop (no other loop, no
    /// call): (calling node, instruction index). The nodes whose loop may lay out their
    /// inputs and outputs for them (`target::spill` homes, `codegen` memory-form loops).
    pub fn sole_loop_sites(&self) -> Vec<Option<(usize, usize)>> {
        let mut callers = vec![0usize; self.nodes.len()];
        let mut site = vec![None; self.nodes.len()];
        for (ni, node) in self.nodes.iter().enumerate() {
            for (k, ins) in node.body.iter().enumerate() {
                match ins {
                    Instr::Loop { callee, .. } => {
                        callers[callee.0 as usize] += 1;
                        site[callee.0 as usize] = Some((ni, k));
                    }
                    Instr::Call { callee, .. } => callers[callee.0 as usize] += 2,
                    Instr::Assign { .. } => {}
                }
            }
        }
        site.into_iter()
            .zip(callers)
            .map(|(s, n)| s.filter(|_| n == 1))
            .collect()
    }

    /// [`Program::sole_loop_sites`] restricted to loops whose state has more atoms than
    /// `regs`: the bodies `codegen::memloop` may keep in memory (and that `opt::sched_bits`
    /// schedules for it).
    pub fn sole_big_state_loop_sites(&self, regs: usize) -> Vec<Option<(usize, usize)>> {
        self.sole_loop_sites()
            .into_iter()
            .map(|s| s.filter(|&(ni, k)| matches!(&self.nodes[ni].body[k], Instr::Loop { state, .. } if state.len() > regs)))
            .collect()
    }

    pub fn entry(&self) -> &Node {
        self.nodes.last().expect("program has an entry node")
    }
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }
}

impl Node {
    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id.0 as usize]
    }
    pub fn bits(&self, id: VarId) -> u32 {
        self.vars[id.0 as usize].bits
    }
    pub fn flat_inputs(&self) -> Vec<VarId> {
        self.inputs
            .iter()
            .flat_map(|p| p.atoms.iter().copied())
            .collect()
    }
    pub fn flat_outputs(&self) -> Vec<VarId> {
        self.outputs
            .iter()
            .flat_map(|p| p.atoms.iter().copied())
            .collect()
    }
    /// Adds a fresh atom and returns its id.
    pub fn new_var(&mut self, name: impl Into<AtomName>, bits: u32) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Var {
            name: name.into(),
            bits,
        });
        id
    }
}

impl Op {
    /// Atoms read by this op.
    pub fn operands(&self) -> Vec<VarId> {
        let (a, n) = self.operand_array();
        a[..n].to_vec()
    }
    /// [`Op::operands`] without allocating: the operands are the first `n` of the array.
    pub fn operand_array(&self) -> ([VarId; 3], usize) {
        use Op::*;
        let z = VarId(0);
        match self {
            Const(_) => ([z; 3], 0),
            Copy(a)
            | Not(a)
            | Shl(a, _)
            | Shr(a, _)
            | Sar(a, _)
            | Rotl(a, _)
            | Rotr(a, _)
            | Shuffle(a, _)
            | Bitmask(a, _) => ([*a, z, z], 1),
            And(a, b)
            | Or(a, b)
            | Xor(a, b)
            | Andn(a, b)
            | Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | Pack(a, b) => ([*a, *b, z], 2),
            Ternlog(a, b, c, _) => ([*a, *b, *c], 3),
        }
    }
    /// Rewrites every operand through `f`.
    pub fn map_operands(&mut self, mut f: impl FnMut(VarId) -> VarId) {
        use Op::*;
        match self {
            Const(_) => {}
            Copy(a)
            | Not(a)
            | Shl(a, _)
            | Shr(a, _)
            | Sar(a, _)
            | Rotl(a, _)
            | Rotr(a, _)
            | Shuffle(a, _)
            | Bitmask(a, _) => *a = f(*a),
            And(a, b)
            | Or(a, b)
            | Xor(a, b)
            | Andn(a, b)
            | Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | Pack(a, b) => {
                *a = f(*a);
                *b = f(*b);
            }
            Ternlog(a, b, c, _) => {
                *a = f(*a);
                *b = f(*b);
                *c = f(*c);
            }
        }
    }
}

/// The atoms one instruction reads or writes ([`Instr::uses`], [`Instr::defs`]): up to three
/// inline (every `Assign`: one result, at most three operands), more on the heap (calls and
/// loops). Reads as a slice; iterates by value when owned. The passes ask every instruction
/// for these many times (the schedulers' estimates, once per candidate order); a `Vec` each
/// was an allocation per question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atoms {
    Inline { len: u8, a: [VarId; 3] },
    Heap(Vec<VarId>),
}

impl std::ops::Deref for Atoms {
    type Target = [VarId];
    fn deref(&self) -> &[VarId] {
        match self {
            Atoms::Inline { len, a } => &a[..*len as usize],
            Atoms::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Atoms {
    fn deref_mut(&mut self) -> &mut [VarId] {
        match self {
            Atoms::Inline { len, a } => &mut a[..*len as usize],
            Atoms::Heap(v) => v,
        }
    }
}

impl Atoms {
    /// Removes consecutive repeats, as `Vec::dedup`.
    pub fn dedup(&mut self) {
        match self {
            Atoms::Inline { len, a } => {
                let mut k = 0;
                for i in 0..*len as usize {
                    if k == 0 || a[k - 1] != a[i] {
                        a[k] = a[i];
                        k += 1;
                    }
                }
                *len = k as u8;
            }
            Atoms::Heap(v) => v.dedup(),
        }
    }
    /// The atoms as a `Vec` (no copy for the heap form).
    pub fn into_vec(self) -> Vec<VarId> {
        match self {
            Atoms::Inline { len, a } => a[..len as usize].to_vec(),
            Atoms::Heap(v) => v,
        }
    }
}

/// By-value iterator over [`Atoms`].
pub struct AtomsIter {
    atoms: Atoms,
    front: usize,
    back: usize,
}

impl Iterator for AtomsIter {
    type Item = VarId;
    fn next(&mut self) -> Option<VarId> {
        if self.front == self.back {
            return None;
        }
        self.front += 1;
        Some(self.atoms[self.front - 1])
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for AtomsIter {
    fn next_back(&mut self) -> Option<VarId> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        Some(self.atoms[self.back])
    }
}

impl ExactSizeIterator for AtomsIter {}

impl IntoIterator for Atoms {
    type Item = VarId;
    type IntoIter = AtomsIter;
    fn into_iter(self) -> AtomsIter {
        let back = self.len();
        AtomsIter {
            atoms: self,
            front: 0,
            back,
        }
    }
}

impl<'a> IntoIterator for &'a Atoms {
    type Item = &'a VarId;
    type IntoIter = std::slice::Iter<'a, VarId>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Instr {
    /// `f` of each atom [`Instr::uses`] lists, in its order, without allocating.
    pub fn for_each_use(&self, mut f: impl FnMut(VarId)) {
        match self {
            Instr::Assign { op, .. } => {
                let (a, n) = op.operand_array();
                a[..n].iter().for_each(|&v| f(v));
            }
            Instr::Call { args, .. } => args.iter().for_each(|&v| f(v)),
            Instr::Loop { state, args, .. } => {
                state.iter().for_each(|s| f(s.0));
                for a in args {
                    match a {
                        LoopArg::State(_) => {}
                        LoopArg::Same(x) => f(*x),
                        LoopArg::Each(xs) => xs.iter().for_each(|&v| f(v)),
                    }
                }
            }
        }
    }
    /// `f` of each atom [`Instr::defs`] lists, in its order, without allocating.
    pub fn for_each_def(&self, mut f: impl FnMut(VarId)) {
        match self {
            Instr::Assign { dst, .. } => f(*dst),
            Instr::Call { dsts, .. } => dsts.iter().for_each(|&v| f(v)),
            Instr::Loop { state, results, .. } => {
                state.iter().for_each(|s| f(s.1));
                for r in results {
                    match r {
                        LoopResult::Each(xs) | LoopResult::State { each: xs, .. } => {
                            xs.iter().for_each(|&v| f(v))
                        }
                    }
                }
            }
        }
    }
    /// [`Instr::uses`] into `buf` (cleared first): a loop over many instructions reuses one
    /// buffer instead of allocating a list per instruction.
    pub fn uses_into(&self, buf: &mut Vec<VarId>) {
        buf.clear();
        self.for_each_use(|u| buf.push(u));
    }
    /// [`Instr::defs`] into `buf` (cleared first), as [`Instr::uses_into`].
    pub fn defs_into(&self, buf: &mut Vec<VarId>) {
        buf.clear();
        self.for_each_def(|d| buf.push(d));
    }
    /// The atoms the instruction writes, in order (an `Assign`'s without allocating).
    pub fn defs(&self) -> Atoms {
        match self {
            Instr::Assign { dst, .. } => Atoms::Inline {
                len: 1,
                a: [*dst, VarId(0), VarId(0)],
            },
            Instr::Call { dsts, .. } => Atoms::Heap(dsts.clone()), // one allocation for hundreds
            Instr::Loop { .. } => {
                let mut v = Vec::new();
                self.for_each_def(|d| v.push(d));
                Atoms::Heap(v)
            }
        }
    }
    /// The atoms the instruction reads, in order (an `Assign`'s without allocating).
    pub fn uses(&self) -> Atoms {
        match self {
            Instr::Assign { op, .. } => {
                let (a, n) = op.operand_array();
                Atoms::Inline { len: n as u8, a }
            }
            Instr::Call { args, .. } => Atoms::Heap(args.clone()),
            Instr::Loop { .. } => {
                let mut v = Vec::new();
                self.for_each_use(|u| v.push(u));
                Atoms::Heap(v)
            }
        }
    }
    /// The node this instruction calls, if any.
    pub fn callee(&self) -> Option<NodeId> {
        match self {
            Instr::Assign { .. } => None,
            Instr::Call { callee, .. } | Instr::Loop { callee, .. } => Some(*callee),
        }
    }
    /// Rewrites the callee (when nodes are renumbered).
    pub fn set_callee(&mut self, id: NodeId) {
        if let Instr::Call { callee, .. } | Instr::Loop { callee, .. } = self {
            *callee = id;
        }
    }
    /// Rewrites every atom read through `f`.
    pub fn map_uses(&mut self, mut f: impl FnMut(VarId) -> VarId) {
        match self {
            Instr::Assign { op, .. } => op.map_operands(f),
            Instr::Call { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            Instr::Loop { state, args, .. } => {
                for s in state.iter_mut() {
                    s.0 = f(s.0);
                }
                for a in args {
                    match a {
                        LoopArg::State(_) => {}
                        LoopArg::Same(x) => *x = f(*x),
                        LoopArg::Each(xs) => xs.iter_mut().for_each(|x| *x = f(*x)),
                    }
                }
            }
        }
    }
    /// Rewrites every atom defined through `f`.
    pub fn map_defs(&mut self, mut f: impl FnMut(VarId) -> VarId) {
        match self {
            Instr::Assign { dst, .. } => *dst = f(*dst),
            Instr::Call { dsts, .. } => dsts.iter_mut().for_each(|d| *d = f(*d)),
            Instr::Loop { state, results, .. } => {
                for s in state.iter_mut() {
                    s.1 = f(s.1);
                }
                for r in results {
                    match r {
                        LoopResult::Each(xs) | LoopResult::State { each: xs, .. } => {
                            xs.iter_mut().for_each(|x| *x = f(*x))
                        }
                    }
                }
            }
        }
    }
}

/// Where sema unrolled a `forall`: for each iteration, the positions in the node's body (as
/// sema produced it) of the instructions that iteration made, in the order they were made
/// (the same for every iteration, unlike their order in the body). Used by `opt::outline`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopHint {
    pub iterations: Vec<Vec<usize>>,
}

/// Loop hints per node name, inner loops before the loops around them.
pub type LoopHints = std::collections::BTreeMap<String, Vec<LoopHint>>;

/// The value of `Op::Ternlog(_, _, _, imm)` on operand values `a`, `b`, `c` (all 64 bits).
pub fn ternlog(imm: u8, a: u64, b: u64, c: u64) -> u64 {
    let mut r = 0;
    for i in 0..8 {
        if imm >> i & 1 == 1 {
            let pick = |bit: u32, x: u64| if i >> bit & 1 == 1 { x } else { !x };
            r |= pick(2, a) & pick(1, b) & pick(0, c);
        }
    }
    r
}

/// Mask of the low `bits` bits.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

// `Instr` stays 64 bytes (80 while a `Loop`'s lists were `Vec`s; boxed slices are 16 bytes
// each): a bitsliced program holds hundreds of thousands of instructions.
const _: () = assert!(std::mem::size_of::<Instr>() == 64);

#[cfg(test)]
mod tests {
    use super::AtomName;
    use crate::fxhash::FxHashSet;

    #[test]
    fn atom_names_read_back_inline_and_on_the_heap() {
        let short = "x__3__b15";
        let edge = "a".repeat(AtomName::INLINE);
        let long = "a".repeat(AtomName::INLINE + 1);
        for s in [short, "", edge.as_str(), long.as_str(), "x_q\u{e9}"] {
            assert_eq!(AtomName::from(s).as_str(), s);
            assert_eq!(&*AtomName::from(s.to_string()), s);
            assert_eq!(String::from(AtomName::from(s)), s);
            assert_eq!(format!("{}", AtomName::from(s)), s);
            assert_eq!(format!("{:?}", AtomName::from(s)), format!("{:?}", s));
        }
        // One name, however made, is one set element.
        let mut set = FxHashSet::default();
        set.insert(AtomName::from(long.as_str()));
        assert!(set.contains(&AtomName::from(long.clone())));
        assert!(!set.contains(&AtomName::from(edge.as_str())));
        // Ordered as the strings are.
        assert_eq!(
            AtomName::from("_t9").cmp(&AtomName::from("_t10".to_string())),
            "_t9".cmp("_t10")
        );
    }

    #[test]
    fn numbered_names_are_the_formatted_ones() {
        for k in [0usize, 1, 9, 10, 12345, usize::MAX] {
            assert_eq!(
                AtomName::numbered("_t", k),
                AtomName::from(format!("_t{}", k))
            );
            assert_eq!(AtomName::numbered("_t", k).as_str(), format!("_t{}", k));
        }
        let p = "p".repeat(AtomName::INLINE - 1);
        assert_eq!(AtomName::numbered(&p, 7).as_str(), format!("{}7", p));
        assert_eq!(AtomName::numbered(&p, 42).as_str(), format!("{}42", p));
    }
}
