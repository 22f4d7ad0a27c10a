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
//! **Homes.** In a body the lockstep scheduler ordered (`opt/sched_pairs.rs`, `Node::lockstep`),
//! a loop-carried value the plan would store before its first use anyway gets a *home*
//! (`nk_home[h]`, declared by the loop around, passed to the body): the body reads it from
//! there where it needs it and writes the next iteration's value there (as a spill, as soon
//! as the old value is dead), so it never occupies a register across the iteration boundary,
//! and is not stored at the start of each iteration and reloaded at the end. This is what
//! OpenSSL's ChaCha20 does with two `c` rows. ChaCha20 `-V` with both: 0.91x the time on
//! avx2 (README, "The lockstep scheduler and homes").
//!
//! The register model: every operand must be in a register when an instruction runs, except
//! constants (folded as memory operands); a rotate without a native instruction needs one
//! extra register for the shifted copy. Values the body's inputs bring in are in registers at
//! the start (the loop keeps them there), as far as there is room.

use crate::ir::{Instr, LoopArg, LoopResult, Node, Op, Program, Slicing, VarId};
use crate::target::Arch;

/// Where a value waits in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// `nk_sp[k]`, local to one run of the body.
    Slot(usize),
    /// `nk_home[h]`: a loop-carried value that stays in memory across iterations ([`Home`]).
    Home(usize),
}

/// What to emit before an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Store the value at the location and drop it from the registers.
    Spill(VarId, Loc),
    /// Load the value back from the location (a fresh C local from here on).
    Reload(VarId, Loc),
}

/// A loop-carried value kept in memory across iterations: flat input `input` of the body
/// reads it from `nk_home[h]`, and the body writes its flat output `output` (the same state
/// for the next iteration) there instead of returning it. The loop around declares the
/// homes, stores the initial values before the first iteration and reads the final ones
/// after the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Home {
    pub input: usize,
    pub output: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// `before[k]`: actions before body instruction k; `before[body.len()]`: before the outputs
    /// are written.
    pub before: Vec<Vec<Action>>,
    /// Spill slots, one per spilled value (a value is stored once, reloaded as often as needed).
    pub slots: usize,
    /// Homes, `nk_home[h]` for `homes[h]`.
    pub homes: Vec<Home>,
}

/// The slicings and targets where explicit spilling (and so the lockstep scheduler, and the
/// tuner's `spill` knob) can change the C: vslice on SSE/AVX2/AVX-512 ([`plan_for`] says why).
pub fn applies(slicing: Slicing, arch: Arch) -> bool {
    slicing == Slicing::V && matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512)
}

/// Per node, the loop-carried values that may get a [`Home`]: for a node that is the body
/// of exactly one kept loop and called nowhere else, each state the loop passes from output
/// `output` of one iteration to input `input` of the next (and does not also collect per
/// iteration); for every other node, none.
pub fn carried(prog: &Program) -> Vec<Vec<Home>> {
    prog.sole_loop_sites()
        .into_iter()
        .map(|site| {
            let Some((ni, k)) = site else {
                return Vec::new();
            };
            let Instr::Loop { args, results, .. } = &prog.nodes[ni].body[k] else {
                return Vec::new();
            };
            let mut homes = Vec::new();
            for (o, r) in results.iter().enumerate() {
                if let LoopResult::State { state: j, each } = r {
                    let ps: Vec<usize> = (0..args.len())
                        .filter(|&p| args[p] == LoopArg::State(*j))
                        .collect();
                    if each.is_empty() && ps.len() == 1 {
                        homes.push(Home {
                            input: ps[0],
                            output: o,
                        });
                    }
                }
            }
            homes
        })
        .collect()
}

impl Plan {
    /// Stores and loads the plan adds per run of the body.
    pub fn memory_ops(&self) -> usize {
        self.before.iter().map(Vec::len).sum()
    }

    /// The home of flat output `o`, if it has one (the body does not return it).
    pub fn home_of_output(&self, o: usize) -> Option<usize> {
        self.homes.iter().position(|h| h.output == o)
    }
}

