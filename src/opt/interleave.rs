//! Interleaving: `k` copies of the program on independent instances in one call, their
//! instructions alternated `granularity` at a time, so that an in-order stretch of code always
//! has independent work (usubac `-inter-factor K`, `-interleave G`; nakiri `--interleave K`,
//! `--interleave-granularity G`). Off (factor 1) by default.
//!
//! Requires: verified IR. Guarantees: verified IR whose entry computes the original entry on
//! `k` instances at once. The entry's ABI is usubac's (`shared/spec/compat.md` C7): every
//! non-`const` parameter, input or output, appears `k` times, each copy right after the
//! previous one (`x`, `x__2`, ...); `const` inputs appear once and are shared by the copies
//! (their computations are then equal in every copy, and `cse` keeps one). A call becomes one
//! call of the callee's interleaved version `f_x<k>` (its parameters likewise repeated, none
//! shared), a kept loop one loop of it: calls are interleaved at their arguments.
//!
//! Stats: `copies` (the factor), `nodes` (interleaved versions made).
//!
//! Before (k = 2, granularity 1):
//! ```text
//! node f
//!   input a [] word 8 = a
//!   output y [] word 8 = y
//!   t:8 = not a
//!   y:8 = rotl t 1
//! end
//! ```
//! After:
//! ```text
//! node f
//!   input a [] word 8 = a
//!   input a__2 [] word 8 = a__2
//!   output y [] word 8 = y
//!   output y__2 [] word 8 = y__2
//!   t:8 = not a
//!   t__2:8 = not a__2
//!   y:8 = rotl t 1
//!   y__2:8 = rotl t__2 1
//! end
//! ```

use super::{OptConfig, Stats};
use crate::fxhash::FxHashMap as HashMap;
use crate::ir::{Instr, LoopArg, LoopResult, Node, NodeId, Param, Program, Var, VarId};

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    let k = cfg.interleave.max(1) as usize;
    if k == 1 || prog.nodes.is_empty() {
        return st;
    }
    let g = cfg.interleave_granularity.max(1);
    let entry = prog.nodes.len() - 1;
    let mut made: Vec<Node> = Vec::new();
    let mut memo: HashMap<usize, NodeId> = HashMap::default();
    let first_new = entry; // new nodes are inserted before the entry
    let new_entry = interleave_node(prog, entry, k, g, true, &mut made, &mut memo, first_new);
    st.add("copies", k);
    st.add("nodes", made.len());
    let old_entry = prog.nodes.pop().expect("entry");
    drop(old_entry);
    prog.nodes.extend(made);
    prog.nodes.push(new_entry);
    prog.interleave *= k as u32;
    // Callees of the old entry that nothing calls any more are removed.
    let n = prog.nodes.len();
    prog.reorder_reachable((0..n).collect());
    st
}

