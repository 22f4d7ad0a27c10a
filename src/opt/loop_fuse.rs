//! Independent kept loops fused into one (`--disable loop-fuse`).
//!
//! Requires: verified IR. Guarantees: verified IR computing the same outputs. A run of
//! `loop` instructions of one trip count, none of which reads what another of the run (or an
//! instruction between them that reads the run's results) writes, becomes one loop of a new
//! body node that runs one iteration of each (their bodies one after the other, on their own
//! atoms). The instructions between the run's loops move: those reading none of the run's
//! results before the fused loop, the others after it (`tests/opt/loop-fuse/apart.ir`); where
//! fewer than two loops gather, the body's order stays. Each loop was a chain whose
//! iterations wait for each other; side by side, the chains' instructions can overlap. ACE's
//! step runs three Simeck boxes of 8 rounds as three kept loops: fused, the three boxes share
//! each iteration.
//! The new node is placed before the node that runs it; bodies no other loop or call runs are
//! removed.
//!
//! A run stops where its loops' state would outgrow the target's registers (a fused body
//! with more would spill its state every iteration). Vslice and hslice (bitsliced kept loops
//! keep their state in memory, `codegen/memloop.rs`, sized for one loop). Stats: `fused`
//! (loops merged into others), `nodes` (bodies made), `moved` (instructions from between
//! fused loops).
//!
//! Before (two loops of 4 iterations on independent states):
//! ```text
//! loop 4 r state a->a2:8 args @0 results @0
//! loop 4 r state b->b2:8 args @0 results @0
//! ```
//! After (`tests/opt/loop-fuse/doc_example.ir`; `r__fused` runs `r` on its first input and again
//! on its second):
//! ```text
//! loop 4 r__fused state a->a2:8 b->b2:8 args @0 @1 results @0 @1
//! ```

use super::{OptConfig, Stats};
use crate::fxhash::FxHashSet as HashSet;
use crate::ir::{Instr, LoopArg, LoopResult, Node, NodeId, Param, Program, Slicing, Var, VarId};

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    if prog.slicing == Slicing::B {
        return st;
    }
    let max_state = cfg.target().n_regs as usize;
    let n = prog.nodes.len();
    // Fused bodies made for node i, as ids past the end.
    let mut made_for: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut names: HashSet<String> = prog.nodes.iter().map(|x| x.name.clone()).collect();
    for (i, made) in made_for.iter_mut().enumerate() {
        let body = std::mem::take(&mut prog.nodes[i].body);
        let mut out = Vec::with_capacity(body.len());
        let mut run = Run::default();
        let finish = |run: &mut Run,
                      out: &mut Vec<Instr>,
                      prog: &mut Program,
                      names: &mut HashSet<String>,
                      made: &mut Vec<usize>,
                      st: &mut Stats| {
            let others = std::mem::take(&mut run.others);
            if run.loops.len() >= 2 {
                let (ins, node) = fuse(prog, &run.loops, names);
                st.add("fused", run.loops.len() - 1);
                st.add("nodes", 1);
                made.push(prog.nodes.len());
                prog.nodes.push(node);
                // Between the loops: what reads none of their results goes before the fused
                // loop, the rest after it; after the last loop: the order stays.
                let n_loops = run.loops.len();
                let (inner, trailing): (Vec<_>, Vec<_>) =
                    others.into_iter().partition(|o| o.0 < n_loops);
                let (before, after): (Vec<_>, Vec<_>) = inner.into_iter().partition(|o| o.1);
                st.add("moved", before.len() + after.len());
                out.extend(before.into_iter().map(|o| o.2));
                out.push(ins);
                out.extend(after.into_iter().chain(trailing).map(|o| o.2));
            } else {
                // Nothing fused: the body's order stays.
                let mut others = others.into_iter().peekable();
                for (k, l) in std::mem::take(&mut run.loops).into_iter().enumerate() {
                    while let Some(o) = others.next_if(|o| o.0 <= k) {
                        out.push(o.2);
                    }
                    out.push(l);
                }
                out.extend(others.map(|o| o.2));
            }
            *run = Run::default();
        };
        for ins in body {
            if !matches!(ins, Instr::Loop { .. }) {
                if run.loops.is_empty() {
                    out.push(ins);
                } else {
                    run.push_other(ins);
                }
                continue;
            }
            if !run.accepts(&ins, max_state) {
                finish(&mut run, &mut out, prog, &mut names, made, &mut st);
            }
            run.push(ins);
        }
        finish(&mut run, &mut out, prog, &mut names, made, &mut st);
        prog.nodes[i].body = out;
    }
    if st.get("nodes") == 0 {
        return st;
    }
    // Order: each fused body right before the node that runs it; then only what the entry
    // reaches.
    let mut order: Vec<usize> = Vec::with_capacity(prog.nodes.len());
    for (i, made) in made_for.iter().enumerate() {
        order.extend(made);
        order.push(i);
    }
    prog.reorder_reachable(order);
    st
}

