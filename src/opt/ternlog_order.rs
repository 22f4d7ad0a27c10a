//! Operand order of `ternlog`s, for the register allocator (`--disable ternlog-order`).
//!
//! `vpternlog` is destructive: its result overwrites its first operand's register. When that
//! operand is still read later, the C compiler first copies it to a new register (a
//! `vmovdqa64 %zmmX,%zmmY` before the `vpternlogq`). Where the first operand lives on but
//! the second or third is read for the last time, this pass moves the dying one first and
//! permutes the immediate to match, so the compiler can overwrite it instead. Bitsliced AES
//! on AVX-512 had 7088 register copies per call, 3457 of them right before a `vpternlogq`;
//! reordering 1637 ternlogs removed 2066 copies and made the call 1.045x faster (README "The
//! operand order of ternlogs").
//!
//! Requires: verified IR, in its final order (it runs after the schedulers: what dies where
//! depends on the order). Guarantees: the same instructions in the same order, each ternlog
//! computing the same value (`ternlog a b c imm` = `ternlog b a c imm'` with `imm'` the truth
//! table over the permuted operands). A value "dies" at its last reader in the body, if it is
//! not an output of the node and not an input (a node's inputs are read from memory in the
//! C: first or not, they cost one load).
//!
//! Stats: `reordered` (ternlogs whose operands were permuted).
//!
//! **On AMD (`--uarch amd`), in vslice and hslice, the latest operand goes first.** On Zen 4 a
//! `vpternlogq` takes one cycle from its first operand (the register it overwrites) and two
//! from the other two (chains of 4: 1.00 against 1.87 core cycles per instruction, zmm and ymm
//! alike; `vpxorq` and `vpandnq` take one from either). Latency-bound code (one vsliced block
//! per register: Ascon's 12 rounds are one chain) gains a cycle wherever the operand computed
//! last goes first. The pass walks the body in order with the earliest cycle each value can be
//! ready ([`ready_after`]: 1 for logic, shifts and additions, 2 for rotations and byte
//! shuffles, inputs at 0), puts the operand ready last first (a dying one among equals, then
//! the current first), and takes the new ready time from that order. `bench compare` against
//! the dying-first rule, avx512 raw (packed), 2026-11-27: Serpent `-V` 1.171 (1.098), RECTANGLE
//! `-V` 1.109 (1.033), GIFT-v 1.057 (1.049), Ascon p12 / p6 / p8 1.048 / 1.044 / 1.048 (packed
//! 1.00-1.01), Xoodoo `-V` 1.022, `-H` 1.038, AES rk `-H` 1.038, ACE, AES rk and planes,
//! BLAKE2s, ChaCha20, Clyde, Gimli within 1.00-1.013, Pyjamask `-V` 0.985, Ascon and RECTANGLE
//! `-H` 0.995. Bitslice keeps the dying-first rule: its bodies are bound by throughput, and
//! there the register copies count (the latency rule in `-B`: DES 0.939, Ascon 0.977, AES
//! 0.998, Xoodoo 1.07, others within 1%).
//!
//! Before (`x` is read again later, `y` is not):
//! ```text
//! t:1 = ternlog x y z 0xe8
//! u:1 = xor t x
//! ```
//! After (0xe8, the majority function, is symmetric: the same immediate):
//! ```text
//! t:1 = ternlog y x z 0xe8
//! u:1 = xor t x
//! ```

use super::{OptConfig, Stats};
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::ir::{truth, Instr, Node, Op, Program, Slicing, VarId};
use crate::target::Uarch;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    let latency = latency_first(prog.slicing, cfg.uarch);
    let mut n = 0;
    for node in &mut prog.nodes {
        n += if latency {
            run_node_latency(node)
        } else {
            run_node(node)
        };
    }
    st.add("reordered", n);
    st
}

/// Whether ternlogs take their latest operand first (AMD, vslice and hslice) rather than a
/// dying one (module doc).
pub fn latency_first(slicing: Slicing, uarch: Uarch) -> bool {
    uarch == Uarch::Amd && slicing != Slicing::B
}

/// The cycle at which the result of `op` (not a ternlog) is ready, given its operands' ready
/// cycles `r` (Zen 4, core cycles; module doc).
fn ready_after(op: &Op, r: impl Iterator<Item = u32>) -> u32 {
    let start = r.max().unwrap_or(0);
    let lat = match op {
        Op::Const(_) => return 0,
        Op::Copy(_) => 0,
        Op::Rotl(..) | Op::Rotr(..) | Op::Shuffle(..) | Op::Bitmask(..) | Op::Pack(..) => 2,
        Op::Mul(..) => 3,
        _ => 1,
    };
    start + lat
}