/// The k-interleaved version of node `idx`: returned for the entry (`is_entry`), pushed to
/// `made` for callees (ids `first_new + position in made`).
#[allow(clippy::too_many_arguments)]
fn interleave_node(
    prog: &Program,
    idx: usize,
    k: usize,
    g: usize,
    is_entry: bool,
    made: &mut Vec<Node>,
    memo: &mut HashMap<usize, NodeId>,
    first_new: usize,
) -> Node {
    let old = &prog.nodes[idx];
    // An interleaved callee is `k` times its original: marked `_inline` (the C compiler's
    // inliner would otherwise stop inlining what it inlined at k = 1, and the calls would
    // pass their arguments through memory: Serpent -V std 2.7x slower), unless `_no_inline`.
    let inline = if is_entry {
        old.inline
    } else {
        Some(old.inline != Some(false))
    };
    let mut node = Node {
        name: if is_entry {
            old.name.clone()
        } else {
            format!("{}_x{}", old.name, k)
        },
        inputs: vec![],
        outputs: vec![],
        vars: vec![],
        body: vec![],
        inline,
        lockstep: false,
    };
    // map[c][v]: the atom of copy c for old atom v.
    let mut map: Vec<Vec<Option<VarId>>> = vec![vec![None; old.vars.len()]; k];
    let copy_name = |name: &str, c: usize| {
        if c == 0 {
            name.to_string()
        } else {
            format!("{}__{}", name, c + 1)
        }
    };
    let new_var = |node: &mut Node, v: &Var, c: usize| -> VarId {
        node.vars.push(Var {
            name: copy_name(&v.name, c).into(),
            bits: v.bits,
        });
        VarId(node.vars.len() as u32 - 1)
    };
    for (is_input, params) in [(true, &old.inputs), (false, &old.outputs)] {
        for p in params {
            let shared = is_entry && is_input && p.is_const;
            for c in 0..k {
                if shared && c > 0 {
                    for &a in &p.atoms {
                        map[c][a.0 as usize] = map[0][a.0 as usize];
                    }
                    continue;
                }
                let atoms: Vec<VarId> = p
                    .atoms
                    .iter()
                    .map(|&a| match map[c][a.0 as usize] {
                        Some(x) => x, // an output that is also an input
                        None => {
                            let x = new_var(&mut node, old.var(a), c);
                            map[c][a.0 as usize] = Some(x);
                            x
                        }
                    })
                    .collect();
                let np = Param {
                    name: copy_name(&p.name, c),
                    c_dims: p.c_dims.clone(),
                    word_bits: p.word_bits,
                    atoms,
                    is_const: p.is_const && shared,
                };
                if is_input {
                    node.inputs.push(np);
                } else {
                    node.outputs.push(np);
                }
            }
        }
    }
    // Atoms defined by the body (outputs already have theirs).
    for ins in &old.body {
        for d in ins.defs() {
            for (c, row) in map.iter_mut().enumerate().take(k) {
                if row[d.0 as usize].is_none() {
                    row[d.0 as usize] = Some(new_var(&mut node, old.var(d), c));
                }
            }
        }
    }
    let m = |c: usize, v: VarId| map[c][v.0 as usize].expect("every atom mapped");
    // Segments of plain instructions, separated by calls and loops (sync points: a combined
    // call needs every copy's arguments).
    let mut pending: Vec<&Instr> = Vec::new();
    let flush = |pending: &mut Vec<&Instr>, body: &mut Vec<Instr>| {
        for chunk in pending.chunks(g) {
            for c in 0..k {
                for ins in chunk {
                    let mut ni = (*ins).clone();
                    ni.map_uses(|v| m(c, v));
                    ni.map_defs(|v| m(c, v));
                    body.push(ni);
                }
            }
        }
        pending.clear();
    };
    let mut body = Vec::new();
    for ins in &old.body {
        match ins {
            Instr::Assign { .. } => pending.push(ins),
            Instr::Call { dsts, callee, args } => {
                flush(&mut pending, &mut body);
                let cid = callee_xk(prog, callee.0 as usize, k, g, made, memo, first_new);
                let c_old = &prog.nodes[callee.0 as usize];
                body.push(Instr::Call {
                    dsts: spread(&c_old.outputs, dsts, k, &m),
                    callee: cid,
                    args: spread(&c_old.inputs, args, k, &m),
                });
            }
            Instr::Loop {
                callee,
                count,
                state,
                args,
                results,
            } => {
                flush(&mut pending, &mut body);
                let cid = callee_xk(prog, callee.0 as usize, k, g, made, memo, first_new);
                let c_old = &prog.nodes[callee.0 as usize];
                let ns = state.len();
                let mut new_state = vec![(VarId(0), VarId(0)); ns * k];
                for (j, (init, last)) in state.iter().enumerate() {
                    for c in 0..k {
                        new_state[j * k + c] = (m(c, *init), m(c, *last));
                    }
                }
                let new_args: Vec<LoopArg> = spread_items(&c_old.inputs, args, k, |a, c| match a {
                    LoopArg::State(j) => LoopArg::State(*j * k as u32 + c as u32),
                    LoopArg::Same(x) => LoopArg::Same(m(c, *x)),
                    LoopArg::Each(xs) => LoopArg::Each(xs.iter().map(|x| m(c, *x)).collect()),
                });
                let new_results: Vec<LoopResult> =
                    spread_items(&c_old.outputs, results, k, |r, c| match r {
                        LoopResult::State { state, each } => LoopResult::State {
                            state: *state * k as u32 + c as u32,
                            each: each.iter().map(|x| m(c, *x)).collect(),
                        },
                        LoopResult::Each(xs) => {
                            LoopResult::Each(xs.iter().map(|x| m(c, *x)).collect())
                        }
                    });
                body.push(Instr::Loop {
                    callee: cid,
                    count: *count,
                    state: new_state.into(),
                    args: new_args.into(),
                    results: new_results.into(),
                });
            }
        }
    }
    flush(&mut pending, &mut body);
    node.body = body;
    node
}

/// The id of the interleaved version of callee `idx` (made once).
fn callee_xk(
    prog: &Program,
    idx: usize,
    k: usize,
    g: usize,
    made: &mut Vec<Node>,
    memo: &mut HashMap<usize, NodeId>,
    first_new: usize,
) -> NodeId {
    if let Some(&id) = memo.get(&idx) {
        return id;
    }
    let n = interleave_node(prog, idx, k, g, false, made, memo, first_new);
    let id = NodeId((first_new + made.len()) as u32);
    made.push(n);
    memo.insert(idx, id);
    id
}

/// The atoms of a call's flattened arguments (or results) in the interleaved callee's order:
/// per parameter, copy 0's atoms, then copy 1's, ...
fn spread(
    params: &[Param],
    flat: &[VarId],
    k: usize,
    m: &dyn Fn(usize, VarId) -> VarId,
) -> Vec<VarId> {
    spread_items(params, flat, k, |v, c| m(c, *v))
}

fn spread_items<T, U>(
    params: &[Param],
    flat: &[T],
    k: usize,
    f: impl Fn(&T, usize) -> U,
) -> Vec<U> {
    let mut out = Vec::with_capacity(flat.len() * k);
    let mut pos = 0;
    for p in params {
        let n = p.atoms.len();
        for c in 0..k {
            for item in &flat[pos..pos + n] {
                out.push(f(item, c));
            }
        }
        pos += n;
    }
    out
}