/// A run of loops being gathered, with the atoms they write and read.
#[derive(Default)]
struct Run {
    loops: Vec<Instr>,
    /// The other instructions after the run's first loop, in body order: (loops before it,
    /// whether it goes before the fused loop, the instruction).
    others: Vec<(usize, bool, Instr)>,
    defs: HashSet<VarId>,
    uses: HashSet<VarId>,
    /// Loop-carried atoms of the loops so far.
    state: usize,
}

impl Run {
    /// Whether `ins` may join: a loop of the run's trip count that neither reads what the run
    /// writes nor writes what the run reads, and whose state, with the run's, stays within
    /// `max_state` atoms (the target's registers; an empty run takes any loop).
    fn accepts(&self, ins: &Instr, max_state: usize) -> bool {
        let count = |i: &Instr| match i {
            Instr::Loop { count, .. } => Some(*count),
            _ => None,
        };
        let Instr::Loop {
            count: k, state, ..
        } = ins
        else {
            return false;
        };
        match self.loops.first() {
            None => true,
            Some(first) => {
                count(first) == Some(*k)
                    && self.state + state.len() <= max_state
                    && !ins.uses().iter().any(|u| self.defs.contains(u))
                    && !ins.defs().iter().any(|d| self.uses.contains(d))
            }
        }
    }

    /// An instruction between the run's loops: one that reads nothing the run writes goes
    /// before the fused loop, the others after it (and what they write counts as the run's,
    /// so no loop reading it joins).
    fn push_other(&mut self, ins: Instr) {
        let before = !ins.uses().iter().any(|u| self.defs.contains(u));
        if !before {
            self.defs.extend(ins.defs().iter().copied());
        }
        self.others.push((self.loops.len(), before, ins));
    }

    fn push(&mut self, ins: Instr) {
        if let Instr::Loop { state, .. } = &ins {
            self.state += state.len();
        }
        self.defs.extend(ins.defs().iter().copied());
        self.uses.extend(ins.uses().iter().copied());
        self.loops.push(ins);
    }
}

/// One loop running every loop of `run` side by side, and its body node (callees of the run
/// are read from `prog`).
fn fuse(prog: &Program, run: &[Instr], names: &mut HashSet<String>) -> (Instr, Node) {
    let mut node = Node {
        name: String::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        vars: Vec::new(),
        body: Vec::new(),
        inline: None,
        lockstep: false,
    };
    let (mut state, mut args, mut results) = (Vec::new(), Vec::new(), Vec::new());
    let (mut var_names, mut param_names) = (HashSet::default(), HashSet::default());
    let mut count = 0;
    for (c, ins) in run.iter().enumerate() {
        let Instr::Loop {
            callee,
            count: k,
            state: s,
            args: a,
            results: r,
        } = ins
        else {
            unreachable!("a run holds loops")
        };
        count = *k;
        let body = &prog.nodes[callee.0 as usize];
        if c == 0 {
            node.name = fresh_name(&format!("{}__fused", body.name), names);
        }
        // The body's atoms, renamed apart (`name__fC` for copies after the first).
        // (names unique in the new node: a body's own `y__f1` and another's `y` may meet)
        let base = node.vars.len() as u32;
        let rename = |v: VarId| VarId(base + v.0);
        for v in &body.vars {
            let name = unique(&v.name, c, &mut var_names);
            node.vars.push(Var {
                name: name.into(),
                bits: v.bits,
            });
        }
        for (ps, to) in [
            (&body.inputs, &mut node.inputs),
            (&body.outputs, &mut node.outputs),
        ] {
            for p in ps {
                to.push(Param {
                    name: unique(&p.name, c, &mut param_names),
                    atoms: p.atoms.iter().map(|&v| rename(v)).collect(),
                    ..p.clone()
                });
            }
        }
        for i in &body.body {
            let mut i = i.clone();
            i.map_uses(rename);
            i.map_defs(rename);
            node.body.push(i);
        }
        let s0 = state.len() as u32;
        state.extend(s.iter().copied());
        args.extend(a.iter().map(|x| match x {
            LoopArg::State(j) => LoopArg::State(j + s0),
            other => other.clone(),
        }));
        results.extend(r.iter().map(|x| match x {
            LoopResult::State { state, each } => LoopResult::State {
                state: state + s0,
                each: each.clone(),
            },
            other => other.clone(),
        }));
    }
    let ins = Instr::Loop {
        callee: NodeId(prog.nodes.len() as u32),
        count,
        state: state.into(),
        args: args.into(),
        results: results.into(),
    };
    (ins, node)
}

/// The name of `name` in copy `c` of a fused body: itself in the first, `name__fC` in the
/// others; `fresh_name` of that if taken.
fn unique(name: &str, c: usize, taken: &mut HashSet<String>) -> String {
    let base = if c == 0 {
        name.to_string()
    } else {
        format!("{}__f{}", name, c)
    };
    fresh_name(&base, taken)
}

/// `base`, or `base2`, `base3`, ... : a name not taken yet (then taken).
fn fresh_name(base: &str, names: &mut HashSet<String>) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while names.contains(&name) {
        name = format!("{}{}", base, k);
        k += 1;
    }
    names.insert(name.clone());
    name
}
