//! Kept loops whose state lives in memory (`--mem-loops`, on by default; `--no-mem-loops`).
//!
//! A kept loop (`Instr::Loop`) is normally emitted with its state in C locals: each iteration
//! builds the body's input array from the locals and the per-iteration values, calls the
//! (always inlined) body, and copies its output array back into the locals:
//!
//! ```c
//! const DATATYPE nk_l0_x64[25] = { key[0][0][0], key[1][0][0], ... };   /* one per input */
//! for (int nk_i = 0; nk_i < 25; nk_i++) {
//!     const DATATYPE nk_a0[128] = { nk_l0_s0, ..., nk_l0_x64[nk_i], ... };
//!     DATATYPE nk_r0[64];
//!     body(nk_a0, nk_r0);
//!     nk_l0_s0 = nk_r0[0]; ...
//! }
//! ```
//!
//! That is right when the state fits the registers (ChaCha20 `-V`: 16 rows, which the
//! explicit spill plan and homes of `target/spill.rs` manage). When it does not (a bitsliced
//! state is 64 to 512 registers), gcc cannot keep the arrays in registers either: every
//! iteration copies the whole state and every per-iteration input through memory (RECTANGLE
//! `-B` avx2: 574 instructions per round, 256 of them the round's work), and each
//! per-iteration input array gets its own induction pointer, spilled. That is what made kept
//! loops lose against unrolling in bitslice.
//!
//! In the memory form the body reads and writes memory directly:
//!
//! ```c
//! DATATYPE nk_l0_st[2][64];                       /* state, double-buffered */
//! nk_l0_st[0][0] = plain[0][0]; ...
//! for (int nk_i = 0; nk_i < 25; nk_i++)
//!     body(nk_l0_st[nk_i & 1], nk_l0_st[(nk_i & 1) ^ 1], (const DATATYPE *)key + nk_i * 64);
//! ```
//!
//! - the state is two buffers; iteration i reads one and writes the other (`restrict`: they
//!   never overlap), and the body stores each output as soon as it is computed;
//! - or, where the body's order allows it ([`single_buffer`]: each slot's next value can be
//!   stored once the last instruction reading its current one has, holding back at most
//!   half as many values at a time as the target has registers, or any number where two
//!   buffers would exceed 32 KB), one buffer that each iteration overwrites in
//!   place (`DATATYPE nk_l0_st[1][64]`, one pointer): half the memory, which matters where two
//!   buffers and the spill slots outgrow L1 (Ascon's 320 atoms on AVX-512: 2 x 20 KB);
//! - the per-iteration inputs (`LoopArg::Each`) are read in place when they are elements of
//!   one entry parameter array at a constant stride per iteration (round keys); otherwise
//!   elements of one entry array are read through a constant table of indices (permuted key
//!   bits: DES, GIFT), constant bits are broadcast from a constant table (round constants),
//!   inputs that repeat across iterations (round keys mixing key bits and computed ones:
//!   PRESENT, SKINNY) are read through an index table from a pool of their distinct values,
//!   and the rest is gathered once, iteration-major, so one pointer walks it. The tables are
//!   indexed by the loop counter only, so the code stays constant-time;
//! - the inputs that are the same in every iteration (`LoopArg::Same`) are gathered once;
//! - per-iteration outputs go to an iteration-major array.
//!
//! It applies to a body called by exactly one kept loop, whose atoms all have type
//! `DATATYPE`, with no explicit spill plan, and whose loop state has more atoms than the
//! target has registers.

use crate::ir::{Instr, LoopArg, LoopResult, Node, Program};

/// Where the body finds one of its flat inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum In {
    /// A loop state: `slot` of the generation `back` iterations before this one's
    /// (`nk_s<back>[slot]`).
    State { back: usize, slot: usize },
    /// `nk_x[k]`: this iteration's block of per-iteration inputs.
    Each(usize),
    /// `nk_c[k]`: the same in every iteration.
    Same(usize),
    /// `nk_b[nk_ix[k]]`: an element of the entry input array `MemLoop::indexed` names, at a
    /// per-iteration index from a constant table (round key bits in a permuted order).
    Indexed(usize),
    /// A constant bit per iteration (bitslice), all-zero or all-ones broadcast from
    /// `nk_kb[k]` of a constant table (round constants).
    ConstBit(usize),
}

