//! Loop outlining: the iterations of an unrolled `forall` that all compute the same thing
//! become calls of one new node, which `reroll` then turns into a kept loop.
//!
//! Sema unrolls every loop (indices must be known to flatten tuples and check bounds) and
//! records where each iteration's instructions went ([`LoopHint`]). Here each hinted loop
//! (inner loops first) is checked: if every iteration is the same instruction sequence — same
//! ops with the same immediates, same callees, and atoms that play the same part (defined by
//! the same earlier instruction of the iteration, or read from outside in the same order) —
//! the first iteration becomes a node `<node>__loopN` whose inputs are the atoms an iteration
//! reads from outside and whose outputs are the atoms some iteration's outside reads, and every
//! iteration becomes one call of it. Iterations that differ (node arrays `f<i>`, a `nat`
//! argument or a shift taking the index, constants depending on it) leave the loop unrolled.
//!
//! Requires the IR exactly as sema made it (the hints are body positions). Guarantees verified
//! IR with the same meaning: a call takes the place of its iteration's last instruction, which
//! is valid because everything the iteration reads is defined before that instruction, and the
//! outlining is abandoned for the loop if an iteration's result is read before it. Constants
//! stay where they are (sema shares them between iterations), read as inputs.
//! New nodes come right before the node they were taken from (calls go to earlier nodes).
//!
//! Before (`forall i in [0,1] { x[i+1] = (x[i] ^ k[i]) <<< 3 }`):
//! ```text
//! t0:8 = xor x0 k0;  x1:8 = rotl t0 3;  t1:8 = xor x1 k1;  x2:8 = rotl t1 3
//! ```
//! After:
//! ```text
//! node f__loop0: input in0 in1; t:8 = xor in0 in1; out:8 = rotl t 3
//! x1:8 = call f__loop0(x0, k0);  x2:8 = call f__loop0(x1, k1)
//! ```

use crate::ir::{Instr, LoopHint, LoopHints, Node, NodeId, Op, Param, Program, Var, VarId};
use std::collections::{HashMap, HashSet};

/// What the pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Loops whose iterations became calls.
    pub outlined: usize,
    /// Hinted loops left unrolled (iterations differ, or a result is read too early).
    pub kept_unrolled: usize,
}

pub fn run(prog: &mut Program, hints: &LoopHints) -> Stats {
    let mut stats = Stats::default();
    let n_orig = prog.nodes.len();
    let mut taken: HashSet<String> = prog.nodes.iter().map(|n| n.name.clone()).collect();
    // New nodes, each with the original node it was taken from; ids are n_orig + k until the
    // final renumbering.
    let mut new_nodes: Vec<(usize, Node)> = Vec::new();
    for idx in 0..n_orig {
        let Some(hs) = hints.get(&prog.nodes[idx].name) else { continue };
        let node = &mut prog.nodes[idx];
        let mut body: Vec<Option<Instr>> = std::mem::take(&mut node.body).into_iter().map(Some).collect();
        for hint in hs {
            let made = n_orig + new_nodes.len();
            match outline_loop(node, &mut body, hint, NodeId(made as u32), &mut taken) {
                Some(new) => {
                    new_nodes.push((idx, new));
                    stats.outlined += 1;
                }
                None => stats.kept_unrolled += 1,
            }
        }
        node.body = body.into_iter().flatten().collect();
    }
    if new_nodes.is_empty() {
        return stats;
    }
    // Final order: each original node preceded by the nodes taken from it (in creation order).
    let mut order: Vec<usize> = Vec::new(); // old ids (n_orig + k for new node k)
    for idx in 0..n_orig {
        for (k, (from, _)) in new_nodes.iter().enumerate() {
            if *from == idx {
                order.push(n_orig + k);
            }
        }
        order.push(idx);
    }
    let mut remap = vec![NodeId(0); order.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = NodeId(new as u32);
    }
    let mut all: Vec<Option<Node>> = std::mem::take(&mut prog.nodes).into_iter().map(Some).collect();
    all.extend(new_nodes.into_iter().map(|(_, n)| Some(n)));
    for &old in &order {
        let mut n = all[old].take().expect("each node placed once");
        for ins in &mut n.body {
            if let Some(c) = ins.callee() {
                ins.set_callee(remap[c.0 as usize]);
            }
        }
        prog.nodes.push(n);
    }
    stats
}

/// How an atom read by an iteration's instruction relates to the iteration.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Result `out` of the iteration's instruction number `instr`.
    Local { instr: usize, out: usize },
    /// The iteration's `slot`-th distinct atom read from outside.
    Outside { slot: usize },
}

/// One iteration: its instructions' body positions, and what it reads from outside.
struct Iteration {
    positions: Vec<usize>,
    outside: Vec<VarId>,
    /// Every atom it defines → (instruction number, result number).
    defs: HashMap<VarId, (usize, usize)>,
}

/// The op with its operands blanked: equal shapes compute the same function of the operands.
fn op_shape(op: &Op) -> Op {
    let mut o = op.clone();
    o.map_operands(|_| VarId(0));
    o
}