/// The plan for node `node` compiled for `arch` in `slicing`, if explicit spilling applies:
/// a kept-loop body (`loop_body`) in vslice on SSE/AVX2/AVX-512 that needs more registers than
/// the target has. Not in hslice: its big S-box bodies ran 1.6-2.8x slower (AES, GIFT,
/// SPONGENT; gcc's own allocator rematerialises constants and copies, this plan does not).
/// GP registers are left to the C compiler (its allocator does well there), NEON is not
/// measured.
///
/// `carried`: the body's loop-carried values that may get a [`Home`] (the loop around passes
/// output `output` back as input `input` of the next iteration, and nothing else reads it).
/// Those the plan would store before their first use anyway get one: they then stay in
/// memory across the iteration boundary instead of being reloaded into registers at its end
/// and stored again at the start of the next (ChaCha20 `-V`: two `c` rows, as in OpenSSL).
pub fn plan_for(
    node: &Node,
    arch: Arch,
    slicing: Slicing,
    loop_body: bool,
    carried: &[Home],
) -> Option<Plan> {
    if !applies(slicing, arch) || !loop_body {
        return None;
    }
    let regs = super::Target::new(arch).n_regs as usize;
    let (plan0, cold) = plan(node, arch, regs, &[]);
    let plan0 = plan0?;
    let ins = node.flat_inputs();
    let outs = node.flat_outputs();
    let defined: crate::fxhash::FxHashSet<VarId> =
        node.body.iter().flat_map(|i| i.defs()).collect();
    let homes: Vec<Home> = carried
        .iter()
        .copied()
        .filter(|h| {
            let (a, v) = (ins[h.input], outs[h.output]);
            cold.contains(&a)
                && ins.iter().filter(|&&x| x == a).count() == 1
                && !outs.contains(&a)
                && defined.contains(&v)
                && outs.iter().filter(|&&x| x == v).count() == 1
        })
        .collect();
    if homes.is_empty() {
        return Some(plan0);
    }
    plan(node, arch, regs, &homes).0.or(Some(plan0))
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
    /// Where every value stored so far is.
    slot: Vec<Option<Loc>>,
    slots: usize,
    regs: usize,
    /// Per value, the home it may be stored to once the home's input is dead: `(h, input)`.
    home_out: Vec<Option<(usize, VarId)>>,
    /// Values stored before their first use.
    cold: Vec<VarId>,
}

impl Regs {
    /// Whether `v` is a homed output not stored yet.
    fn pending_home(&self, v: VarId) -> bool {
        self.home_out[v.0 as usize].is_some() && self.slot[v.0 as usize].is_none()
    }

    /// The first use of `v` at or after instruction `k`.
    fn next_use(&mut self, v: VarId, k: usize) -> usize {
        let us = &self.uses[v.0 as usize];
        let c = &mut self.cursor[v.0 as usize];
        while *c < us.len() && us[*c] < k {
            *c += 1;
        }
        us.get(*c).copied().unwrap_or(NEVER)
    }

    /// Gives `v` a location (its home if it has one and the home is free from instruction `k`
    /// on) and records its store, unless it is already in memory.
    fn store(&mut self, v: VarId, k: usize, acts: &mut Vec<Action>) {
        if self.slot[v.0 as usize].is_some() {
            return;
        }
        if self.cursor[v.0 as usize] == 0 {
            self.cold.push(v);
        }
        let home = self.home_out[v.0 as usize];
        let loc = match home {
            Some((h, input)) if self.next_use(input, k) == NEVER => Loc::Home(h),
            _ => {
                self.slots += 1;
                Loc::Slot(self.slots - 1)
            }
        };
        self.slot[v.0 as usize] = Some(loc);
        acts.push(Action::Spill(v, loc));
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
            self.store(v, k, acts);
        }
    }
}

