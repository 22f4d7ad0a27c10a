//! Inlining of node calls.
//!
//! Requires verified IR. Guarantees verified IR computing the same outputs, where every call
//! to a node chosen by the policy is replaced by a copy of the node's body (fresh atoms; the
//! callee's inputs become the arguments, its outputs the call's results); nodes no longer
//! called are removed (the entry stays last).
//!
//! Policy (`InlinePolicy`): `Default` inlines nodes marked `_inline`, nodes that are pure
//! wiring (only copies and constants, e.g. perms) and tiny nodes (≤ 4 operations besides copies and constants), never
//! `_no_inline` ones; `All` (`-inline-all`) inlines everything not marked `_no_inline`;
//! `Marked` (`-no-inline`) inlines only `_inline` nodes.
//!
//! Before: `node g(a) { b = not a }  node f(x) { y = call g(x) }` → after: `node f(x) { y = not x }`.

use super::Stats;
use crate::fxhash::FxHashSet as HashSet;
use crate::ir::{Instr, Node, Op, Program, VarId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlinePolicy {
    /// `Small` for the program's slicing and target, except bitslice and hslice on SIMD
    /// targets: `All`. Measured with `nakiri bench compare` (raw entry, avx2): inlining
    /// everything is 1.0x (DES) to 2.3x (RECTANGLE) faster in bitslice, since a bitsliced call
    /// passes hundreds of registers through memory; on `std` it was 1.5-2.5x *slower* for DES,
    /// RECTANGLE, Ascon, Serpent, AES (the unrolled code outgrows the instruction cache; README
    /// table). In hslice the S-box node's 8 planes go through memory too: with `sched-bits`
    /// on the inlined body, AES `-H` is 1.36x faster on avx2 and 1.1x on sse, RECTANGLE `-H`
    /// unchanged (README, "hslice defaults"). Vslice on avx512 inlines everything too, with
    /// its round loops unrolled (`--loops auto`, `opt::auto_unrolled`): together 1.04-2.8x
    /// faster on Zen 4 for the shipped sources (README, "Loops"); where a loop stays (DES's
    /// Feistel rounds, `--loops chains`) `Small` ([`InlinePolicy::resolve`]: DES `-V` with
    /// everything inlined into its loop body ran 2.5x slower).
    Default,
    /// `_inline` nodes, pure wiring and nodes of at most 4 operations.
    Small,
    All,
    Marked,
}

impl InlinePolicy {
    /// The policy that applies to a program of this slicing for this target, `loops_kept`
    /// saying whether some loop body stays a node (then vslice on SIMD targets inlines small
    /// nodes only). `opt::run_pass` also says so for vslice on SSE/AVX2 where Intel's rule does
    /// not apply (`opt::vslice_simd_unrolls`): there the small-node policy stays.
    pub fn resolve(
        self,
        slicing: crate::ir::Slicing,
        arch: crate::target::Arch,
        loops_kept: bool,
    ) -> InlinePolicy {
        match self {
            InlinePolicy::Default
                if slicing != crate::ir::Slicing::V && arch != crate::target::Arch::Std =>
            {
                InlinePolicy::All
            }
            InlinePolicy::Default
                if matches!(
                    arch,
                    crate::target::Arch::Avx512
                        | crate::target::Arch::Avx2
                        | crate::target::Arch::Sse
                ) && !loops_kept =>
            {
                InlinePolicy::All
            }
            InlinePolicy::Default => InlinePolicy::Small,
            p => p,
        }
    }
}

fn should_inline(callee: &Node, policy: InlinePolicy, loop_bodies: &[String]) -> bool {
    match callee.inline {
        Some(false) => false,
        Some(true) => true,
        // With `-inline-all`, a loop body made by `outline` stays a node (everything else is
        // inlined into it), so `reroll` still makes its calls a loop.
        None if policy == InlinePolicy::All && loop_bodies.contains(&callee.name) => false,
        None => match policy {
            InlinePolicy::All => true,
            InlinePolicy::Marked => false,
            InlinePolicy::Default | InlinePolicy::Small => {
                let ops = callee
                    .body
                    .iter()
                    .filter(|i| {
                        !matches!(
                            i,
                            Instr::Assign {
                                op: Op::Copy(_) | Op::Const(_),
                                ..
                            }
                        )
                    })
                    .count();
                ops <= 4
            }
        },
    }
}

/// A node body never grows past this by inlining (calls are kept beyond it), so chains of
/// small nodes calling each other cannot blow up exponentially.
pub const MAX_INLINED_BODY: usize = 200_000;

/// Default bound on the instructions all inlining together may copy (`--max-ops` / 8): beyond
/// it, calls are kept. Inlining works bottom-up, so with `-inline-all` a chain of n nodes each
/// calling the previous one copies O(n^2) instructions into nodes that are pruned afterwards;
/// the bound keeps that under a second. The shipped ciphers copy at most ~85 000 with
/// `-inline-all` (photon256), a few thousand by default.
pub const MAX_INLINED_TOTAL: usize = 250_000;

/// Inlines by `policy` with the default bound on copied instructions. Stats: `calls` inlined,
/// `nodes` removed.
pub fn run(prog: &mut Program, policy: InlinePolicy, loop_bodies: &[String]) -> Stats {
    run_bounded(prog, policy, loop_bodies, MAX_INLINED_TOTAL)
}

/// [`run`] with a bound on the instructions copied by all inlining together (calls past it
/// are kept as calls).
pub fn run_bounded(
    prog: &mut Program,
    policy: InlinePolicy,
    loop_bodies: &[String],
    max_total: usize,
) -> Stats {
    let mut st = Stats::default();
    let n = prog.nodes.len();
    let mut total_budget = max_total;
    // Decided on each callee's body once it has been processed (callees come first, so their
    // own calls are already inlined).
    let mut inline: Vec<bool> = Vec::with_capacity(n);
    // Callees come before callers, so processing in order inlines already-flattened bodies.
    for idx in 0..n {
        let (done, rest) = prog.nodes.split_at_mut(idx);
        let node = &mut rest[0];
        if !node
            .body
            .iter()
            .any(|i| matches!(i, Instr::Call { callee, .. } if inline[callee.0 as usize]))
        {
            inline.push(should_inline(node, policy, loop_bodies));
            continue;
        }
        let mut names: HashSet<String> = node.vars.iter().map(|v| v.name.to_string()).collect();
        let mut next_suffix = 0usize;
        let old_body = std::mem::take(&mut node.body);
        let mut body = Vec::with_capacity(old_body.len());
        let mut budget = MAX_INLINED_BODY.saturating_sub(old_body.len());
        for (site, ins) in old_body.into_iter().enumerate() {
            match ins {
                Instr::Call { dsts, callee, args }
                    if inline[callee.0 as usize]
                        && done[callee.0 as usize].body.len() <= budget
                        && done[callee.0 as usize].body.len() <= total_budget =>
                {
                    budget -= done[callee.0 as usize].body.len();
                    st.add("calls", 1);
                    total_budget -= done[callee.0 as usize].body.len();
                    let c = &done[callee.0 as usize];
                    let mut map: Vec<Option<VarId>> = vec![None; c.vars.len()];
                    for (p, a) in c.flat_inputs().iter().zip(&args) {
                        map[p.0 as usize] = Some(*a);
                    }
                    let outs = c.flat_outputs();
                    let mut out_slot: Vec<Option<VarId>> = vec![None; c.vars.len()];
                    for (o, d) in outs.iter().zip(&dsts) {
                        out_slot[o.0 as usize] = Some(*d);
                    }
                    // An output that is directly an input of the callee: copy it.
                    let mut defined = vec![false; c.vars.len()];
                    for ci in &c.body {
                        for d in ci.defs() {
                            defined[d.0 as usize] = true;
                        }
                    }
                    for (o, d) in outs.iter().zip(&dsts) {
                        if let Some(src) = map[o.0 as usize] {
                            if !defined[o.0 as usize] {
                                body.push(Instr::Assign {
                                    dst: *d,
                                    op: Op::Copy(src),
                                });
                            }
                        }
                    }
                    for ci in &c.body {
                        // A copy to an atom of the callee that is not an output is folded: its
                        // uses read the source (a chain of nodes each calling the previous one
                        // would otherwise accumulate one copy per level: quadratic).
                        if let Instr::Assign {
                            dst,
                            op: Op::Copy(src),
                        } = ci
                        {
                            if out_slot[dst.0 as usize].is_none() {
                                map[dst.0 as usize] = Some(
                                    map[src.0 as usize].expect("callee atom defined before use"),
                                );
                                continue;
                            }
                        }
                        let mut ci = ci.clone();
                        // destinations: outputs map to the call's results, others get fresh atoms
                        let defs = ci.defs();
                        for d in defs {
                            let new = match out_slot[d.0 as usize] {
                                Some(x) => x,
                                None => {
                                    let v = c.var(d);
                                    // Names stay short however deep the inlining goes (a
                                    // chain of 3000 nodes must not build 3000-level names).
                                    let stem = short_stem(&v.name);
                                    let mut name = format!("{}_i{}", stem, site);
                                    while names.contains(&name) {
                                        next_suffix += 1;
                                        name = format!("{}_i{}_{}", stem, site, next_suffix);
                                    }
                                    names.insert(name.clone());
                                    node.vars.push(crate::ir::Var {
                                        name: name.into(),
                                        bits: v.bits,
                                    });
                                    VarId(node.vars.len() as u32 - 1)
                                }
                            };
                            map[d.0 as usize] = Some(new);
                        }
                        ci.map_uses(|v| map[v.0 as usize].expect("callee atom defined before use"));
                        ci.map_defs(|v| map[v.0 as usize].expect("callee atom defined"));
                        body.push(ci);
                    }
                }
                other => body.push(other),
            }
        }
        node.body = body;
        inline.push(should_inline(node, policy, loop_bodies));
    }
    let before = prog.nodes.len();
    prune(prog);
    st.add("nodes", before - prog.nodes.len());
    st
}

/// The name an inlined atom is based on: the callee's name for it, cut to 24 characters.
fn short_stem(name: &str) -> &str {
    match name.char_indices().nth(24) {
        Some((cut, _)) => &name[..cut],
        None => name,
    }
}

/// Removes nodes no longer called (the entry, last, always stays), renumbering calls.
fn prune(prog: &mut Program) {
    let n = prog.nodes.len();
    let mut used = vec![false; n];
    used[n - 1] = true;
    for i in (0..n).rev() {
        if !used[i] {
            continue;
        }
        for ins in &prog.nodes[i].body {
            if let Some(callee) = ins.callee() {
                used[callee.0 as usize] = true;
            }
        }
    }
    let order: Vec<usize> = (0..n).filter(|&i| used[i]).collect();
    prog.reorder_nodes(&order);
}