/// Where values die: at their last reader in the body, unless they are an output of the node
/// (live after it) or an input (read from memory: first or not, one load).
struct Deaths {
    outputs: HashSet<VarId>,
    inputs: HashSet<VarId>,
    last: HashMap<VarId, usize>,
}

impl Deaths {
    fn of(node: &Node) -> Deaths {
        let mut last: HashMap<VarId, usize> = HashMap::default();
        for (i, ins) in node.body.iter().enumerate() {
            for u in ins.uses() {
                last.insert(u, i);
            }
        }
        Deaths {
            outputs: node.flat_outputs().into_iter().collect(),
            inputs: node.flat_inputs().into_iter().collect(),
            last,
        }
    }

    /// Whether `v` dies at instruction `i` (its last reader).
    fn dies(&self, v: VarId, i: usize) -> bool {
        !self.outputs.contains(&v) && !self.inputs.contains(&v) && self.last.get(&v) == Some(&i)
    }
}

/// Puts operand `k` of the ternlog at `ins` (operands `ops`, immediate `imm`) first, the other
/// two in their order, with the immediate permuted to match.
fn move_first(ins: &mut Instr, ops: [VarId; 3], imm: u8, k: usize) {
    let order = first_order(k);
    if let Instr::Assign { op, .. } = ins {
        *op = Op::Ternlog(
            ops[order[0]],
            ops[order[1]],
            ops[order[2]],
            truth::permute(imm, order),
        );
    }
}

/// The operand order with operand `k` first and the other two in their order.
fn first_order(k: usize) -> [usize; 3] {
    match k {
        0 => [0, 1, 2],
        1 => [1, 0, 2],
        _ => [2, 0, 1],
    }
}

fn run_node_latency(node: &mut Node) -> usize {
    let deaths = Deaths::of(node);
    let mut ready: HashMap<VarId, u32> = HashMap::default();
    let rd = |ready: &HashMap<VarId, u32>, v: VarId| ready.get(&v).copied().unwrap_or(0);
    let mut n = 0;
    for i in 0..node.body.len() {
        match &node.body[i] {
            Instr::Assign {
                dst,
                op: Op::Ternlog(a, b, c, imm),
            } => {
                let (dst, ops, imm) = (*dst, [*a, *b, *c], *imm);
                let r = ops.map(|v| rd(&ready, v));
                // latest first; among equals a dying operand, then the earlier position
                let k = (0..3)
                    .max_by_key(|&k| (r[k], deaths.dies(ops[k], i), std::cmp::Reverse(k)))
                    .unwrap_or(0);
                if k != 0 && ops[k] != ops[0] {
                    move_first(&mut node.body[i], ops, imm, k);
                    n += 1;
                }
                let order = first_order(k);
                let t = (r[order[0]] + 1).max(r[order[1]] + 2).max(r[order[2]] + 2);
                ready.insert(dst, t);
            }
            Instr::Assign { dst, op } => {
                let t = ready_after(op, op.operands().into_iter().map(|v| rd(&ready, v)));
                ready.insert(*dst, t);
            }
            ins => {
                let t = ins
                    .uses()
                    .into_iter()
                    .map(|v| rd(&ready, v))
                    .max()
                    .unwrap_or(0)
                    + 1;
                for d in ins.defs() {
                    ready.insert(d, t);
                }
            }
        }
    }
    n
}

fn run_node(node: &mut Node) -> usize {
    let deaths = Deaths::of(node);
    let dies = |v: VarId, i: usize| deaths.dies(v, i);
    let mut n = 0;
    for i in 0..node.body.len() {
        let Instr::Assign {
            op: Op::Ternlog(a, b, c, imm),
            ..
        } = &node.body[i]
        else {
            continue;
        };
        let ops = [*a, *b, *c];
        if dies(ops[0], i) || ops[0] == ops[1] || ops[0] == ops[2] {
            continue;
        }
        let Some(k) = (1..3).find(|&k| dies(ops[k], i)) else {
            continue;
        };
        // The dying operand first, the other two in their order (a node input, read from
        // memory, never dies, so it is never the one moved).
        let imm = *imm;
        move_first(&mut node.body[i], ops, imm, k);
        n += 1;
    }
    n
}