/// The spill plan for a straight-line body (only `Assign`s) with `regs` registers and these
/// homes, or None if the body has calls or loops, or never needs more registers than there
/// are (no spill: the C stays as it was); and the values stored before their first use.
pub fn plan(node: &Node, arch: Arch, regs: usize, homes: &[Home]) -> (Option<Plan>, Vec<VarId>) {
    if node.body.iter().any(|i| !matches!(i, Instr::Assign { .. })) || regs < 4 {
        return (None, Vec::new());
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
    let flat_ins = node.flat_inputs();
    let flat_outs = node.flat_outputs();
    let homed_out = |o: usize| homes.iter().any(|h| h.output == o);
    for (o, a) in flat_outs.iter().enumerate() {
        if !homed_out(o) {
            uses[a.0 as usize].push(n);
        }
    }
    let mut before: Vec<Vec<Action>> = vec![Vec::new(); n + 1];
    let mut r = Regs {
        uses,
        cursor: vec![0; nv],
        live: Vec::new(),
        slot: vec![None; nv],
        slots: 0,
        regs,
        home_out: vec![None; nv],
        cold: Vec::new(),
    };
    for (h, home) in homes.iter().enumerate() {
        r.slot[flat_ins[home.input].0 as usize] = Some(Loc::Home(h));
        r.home_out[flat_outs[home.output].0 as usize] = Some((h, flat_ins[home.input]));
    }

    // Inputs: the ones used soonest start in registers, the others are stored at once.
    let mut ins: Vec<VarId> = flat_ins
        .iter()
        .copied()
        .filter(|a| !r.uses[a.0 as usize].is_empty() && r.slot[a.0 as usize].is_none())
        .collect();
    ins.sort_by_key(|a| r.uses[a.0 as usize][0]);
    ins.dedup();
    for (i, a) in ins.iter().enumerate() {
        if i < regs - 1 {
            r.live.push(*a);
        } else {
            r.store(*a, 0, &mut before[0]);
        }
    }
    for (k, ins) in node.body.iter().enumerate() {
        let Instr::Assign { dst, op } = ins else {
            unreachable!()
        };
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
        // Operands used for the last time free their registers for the result (a homed
        // output keeps its register until it is stored).
        let live = std::mem::take(&mut r.live);
        r.live = live
            .into_iter()
            .filter(|v| r.next_use(*v, k + 1) != NEVER || r.pending_home(*v))
            .collect();
        r.evict(1 + temps(op, arch), &[], k + 1, &mut acts);
        if r.next_use(*dst, k + 1) != NEVER || r.pending_home(*dst) {
            r.live.push(*dst);
        }
        // Homed outputs no instruction reads any more go home once it is free.
        for home in homes {
            let (v, a) = (flat_outs[home.output], flat_ins[home.input]);
            if r.live.contains(&v) && r.next_use(v, k + 1) == NEVER && r.next_use(a, k + 1) == NEVER
            {
                r.live.retain(|x| *x != v);
                let mut after = Vec::new();
                r.store(v, k + 1, &mut after);
                before[k + 1].extend(after);
            }
        }
        before[k] = acts;
    }
    // Homed outputs not yet in their home go there (reloaded first if they wait elsewhere);
    // other outputs still in memory are reloaded before they are written out.
    for (h, home) in homes.iter().enumerate() {
        let v = flat_outs[home.output];
        match r.slot[v.0 as usize] {
            Some(Loc::Home(g)) if g == h => {}
            s => {
                if !r.live.contains(&v) {
                    before[n].push(Action::Reload(
                        v,
                        s.expect("a value not in a register was spilled"),
                    ));
                }
                before[n].push(Action::Spill(v, Loc::Home(h)));
            }
        }
    }
    let mut seen = crate::fxhash::FxHashSet::default();
    for (o, &a) in flat_outs.iter().enumerate() {
        if !homed_out(o) && !r.live.contains(&a) && seen.insert(a) {
            if let Some(s) = r.slot[a.0 as usize] {
                before[n].push(Action::Reload(a, s));
            }
        }
    }
    let cold = std::mem::take(&mut r.cold);
    if r.slots == 0 && homes.is_empty() {
        return (None, cold);
    }
    (
        Some(Plan {
            before,
            slots: r.slots,
            homes: homes.to_vec(),
        }),
        cold,
    )
}
