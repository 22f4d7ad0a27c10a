//! Explicit spilling of kept-loop bodies (`--spill`, on by default for SSE/AVX2/AVX-512 loop
//! bodies; `--no-spill` turns it off).
//!
//! gcc does not schedule before register allocation on x86, and its allocator handles a loop
//! whose body keeps every register busy badly: ChaCha20's double round has 16 state rows
//! live on 16 ymm registers, and gcc's code for it stored 14 of them per iteration, reloading
//! them at the start of the next (store forwarding on the critical path). This module decides
//! the spills itself, with Belady's rule on the body's final order (evict the value whose next
//! use is furthest), so that at no point more values are live in registers than the target
//! has, and the C it emits makes gcc and clang follow the plan:
//!
//! ```c
//! nk_sp[0] = x; __asm__ volatile("" : "+m"(nk_sp[0]));   /* spill: x leaves the registers */
//! ...
//! DATATYPE nk_rl1 = nk_sp[0];                             /* reload, just before the use */
//! ```
//!
//! The empty `asm` says the slot may have changed, so the compiler cannot forward `x` to the
//! reload and keep it in a register in between; the reload usually folds into the
//! instruction that uses it (`vpaddd 0x20(%rsp),%ymm3,%ymm3`).
//!
//! Measured on ChaCha20 `-V` avx2 (Zen 3, raw entry, one process): the double-round loop goes
//! from 14 to 3 spilled values per iteration and the kernel is 6% faster with gcc and clang
//! (README, "Explicit spilling").
//!
//! The register model: every operand must be in a register when an instruction runs, except
//! constants (folded as memory operands); a rotate without a native instruction needs one
//! extra register for the shifted copy. Values the body's inputs bring in are in registers at
//! the start (the loop keeps them there), as far as there is room.

use crate::ir::{Instr, Node, Op, VarId};
use crate::target::Arch;

/// What to emit before an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Store the value into slot `1` and drop it from the registers.
    Spill(VarId, usize),
    /// Load the value back from slot `1` (a fresh C local from here on).
    Reload(VarId, usize),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// `before[k]`: actions before body instruction k; `before[body.len()]`: before the outputs
    /// are written.
    pub before: Vec<Vec<Action>>,
    pub slots: usize,
    pub spills: usize,
}

/// Vector registers of the target, or None where explicit spilling is not used (GP
/// registers: gcc's allocator does well there, and NEON is not measured).
pub fn registers(arch: Arch) -> Option<usize> {
    match arch {
        Arch::Sse | Arch::Avx2 => Some(16),
        Arch::Avx512 => Some(32),
        Arch::Std | Arch::Neon => None,
    }
}

/// Extra registers an operation needs while it runs.
fn temps(op: &Op, arch: Arch) -> usize {
    match op {
        // shift left, shift right, or: the first shift's result waits for the second.
        Op::Rotl(..) | Op::Rotr(..) if arch != Arch::Avx512 => 1,
        _ => 0,
    }
}

/// The spill plan for a straight-line body (only `Assign`s) with `regs` registers, or None if
/// the body has calls or loops, or never needs more registers than there are (no spill:
/// the C stays as it was).
pub fn plan(node: &Node, arch: Arch, regs: usize) -> Option<Plan> {
    if node.body.iter().any(|i| !matches!(i, Instr::Assign { .. })) || regs < 4 {
        return None;
    }
    let n = node.body.len();
    let nv = node.vars.len();
    // Uses of every value, in order: instruction index, or n for an output.
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for (k, ins) in node.body.iter().enumerate() {
        for u in ins.uses() {
            if uses[u.0 as usize].last() != Some(&k) {
                uses[u.0 as usize].push(k);
            }
        }
    }
    for a in node.flat_outputs() {
        uses[a.0 as usize].push(n);
    }
    let mut cursor = vec![0usize; nv];
    const NEVER: usize = usize::MAX;
    let next_use = |cursor: &mut Vec<usize>, v: VarId, k: usize| -> usize {
        let us = &uses[v.0 as usize];
        let c = &mut cursor[v.0 as usize];
        while *c < us.len() && us[*c] < k {
            *c += 1;
        }
        us.get(*c).copied().unwrap_or(NEVER)
    };
    let mut before: Vec<Vec<Action>> = vec![Vec::new(); n + 1];
    let mut slot: Vec<Option<usize>> = vec![None; nv];
    let mut slots = 0usize;
    let mut spills = 0usize;
    let mut inregs: Vec<VarId> = Vec::new();

    // Inputs: the ones used soonest start in registers.
    let mut ins: Vec<VarId> = node.flat_inputs().into_iter().filter(|a| !uses[a.0 as usize].is_empty()).collect();
    ins.sort_by_key(|a| uses[a.0 as usize][0]);
    ins.dedup();
    for (i, a) in ins.iter().enumerate() {
        if i < regs - 1 {
            inregs.push(*a);
        } else {
            slot[a.0 as usize] = Some(slots);
            before[0].push(Action::Spill(*a, slots));
            slots += 1;
            spills += 1;
        }
    }
    // Evicts values until `inregs` has room for `want` more, never one of `keep`.
    let evict = |inregs: &mut Vec<VarId>, cursor: &mut Vec<usize>, want: usize, keep: &[VarId], k: usize, acts: &mut Vec<Action>, slot: &mut Vec<Option<usize>>, slots: &mut usize, spills: &mut usize| {
        while inregs.len() + want > regs {
            let mut best: Option<(usize, usize)> = None;
            for (i, v) in inregs.iter().enumerate() {
                if keep.contains(v) {
                    continue;
                }
                let nu = next_use(cursor, *v, k);
                if best.map_or(true, |(_, b)| nu > b) {
                    best = Some((i, nu));
                }
            }
            let Some((i, _)) = best else { return };
            let v = inregs.swap_remove(i);
            if slot[v.0 as usize].is_none() {
                slot[v.0 as usize] = Some(*slots);
                acts.push(Action::Spill(v, *slots));
                *slots += 1;
                *spills += 1;
            }
        }
    };
    for k in 0..n {
        let Instr::Assign { dst, op } = &node.body[k] else { unreachable!() };
        let mut ops = op.operands();
        ops.sort_unstable_by_key(|v| v.0);
        ops.dedup();
        let mut acts = std::mem::take(&mut before[k]);
        for &u in &ops {
            if !inregs.contains(&u) {
                evict(&mut inregs, &mut cursor, 1, &ops, k, &mut acts, &mut slot, &mut slots, &mut spills);
                let s = slot[u.0 as usize].expect("a value not in a register was spilled");
                acts.push(Action::Reload(u, s));
                inregs.push(u);
            }
        }
        // Operands used for the last time free their registers for the result.
        inregs.retain(|v| next_use(&mut cursor, *v, k + 1) != NEVER);
        evict(&mut inregs, &mut cursor, 1 + temps(op, arch), &[], k + 1, &mut acts, &mut slot, &mut slots, &mut spills);
        if next_use(&mut cursor, *dst, k + 1) != NEVER {
            inregs.push(*dst);
        }
        before[k] = acts;
    }
    // Outputs still in memory are reloaded before they are written out.
    let mut seen = std::collections::HashSet::new();
    for a in node.flat_outputs() {
        if !inregs.contains(&a) && seen.insert(a) {
            if let Some(s) = slot[a.0 as usize] {
                before[n].push(Action::Reload(a, s));
            }
        }
    }
    if spills == 0 {
        return None;
    }
    Some(Plan { before, slots, spills })
}