fn outline_loop(node: &mut Node, body: &mut [Option<Instr>], hint: &LoopHint, id: NodeId, taken: &mut HashSet<String>) -> Option<Node> {
    let is_const = |ins: &Instr| matches!(ins, Instr::Assign { op: Op::Const(_), .. });
    let mut iters: Vec<Iteration> = hint
        .iterations
        .iter()
        .map(|ps| Iteration {
            positions: ps.iter().copied().filter(|&p| body.get(p).and_then(|i| i.as_ref()).is_some_and(|i| !is_const(i))).collect(),
            outside: vec![],
            defs: HashMap::new(),
        })
        .collect();
    if iters.len() < 2 || iters[0].positions.is_empty() || iters.iter().any(|it| it.positions.len() != iters[0].positions.len()) {
        return None;
    }
    // Same instruction sequence, atoms in the same roles.
    let len = iters[0].positions.len();
    let mut roles0: Vec<Vec<Role>> = Vec::with_capacity(len);
    for (k, it) in iters.iter_mut().enumerate() {
        let mut seen: HashMap<VarId, usize> = HashMap::new();
        for j in 0..len {
            let ins = body[it.positions[j]].as_ref().unwrap();
            let mut roles = Vec::new();
            for u in ins.uses() {
                let r = match it.defs.get(&u) {
                    Some(&(instr, out)) => Role::Local { instr, out },
                    None => {
                        let next = seen.len();
                        let slot = *seen.entry(u).or_insert(next);
                        if slot == next {
                            it.outside.push(u);
                        }
                        Role::Outside { slot }
                    }
                };
                roles.push(r);
            }
            for (o, d) in ins.defs().into_iter().enumerate() {
                it.defs.insert(d, (j, o));
            }
            if k == 0 {
                roles0.push(roles);
            } else if roles != roles0[j] {
                return None;
            }
        }
    }
    let first = &iters[0];
    for it in &iters[1..] {
        if it.outside.iter().zip(&first.outside).any(|(a, b)| node.bits(*a) != node.bits(*b)) {
            return None;
        }
        for j in 0..len {
            let (a, b) = (body[first.positions[j]].as_ref().unwrap(), body[it.positions[j]].as_ref().unwrap());
            let same = match (a, b) {
                (Instr::Assign { dst: da, op: oa }, Instr::Assign { dst: db, op: ob }) => node.bits(*da) == node.bits(*db) && op_shape(oa) == op_shape(ob),
                (Instr::Call { callee: ca, .. }, Instr::Call { callee: cb, .. }) => ca == cb,
                _ => false,
            };
            if !same {
                return None;
            }
        }
    }

    // Results read outside their iteration (or node outputs), and where: each must be read
    // after its iteration's last instruction, where the call will stand.
    let end = body.len();
    let mut iter_of_pos: HashMap<usize, usize> = HashMap::new();
    let mut def_of: HashMap<VarId, (usize, (usize, usize))> = HashMap::new();
    for (k, it) in iters.iter().enumerate() {
        for &p in &it.positions {
            iter_of_pos.insert(p, k);
        }
        for (&d, &r) in &it.defs {
            def_of.insert(d, (k, r));
        }
    }
    let mut escaping: Vec<(usize, usize)> = Vec::new();
    let read_outside = |u: VarId, at: usize, escaping: &mut Vec<(usize, usize)>| -> bool {
        if let Some(&(k, r)) = def_of.get(&u) {
            if iter_of_pos.get(&at) != Some(&k) {
                if at <= *iters[k].positions.last().unwrap() {
                    return false;
                }
                if !escaping.contains(&r) {
                    escaping.push(r);
                }
            }
        }
        true
    };
    for (p, ins) in body.iter().enumerate() {
        if let Some(ins) = ins {
            for u in ins.uses() {
                if !read_outside(u, p, &mut escaping) {
                    return None;
                }
            }
        }
    }
    for o in node.flat_outputs() {
        if !read_outside(o, end, &mut escaping) {
            return None;
        }
    }
    escaping.sort_unstable();

    // The new node: the first iteration, renamed.
    let mut name = format!("{}__loop", node.name);
    let mut n = 0;
    while taken.contains(&format!("{}{}", name, n)) {
        n += 1;
    }
    name = format!("{}{}", name, n);
    taken.insert(name.clone());
    let mut new = Node { name, inputs: vec![], outputs: vec![], vars: vec![], body: vec![], inline: None };
    let mut map: HashMap<VarId, VarId> = HashMap::new();
    for (s, &a) in first.outside.iter().enumerate() {
        let bits = node.bits(a);
        let v = new.new_var(format!("in{}", s), bits);
        map.insert(a, v);
        new.inputs.push(Param { name: format!("in{}", s), c_dims: vec![], word_bits: bits, atoms: vec![v], is_const: false });
    }
    for &p in &first.positions {
        let mut ins = body[p].clone().unwrap();
        for d in ins.defs() {
            let Var { name, bits } = node.var(d).clone();
            let v = new.new_var(format!("{}_{}", name, new.vars.len()), bits);
            map.insert(d, v);
        }
        ins.map_uses(|u| map[&u]);
        ins.map_defs(|d| map[&d]);
        new.body.push(ins);
    }
    let by_result: HashMap<(usize, usize), VarId> = first.defs.iter().map(|(&d, &r)| (r, d)).collect();
    for (i, r) in escaping.iter().enumerate() {
        let a = map[&by_result[r]];
        new.outputs.push(Param { name: format!("out{}", i), c_dims: vec![], word_bits: node.bits(by_result[r]), atoms: vec![a], is_const: false });
    }

    // Each iteration becomes a call at the place of its last instruction.
    for it in &iters {
        let by_result: HashMap<(usize, usize), VarId> = it.defs.iter().map(|(&d, &r)| (r, d)).collect();
        let dsts = escaping.iter().map(|r| by_result[r]).collect();
        let last = *it.positions.last().unwrap();
        for &p in &it.positions {
            body[p] = None;
        }
        body[last] = Some(Instr::Call { dsts, callee: id, args: it.outside.clone() });
    }
    Some(new)
}
