//! Inlining of node calls.
//!
//! Requires verified IR. Guarantees verified IR computing the same outputs, where every call
//! to a node chosen by the policy is replaced by a copy of the node's body (fresh atoms; the
//! callee's inputs become the arguments, its outputs the call's results); nodes no longer
//! called are removed (the entry stays last).
//!
//! Policy (`InlinePolicy`): `Default` inlines nodes marked `_inline`, nodes that are pure
//! wiring (only copies and constants, e.g. perms) and tiny nodes (≤ 4 instructions), never
//! `_no_inline` ones; `All` (`-inline-all`) inlines everything not marked `_no_inline`;
//! `Marked` (`-no-inline`) inlines only `_inline` nodes.
//!
//! Before: `node g(a) { b = not a }  node f(x) { y = call g(x) }` → after: `node f(x) { y = not x }`.

use crate::ir::{Instr, Node, NodeId, Op, Program, VarId};
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlinePolicy {
    Default,
    All,
    Marked,
}

fn should_inline(callee: &Node, policy: InlinePolicy) -> bool {
    match callee.inline {
        Some(false) => false,
        Some(true) => true,
        None => match policy {
            InlinePolicy::All => true,
            InlinePolicy::Marked => false,
            InlinePolicy::Default => {
                callee.body.len() <= 4 || callee.body.iter().all(|i| matches!(i, Instr::Assign { op: Op::Copy(_) | Op::Const(_), .. }))
            }
        },
    }
}

pub fn run(prog: &mut Program, policy: InlinePolicy) {
    let n = prog.nodes.len();
    let inline: Vec<bool> = prog.nodes.iter().map(|nd| should_inline(nd, policy)).collect();
    // Callees come before callers, so processing in order inlines already-flattened bodies.
    for idx in 0..n {
        let (done, rest) = prog.nodes.split_at_mut(idx);
        let node = &mut rest[0];
        if !node.body.iter().any(|i| matches!(i, Instr::Call { callee, .. } if inline[callee.0 as usize])) {
            continue;
        }
        let mut names: HashSet<String> = node.vars.iter().map(|v| v.name.clone()).collect();
        let old_body = std::mem::take(&mut node.body);
        let mut body = Vec::with_capacity(old_body.len());
        for (site, ins) in old_body.into_iter().enumerate() {
            match ins {
                Instr::Call { dsts, callee, args } if inline[callee.0 as usize] => {
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
                    for (o, d) in outs.iter().zip(&dsts) {
                        if let Some(src) = map[o.0 as usize] {
                            if !c.body.iter().any(|i| i.defs().contains(o)) {
                                body.push(Instr::Assign { dst: *d, op: Op::Copy(src) });
                            }
                        }
                    }
                    for ci in &c.body {
                        let mut ci = ci.clone();
                        // destinations: outputs map to the call's results, others get fresh atoms
                        let defs = ci.defs();
                        for d in defs {
                            let new = match out_slot[d.0 as usize] {
                                Some(x) => x,
                                None => {
                                    let v = c.var(d);
                                    let mut name = format!("{}_i{}", v.name, site);
                                    let mut k = 0;
                                    while names.contains(&name) {
                                        k += 1;
                                        name = format!("{}_i{}_{}", v.name, site, k);
                                    }
                                    names.insert(name.clone());
                                    node.vars.push(crate::ir::Var { name, bits: v.bits });
                                    VarId(node.vars.len() as u32 - 1)
                                }
                            };
                            map[d.0 as usize] = Some(new);
                        }
                        let m = |v: VarId| map[v.0 as usize].expect("callee atom defined before use");
                        match &mut ci {
                            Instr::Assign { dst, op } => {
                                op.map_operands(m);
                                *dst = m(*dst);
                            }
                            Instr::Call { dsts, args, .. } => {
                                for a in args.iter_mut() {
                                    *a = m(*a);
                                }
                                for d in dsts.iter_mut() {
                                    *d = m(*d);
                                }
                            }
                        }
                        body.push(ci);
                    }
                }
                other => body.push(other),
            }
        }
        node.body = body;
    }
    prune(prog);
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
            if let Instr::Call { callee, .. } = ins {
                used[callee.0 as usize] = true;
            }
        }
    }
    let mut remap = vec![0u32; n];
    let mut k = 0;
    for i in 0..n {
        if used[i] {
            remap[i] = k;
            k += 1;
        }
    }
    let nodes = std::mem::take(&mut prog.nodes);
    for (i, mut node) in nodes.into_iter().enumerate() {
        if !used[i] {
            continue;
        }
        for ins in &mut node.body {
            if let Instr::Call { callee, .. } = ins {
                *callee = NodeId(remap[callee.0 as usize]);
            }
        }
        prog.nodes.push(node);
    }
}