/// The array that `In::Indexed` inputs index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base {
    /// An entry input parameter array, read in place (its flat elements).
    Param(usize),
    /// A pool of the distinct values, built once per call (`nk_lK_u`): per-iteration inputs
    /// mixing key bits and computed ones that repeat across iterations (PRESENT's and
    /// SKINNY's round keys: 1984 and 3072 values, 259 and 496 of them distinct).
    Pool(Vec<crate::ir::VarId>),
}

/// Per-iteration inputs read through constant tables instead of being gathered (see
/// [`In::Indexed`], [`In::ConstBit`]); the tables are indexed by the loop counter only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    /// (the array indexed, per iteration: the element of each `Indexed` input)
    pub indexed: Option<(Base, Vec<Vec<usize>>)>,
    /// per iteration: the bit of each `ConstBit` input
    pub const_bits: Vec<Vec<bool>>,
}

impl Tables {
    /// C type of the index table's entries.
    pub fn index_type(&self) -> &'static str {
        match &self.indexed {
            Some((_, t)) if t.iter().flatten().any(|&i| i > u16::MAX as usize) => "uint32_t",
            _ => "uint16_t",
        }
    }
}

/// Where the body stores one of its flat outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    /// `nk_t[slot]`: a loop state for the next iteration.
    State(usize),
    /// `nk_y[k]`: this iteration's block of per-iteration outputs.
    Each(usize),
}

/// How the loop around finds the per-iteration inputs of iteration i.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EachSrc {
    /// In entry input parameter `param` (an array passed as is), at flat element
    /// `i * stride + k` for `nk_x[k]`.
    Param { param: usize, stride: usize },
    /// In a gathered array `[count][n_each]`, row i.
    Gather,
}

/// The memory form of one kept loop's body (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemLoop {
    pub ins: Vec<In>,
    /// Per flat output, every place it is stored (a state that is also collected per
    /// iteration goes to both).
    pub outs: Vec<Vec<Out>>,
    /// Per loop state j: (back, slot): its value in iteration i is `slot` of generation
    /// i - back.
    pub state_at: Vec<(usize, usize)>,
    /// Atoms per generation (the states the body computes).
    pub n_slots: usize,
    /// Generations kept: the body reads `ring - 1` of them (back 0 .. ring - 2) and writes
    /// the next; generation g is buffer `g mod ring`.
    pub ring: usize,
    /// Size of one iteration's block of per-iteration inputs (with `EachSrc::Param`, the
    /// highest offset read plus one).
    pub n_each: usize,
    pub n_same: usize,
    pub n_y: usize,
    pub each_src: EachSrc,
    pub tables: Tables,
    /// One state buffer instead of two ([`single_buffer`]): iteration i overwrites the state in
    /// place, each slot's next value stored once its current one has been read. Per slot, the
    /// instruction after which its next value is stored when that is later than the one
    /// computing it (the last read of its current value). `None`: two buffers.
    pub single: Option<Vec<Option<usize>>>,
    /// Slots of the state that stay in registers from one iteration to the next
    /// ([`register_slots`]): the body reads and writes them through pointers to the caller's
    /// locals (gcc keeps those in registers once the body is inlined), the others in the
    /// buffer. With two buffers a kept slot has two locals, the current value and the next
    /// (copied over after each iteration). Sorted; empty with a ring of more generations.
    pub reg_slots: Vec<usize>,
}

