//! Explicit spilling of vsliced kept-loop bodies on SSE/AVX2/AVX-512 (`--spill`, on by
//! default; `--no-spill` turns it off). Where it applies is [`plan_for`]'s rule.
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

use crate::ir::{Instr, Node, Op, Slicing, VarId};
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
    /// Spill slots, one per spilled value (a value is stored once, reloaded as often as needed).
    pub slots: usize,
}

/// The plan for node `node` compiled for `arch` in `slicing`, if explicit spilling applies:
/// a kept-loop body (`loop_body`) in vslice on SSE/AVX2/AVX-512 that needs more registers than
/// the target has. Not in hslice: its big S-box bodies ran 1.6-2.8x slower (AES, GIFT,
/// SPONGENT; gcc's own allocator rematerialises constants and copies, this plan does not).
/// GP registers are left to the C compiler (its allocator does well there), NEON is not
/// measured.
pub fn plan_for(node: &Node, arch: Arch, slicing: Slicing, loop_body: bool) -> Option<Plan> {
    let regs = match arch {
        Arch::Sse | Arch::Avx2 => 16,
        Arch::Avx512 => 32,
        Arch::Std | Arch::Neon => return None,
    };
    if slicing != Slicing::V || !loop_body {
        return None;
    }
    plan(node, arch, regs)
}

/// Extra registers an operation needs while it runs.
fn temps(op: &Op, arch: Arch) -> usize {
    match op {
        // shift left, shift right, or: the first shift's result waits for the second.
        Op::Rotl(..) | Op::Rotr(..) if arch != Arch::Avx512 => 1,
        _ => 0,
    }
}

const NEVER: usize = usize::MAX;

/// The register file during the walk over the body.
struct Regs {
    /// Uses of every value, in order: instruction index, or the body's length for an output.
    uses: Vec<Vec<usize>>,
    /// Per value, the index in `uses` of its next use (advanced as the walk goes).
    cursor: Vec<usize>,
    /// Values in registers.
    live: Vec<VarId>,
    /// The slot of every value stored so far.
    slot: Vec<Option<usize>>,
    slots: usize,
    regs: usize,
}

impl Regs {
    /// The first use of `v` at or after instruction `k`.
    fn next_use(&mut self, v: VarId, k: usize) -> usize {
        let us = &self.uses[v.0 as usize];
        let c = &mut self.cursor[v.0 as usize];
        while *c < us.len() && us[*c] < k {
            *c += 1;
        }
        us.get(*c).copied().unwrap_or(NEVER)
    }

    /// Gives `v` a slot and records its store, unless it is already in memory.
    fn store(&mut self, v: VarId, acts: &mut Vec<Action>) {
        if self.slot[v.0 as usize].is_none() {
            self.slot[v.0 as usize] = Some(self.slots);
            acts.push(Action::Spill(v, self.slots));
            self.slots += 1;
        }
    }

    /// Evicts values (the one used furthest from instruction `k` first, never one of `keep`)
    /// until `want` more fit.
    fn evict(&mut self, want: usize, keep: &[VarId], k: usize, acts: &mut Vec<Action>) {
        while self.live.len() + want > self.regs {
            let mut best: Option<(usize, usize)> = None;
            for i in 0..self.live.len() {
                let v = self.live[i];
                if keep.contains(&v) {
                    continue;
                }
                let nu = self.next_use(v, k);
                if best.is_none_or(|(_, b)| nu > b) {
                    best = Some((i, nu));
                }
            }
            let Some((i, _)) = best else { return };
            let v = self.live.swap_remove(i);
            self.store(v, acts);
        }
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
    let mut before: Vec<Vec<Action>> = vec![Vec::new(); n + 1];

    // Inputs: the ones used soonest start in registers, the others are stored at once.
    let mut ins: Vec<VarId> = node.flat_inputs().into_iter().filter(|a| !uses[a.0 as usize].is_empty()).collect();
    ins.sort_by_key(|a| uses[a.0 as usize][0]);
    ins.dedup();
    let mut r = Regs { uses, cursor: vec![0; nv], live: Vec::new(), slot: vec![None; nv], slots: 0, regs };
    for (i, a) in ins.iter().enumerate() {
        if i < regs - 1 {
            r.live.push(*a);
        } else {
            r.store(*a, &mut before[0]);
        }
    }
    for (k, ins) in node.body.iter().enumerate() {
        let Instr::Assign { dst, op } = ins else { unreachable!() };
        let mut ops = op.operands();
        ops.sort_unstable_by_key(|v| v.0);
        ops.dedup();
        let mut acts = std::mem::take(&mut before[k]);
        for &u in &ops {
            if !r.live.contains(&u) {
                r.evict(1, &ops, k, &mut acts);
                let s = r.slot[u.0 as usize].expect("a value not in a register was spilled");
                acts.push(Action::Reload(u, s));
                r.live.push(u);
            }
        }
        // Operands used for the last time free their registers for the result.
        let live = std::mem::take(&mut r.live);
        r.live = live.into_iter().filter(|v| r.next_use(*v, k + 1) != NEVER).collect();
        r.evict(1 + temps(op, arch), &[], k + 1, &mut acts);
        if r.next_use(*dst, k + 1) != NEVER {
            r.live.push(*dst);
        }
        before[k] = acts;
    }
    // Outputs still in memory are reloaded before they are written out.
    let mut seen = std::collections::HashSet::new();
    for a in node.flat_outputs() {
        if !r.live.contains(&a) && seen.insert(a) {
            if let Some(s) = r.slot[a.0 as usize] {
                before[n].push(Action::Reload(a, s));
            }
        }
    }
    if r.slots == 0 {
        return None;
    }
    Some(Plan { before, slots: r.slots })
}