/// Per node, its memory form when it is the body of a kept loop that gets one.
///
/// `eligible(i)`: node i may use it (its atoms are all `DATATYPE`, it has no spill plan);
/// `regs`: registers of the target, `reg_bytes` their width; `direct_param(p)`: entry input
/// p is passed as an array whose elements the entry reads in place, in `p.atoms` order.
///
/// `const_bits`: constant per-iteration bits may be broadcast from a table (bitslice on a
/// target whose C codegen knows the broadcast).
#[allow(clippy::too_many_arguments)]
pub fn plans(
    prog: &Program,
    regs: usize,
    reg_bytes: usize,
    eligible: &dyn Fn(usize) -> bool,
    direct_param: &dyn Fn(usize) -> bool,
    const_bits: bool,
    loop_regs: Option<usize>,
    arch: crate::target::Arch,
) -> Vec<Option<MemLoop>> {
    let n = prog.nodes.len();
    let site = prog.sole_big_state_loop_sites(regs);
    (0..n)
        .map(|c| {
            let (ni, k) = site[c]?;
            if !eligible(c) {
                return None;
            }
            let caller = &prog.nodes[ni];
            let Instr::Loop {
                count,
                state,
                args,
                results,
                ..
            } = &caller.body[k]
            else {
                return None;
            };
            plan(
                &prog.nodes[c],
                caller,
                regs,
                reg_bytes,
                ni + 1 == n,
                *count as usize,
                state.len(),
                args,
                results,
                direct_param,
                const_bits,
                loop_regs,
                arch,
            )
        })
        .collect()
}

/// Where every loop state lives: (back, slot) per state, slots, ring.
///
/// A state whose next value the body merely passes on from another state's input (the
/// halves of a Feistel network: L' = R) is not copied: its value in iteration i is the other
/// state's in iteration i - 1, so it is read from the generation before. Following such
/// chains to the state that is computed (the root) gives each state a delay `back`;
/// generations are kept in a ring of max(back) + 2 buffers. A root has one state per delay
/// (its chain); any other state, and a cycle of pure copies, is stored like a computed one.
fn generations(
    body: &Node,
    n_state: usize,
    args: &[LoopArg],
    results: &[LoopResult],
) -> (Vec<(usize, usize)>, Vec<bool>, usize, usize) {
    let ins = body.flat_inputs();
    let outs = body.flat_outputs();
    // pass[j] = k: the body's output for state j is its input for state k, unchanged.
    let input_at: crate::fxhash::FxHashMap<crate::ir::VarId, usize> =
        ins.iter().enumerate().map(|(p, a)| (*a, p)).collect();
    // (through copies: the body may return `out = copy in`)
    let copy_of: crate::fxhash::FxHashMap<crate::ir::VarId, crate::ir::VarId> = body
        .body
        .iter()
        .filter_map(|i| {
            if let Instr::Assign {
                dst,
                op: crate::ir::Op::Copy(x),
            } = i
            {
                Some((*dst, *x))
            } else {
                None
            }
        })
        .collect();
    let source = |mut v: crate::ir::VarId| {
        for _ in 0..copy_of.len() {
            match copy_of.get(&v) {
                Some(x) => v = *x,
                None => break,
            }
        }
        v
    };
    let mut pass: Vec<Option<usize>> = vec![None; n_state];
    for (o, r) in results.iter().enumerate() {
        if let LoopResult::State { state: j, .. } = r {
            pass[*j as usize] = input_at.get(&source(outs[o])).and_then(|&p| match args[p] {
                LoopArg::State(k) => Some(k as usize),
                _ => None,
            });
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n_state];
    for (j, k) in pass.iter().enumerate() {
        if let Some(k) = k {
            children[*k].push(j);
        }
    }
    let mut root = vec![false; n_state];
    let mut at: Vec<Option<(usize, usize)>> = vec![None; n_state];
    let mut n_slots = 0;
    let mut depth = 0;
    // Roots: computed states first, then one state of each remaining cycle.
    let mut order: Vec<usize> = (0..n_state).filter(|&j| pass[j].is_none()).collect();
    let (mut next, mut scan) = (0, 0);
    loop {
        if next == order.len() {
            // (everything in `order` is placed: what is left are cycles)
            while scan < n_state && at[scan].is_some() {
                scan += 1;
            }
            if scan == n_state {
                break;
            }
            order.push(scan);
        }
        let r = order[next];
        next += 1;
        if at[r].is_some() {
            continue;
        }
        root[r] = true;
        at[r] = Some((0, n_slots));
        // Walk the chain: the first child at each step continues it, the others are roots.
        let (mut cur, mut back) = (r, 0);
        loop {
            let kids: Vec<usize> = children[cur]
                .iter()
                .copied()
                .filter(|&c| at[c].is_none())
                .collect();
            let Some((&first, rest)) = kids.split_first() else {
                break;
            };
            order.extend_from_slice(rest);
            back += 1;
            at[first] = Some((back, n_slots));
            cur = first;
        }
        depth = depth.max(back);
        n_slots += 1;
    }
    (
        at.into_iter()
            .map(|a| a.expect("every state placed"))
            .collect(),
        root,
        n_slots,
        depth + 2,
    )
}

#[allow(clippy::too_many_arguments)]
fn plan(
    body: &Node,
    caller: &Node,
    regs: usize,
    reg_bytes: usize,
    caller_is_entry: bool,
    count: usize,
    n_state: usize,
    args: &[LoopArg],
    results: &[LoopResult],
    direct_param: &dyn Fn(usize) -> bool,
    const_bits: bool,
    loop_regs: Option<usize>,
    arch: crate::target::Arch,
) -> Option<MemLoop> {
    let (state_at, root, n_slots, ring) = generations(body, n_state, args, results);
    let mut ins = Vec::with_capacity(args.len());
    let (mut n_each, mut n_same) = (0, 0);
    let mut eaches: Vec<&[crate::ir::VarId]> = Vec::new();
    for a in args {
        ins.push(match a {
            LoopArg::State(j) => {
                let (back, slot) = state_at[*j as usize];
                In::State { back, slot }
            }
            LoopArg::Same(_) => {
                n_same += 1;
                In::Same(n_same - 1)
            }
            LoopArg::Each(vs) => {
                if vs.len() != count {
                    return None;
                }
                eaches.push(vs);
                n_each += 1;
                In::Each(n_each - 1)
            }
        });
    }
    let mut outs = Vec::with_capacity(results.len());
    let mut n_y = 0;
    for r in results {
        let mut o = Vec::new();
        match r {
            LoopResult::State { state, each } => {
                let j = *state as usize;
                if root[j] {
                    o.push(Out::State(state_at[j].1));
                }
                if !each.is_empty() {
                    n_y += 1;
                    o.push(Out::Each(n_y - 1));
                }
            }
            LoopResult::Each(_) => {
                n_y += 1;
                o.push(Out::Each(n_y - 1));
            }
        }
        outs.push(o);
    }
    let mut ml = MemLoop {
        ins,
        outs,
        state_at,
        n_slots,
        ring,
        n_each,
        n_same,
        n_y,
        each_src: EachSrc::Gather,
        tables: Tables::default(),
        single: None,
        reg_slots: Vec::new(),
    };
    ml.single = single_buffer(
        body,
        &ml,
        single_buffer_max_held(regs, 2 * n_slots * reg_bytes),
    );
    // (one buffer, or two with no generation delay)
    let after: Option<Vec<Option<usize>>> = match &ml.single {
        Some(a) => Some(a.clone()),
        None if ml.ring == 2 => Some(vec![None; ml.n_slots]),
        None => None,
    };
    if let Some(after) = after {
        ml.reg_slots = register_slots(
            body,
            &ml,
            &after,
            loop_regs.unwrap_or_else(|| register_slots_count(arch, regs)),
        );
    }
    // (entry inputs read in place) atom -> (parameter, flat element)
    let at: EntryAtoms = if caller_is_entry {
        caller
            .inputs
            .iter()
            .enumerate()
            .filter(|(p, _)| direct_param(*p))
            .flat_map(|(p, par)| par.atoms.iter().enumerate().map(move |(i, a)| (*a, (p, i))))
            .collect()
    } else {
        EntryAtoms::default()
    };
    match in_place(&at, &eaches) {
        None => tables(&mut ml, caller, &at, count, &eaches, const_bits),
        Some((param, stride, offsets)) => {
            let mut e = 0;
            for i in ml.ins.iter_mut() {
                if let In::Each(_) = i {
                    *i = In::Each(offsets[e]);
                    e += 1;
                }
            }
            ml.n_each = offsets.iter().max().map_or(0, |m| m + 1);
            ml.each_src = EachSrc::Param { param, stride };
        }
    }
    Some(ml)
}

/// The most state values a single-buffer body may hold back at once ([`single_buffer`]): half
/// the target's registers, or any number when two buffers of the state would take more than
/// [`SINGLE_BUFFER_ALWAYS_BYTES`]. Measured on the Intel machine (2026-11-26, `bench compare`,
/// raw / packed, one buffer against two): PRESENT `-B` (9 to 16 held) 1.07x faster on AVX-512
/// (32 registers), and with 24 allowed 1.035x slower on AVX2 (16); with no bound on AVX-512,
/// the programs whose two buffers exceed 32 KB gained (Gimli, 2 x 24 KB: 1.20 / 1.13;
/// Subterranean, 2 x 16.4 KB: 1.15 / 1.01) and the smaller ones lost or broke even (Spongent,
/// 2 x 10 KB: 0.94 / 0.98; GIFT 0.97 / 1.03, SKINNY 0.99 / 0.94, AES const rk 1.01 / 1.02,
/// 2 x 8 KB), as did the same states in narrower registers (no bound on AVX2: Gimli 1.04 /
/// 1.01, Subterranean 0.76 / 0.90; SSE: Gimli 0.91 / 0.96).
pub fn single_buffer_max_held(regs: usize, two_buffers_bytes: usize) -> usize {
    if two_buffers_bytes > SINGLE_BUFFER_ALWAYS_BYTES {
        usize::MAX
    } else {
        regs / 2
    }
}

/// Two state buffers larger than this take one buffer whatever it holds back: 32 KB, Zen 4's
/// L1D (Golden Cove's is 48 KB), which the state, the body's spill slots and its inputs share.
pub const SINGLE_BUFFER_ALWAYS_BYTES: usize = 32 * 1024;

/// Per atom of `body`, the position of its last reader and of its definition.
type Positions = (Vec<Option<usize>>, Vec<Option<usize>>);

fn positions(body: &Node) -> Positions {
    let mut last_use = vec![None::<usize>; body.vars.len()];
    let mut def_at = vec![None::<usize>; body.vars.len()];
    for (k, ins) in body.body.iter().enumerate() {
        for u in ins.uses() {
            last_use[u.0 as usize] = Some(k);
        }
        for d in ins.defs() {
            def_at[d.0 as usize] = Some(k);
        }
    }
    (last_use, def_at)
}

/// Whether the state can live in one buffer, each iteration overwriting it in place, and
/// then per slot the instruction after which its next value is stored (`None`: right after
/// the instruction that computes it).
///
/// The body (emitted in `body` order) reads a state input where it is used (`nk_s0[slot]` in
/// the instruction's expression) and stores each state output right after the instruction
/// that computes it (an output that is an input, passed on, at the end). With one buffer a
/// slot's next value must wait until the last instruction reading its current value (the read
/// is in that instruction's expression, before any store after it); values held back that
/// way stay live longer, so at most `max_held` ([`single_buffer_max_held`]) may be held at
/// once, and an output passed on unchanged must go back to its own slot. Only a plain ring of two
/// generations (no Feistel delays) qualifies.
///
/// Two buffers were 2 x 20 KB for Ascon's 320 atoms on AVX-512: with the spill slots more
/// than Golden Cove's 48 KB L1D (Zen 4: 32 KB).
pub fn single_buffer(body: &Node, ml: &MemLoop, max_held: usize) -> Option<Vec<Option<usize>>> {
    if ml.ring != 2 {
        return None;
    }
    let (last_use, def_at) = positions(body);
    // the last read of each slot's current value, and the slot each state input is
    let mut slot_read = vec![None::<usize>; ml.n_slots];
    let mut input_slot = crate::fxhash::FxHashMap::default();
    for (&a, w) in body.flat_inputs().iter().zip(&ml.ins) {
        if let In::State { back, slot } = *w {
            if back != 0 {
                return None;
            }
            input_slot.insert(a, slot);
            if let Some(k) = last_use[a.0 as usize] {
                slot_read[slot] = slot_read[slot].max(Some(k));
            }
        }
    }
    let mut after = vec![None; ml.n_slots];
    // +1 / -1 events of held values, by instruction
    let mut events = vec![0i64; body.body.len() + 1];
    for (&o, ws) in body.flat_outputs().iter().zip(&ml.outs) {
        for w in ws {
            let Out::State(j) = *w else { continue };
            match def_at[o.0 as usize] {
                Some(k) => {
                    if let Some(r) = slot_read[j].filter(|&r| r > k) {
                        after[j] = Some(r);
                        events[k] += 1;
                        events[r] -= 1;
                    }
                }
                // stored at the end: reads its own slot, or memory that is not the state
                None => {
                    if input_slot.get(&o).is_some_and(|&s| s != j) {
                        return None;
                    }
                }
            }
        }
    }
    let mut held = 0i64;
    for e in events {
        held += e;
        if held > 0 && held as usize > max_held {
            return None;
        }
    }
    Some(after)
}

/// How many state slots of a memory-form kept loop (one buffer, or two) stay in registers
/// across iterations by default ([`register_slots`]): half the registers on AVX-512 (32
/// registers: 16), none on the targets with 16. Measured on Zen 4 (README "Loop state in registers"): every bitsliced
/// AVX-512 program with such a loop as fast or faster (RECTANGLE 1.14-1.26x raw, 1.13-1.17x
/// packed), while on AVX2 half the registers sped some up (Spongent `-V` 1.12x, RECTANGLE
/// 1.06x) and slowed others down (Clyde 0.95x, Ascon 0.97x; with 4 slots Ascon 0.80x): a
/// per-program choice there (`--loop-regs N`, the tuner's `loop-regs` knob).
pub fn register_slots_count(arch: crate::target::Arch, regs: usize) -> usize {
    if arch == crate::target::Arch::Avx512 {
        regs / 2
    } else {
        0
    }
}

/// The `k` slots of a one- or two-buffer state (`after`: [`single_buffer`]'s store positions,
/// all `None` with two buffers) that
/// cost least to keep in a register across iterations: a slot's register is taken from the
/// body's start to the last read of its current value, and from the store of its next value
/// to the end; cheapest first (ties: lower slot). Every slot kept this way is one store and
/// at least one load fewer per iteration.
pub fn register_slots(body: &Node, ml: &MemLoop, after: &[Option<usize>], k: usize) -> Vec<usize> {
    let n = body.body.len();
    let (last_use, def_at) = positions(body);
    let mut read_until = vec![0usize; ml.n_slots];
    for (&a, w) in body.flat_inputs().iter().zip(&ml.ins) {
        if let In::State { slot, .. } = *w {
            if let Some(u) = last_use[a.0 as usize] {
                read_until[slot] = read_until[slot].max(u + 1);
            }
        }
    }
    // where each slot's next value is stored (the end when it is passed on unchanged)
    let mut stored_at = vec![n; ml.n_slots];
    for (&o, ws) in body.flat_outputs().iter().zip(&ml.outs) {
        for w in ws {
            if let Out::State(j) = *w {
                stored_at[j] = after[j].or(def_at[o.0 as usize]).unwrap_or(n);
            }
        }
    }
    let mut slots: Vec<usize> = (0..ml.n_slots).collect();
    slots.sort_by_key(|&j| (read_until[j] + (n - stored_at[j].min(n)), j));
    let mut kept: Vec<usize> = slots.into_iter().take(k.min(ml.n_slots)).collect();
    kept.sort_unstable();
    kept
}

/// The entry's input atoms read in place: atom -> (input parameter, flat element).
type EntryAtoms = crate::fxhash::FxHashMap<crate::ir::VarId, (usize, usize)>;

/// Moves the per-iteration inputs that a constant table can reach out of the gather: the
/// elements of one entry input array (`In::Indexed` over `Base::Param`), constant bits
/// (`In::ConstBit`), and, when the rest repeat across iterations (at most half of them
/// distinct), all non-constant ones through a pool of their distinct values
/// (`In::Indexed` over `Base::Pool`).
/// Gathering copies every input of every iteration once per call (GIFT `-B` avx2: 10k of the
/// 38k instructions a call executes); a table costs one small load per use, and the pool one
/// store per distinct value.
fn tables(
    ml: &mut MemLoop,
    caller: &Node,
    at: &EntryAtoms,
    count: usize,
    eaches: &[&[crate::ir::VarId]],
    const_bits: bool,
) {
    use crate::fxhash::FxHashMap as HashMap;
    if count == 0 {
        return;
    }
    let consts: HashMap<crate::ir::VarId, bool> = if const_bits {
        caller
            .body
            .iter()
            .filter_map(|i| match i {
                Instr::Assign {
                    dst,
                    op: crate::ir::Op::Const(c),
                } if caller.bits(*dst) == 1 => Some((*dst, *c & 1 == 1)),
                _ => None,
            })
            .collect()
    } else {
        HashMap::default()
    };
    let is_const = |vs: &[crate::ir::VarId]| vs.iter().all(|v| consts.contains_key(v));
    // the one array read through an index table: that of the first list entirely in one
    let param = eaches.iter().find_map(|vs| {
        let p = at.get(&vs[0])?.0;
        vs.iter()
            .all(|v| at.get(v).is_some_and(|(q, _)| *q == p))
            .then_some(p)
    });
    let in_param = |vs: &[crate::ir::VarId]| {
        param.is_some()
            && vs
                .iter()
                .all(|v| at.get(v).is_some_and(|(q, _)| Some(*q) == param))
    };
    // the pool, when what would be gathered repeats enough
    let rest: Vec<&[crate::ir::VarId]> = eaches
        .iter()
        .copied()
        .filter(|vs| !is_const(vs) && !in_param(vs))
        .collect();
    let mut pool: Vec<crate::ir::VarId> = Vec::new();
    let mut slot: HashMap<crate::ir::VarId, usize> = HashMap::default();
    if !rest.is_empty() {
        for it in 0..count {
            for vs in eaches.iter().filter(|vs| !is_const(vs)) {
                slot.entry(vs[it]).or_insert_with(|| {
                    pool.push(vs[it]);
                    pool.len() - 1
                });
            }
        }
        let distinct_rest: crate::fxhash::FxHashSet<_> =
            rest.iter().flat_map(|vs| vs.iter()).collect();
        if 2 * distinct_rest.len() > rest.len() * count {
            pool.clear();
        }
    }
    let pooled = !pool.is_empty();
    let mut ix: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut kb: Vec<Vec<bool>> = vec![Vec::new(); count];
    let mut gathered = 0;
    let mut e = 0;
    for i in ml.ins.iter_mut() {
        let In::Each(_) = i else { continue };
        let vs = eaches[e];
        e += 1;
        if is_const(vs) {
            *i = In::ConstBit(kb[0].len());
            for (it, v) in vs.iter().enumerate() {
                kb[it].push(consts[v]);
            }
        } else if pooled || in_param(vs) {
            *i = In::Indexed(ix[0].len());
            for (it, v) in vs.iter().enumerate() {
                ix[it].push(if pooled { slot[v] } else { at[v].1 });
            }
        } else {
            *i = In::Each(gathered);
            gathered += 1;
        }
    }
    ml.n_each = gathered;
    if !ix[0].is_empty() {
        let base = if pooled {
            Base::Pool(pool)
        } else {
            Base::Param(param.expect("indexed inputs have a parameter"))
        };
        ml.tables.indexed = Some((base, ix));
    }
    if !kb[0].is_empty() {
        ml.tables.const_bits = kb;
    }
}

/// When every per-iteration input list is `p.atoms[o + i * stride]` (i = iteration) of one
/// entry input p read in place, for one stride: (p, stride, each list's o).
fn in_place(at: &EntryAtoms, eaches: &[&[crate::ir::VarId]]) -> Option<(usize, usize, Vec<usize>)> {
    let first = eaches.first()?;
    let (param, _) = *at.get(&first[0])?;
    let pos = |v: crate::ir::VarId| at.get(&v).filter(|(p, _)| *p == param).map(|(_, i)| *i);
    let stride = if first.len() > 1 {
        pos(first[1])?.checked_sub(pos(first[0])?)?
    } else {
        1
    };
    if stride == 0 {
        return None;
    }
    let mut offsets = Vec::with_capacity(eaches.len());
    for vs in eaches {
        let o = pos(vs[0])?;
        for (i, v) in vs.iter().enumerate() {
            if pos(*v)? != o + i * stride {
                return None;
            }
        }
        offsets.push(o);
    }
    Some((param, stride, offsets))
}
