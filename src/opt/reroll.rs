//! Loop re-rolling: a run of calls of one node becomes one kept loop ([`Instr::Loop`]), which
//! codegen emits as a C `for` loop.
//!
//! Elaboration unrolls every `forall` (indices must be known to flatten tuples, select node
//! arrays and check bounds). Where the iterations turn out to be the same call with different
//! atoms — a round loop `st[i+1] = round(st[i], key[i])`, an S-box layer
//! `forall i { t[i] = sbox(s[i]) }` — this pass keeps the loop instead. A loop whose iterations
//! differ (node arrays `f<i>`, `nat` parameters, different equations) stays unrolled.
//!
//! Requires verified IR (run after inlining and copy propagation). Guarantees verified IR with
//! the same meaning. A run `c_0 .. c_{n-1}` (n >= 2) of calls of the same callee, in body order,
//! becomes one loop when:
//! - *state*: call k+1 reads results of call k at the same (argument, result) positions for
//!   every k (possibly none: a map, kept only when `maps` is set);
//! - every result of the run is read, besides by the next call as state, only after
//!   `c_{n-1}` (a state read there too, like a key schedule's round keys, keeps every value);
//! - the first call passes the same atom wherever a state enters twice.
//!
//! Arguments that are the same atom in every call are passed once (`Same`), the others per
//! iteration (`Each`). The loop takes the place of `c_{n-1}`; the other calls go. That is
//! sound: each call's inputs are defined before it, hence before `c_{n-1}`, and the loop's
//! results are read only after it.
//!
//! Before:
//! ```text
//! s1:8 = call round(s0, k0)
//! s2:8 = call round(s1, k1)
//! s3:8 = call round(s2, k2)
//! ```
//! After (`s1`, `s2` are read by nothing else):
//! ```text
//! loop 3 round state s0->s3:8 args @0 [k0 k1 k2] results @0
//! ```

use crate::ir::{Instr, LoopArg, LoopResult, Node, NodeId, Program, VarId};
use std::collections::BTreeMap;

/// Fewest calls that make a loop.
pub const MIN_ITERATIONS: usize = 2;

/// What the pass did (for tests and `--dump`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub loops: usize,
    pub calls_removed: usize,
}

/// `maps`: also keep runs of independent calls (no state); otherwise only chains.
pub fn run(prog: &mut Program, maps: bool) -> Stats {
    run_except(prog, maps, &[])
}

/// [`run`], leaving runs of calls of the nodes named in `unrolled` unrolled (the autotuner's
/// per-loop choice, `OptConfig::unrolled_loops`).
pub fn run_except(prog: &mut Program, maps: bool, unrolled: &[String]) -> Stats {
    let skip: Vec<NodeId> = prog
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| unrolled.contains(&n.name))
        .map(|(i, _)| NodeId(i as u32))
        .collect();
    let mut stats = Stats::default();
    for node in &mut prog.nodes {
        run_node(node, maps, &skip, &mut stats);
    }
    stats
}

/// A call's fields, borrowed from the body.
struct CallRef<'a> {
    pos: usize,
    dsts: &'a [VarId],
    args: &'a [VarId],
}

/// The first two distinct body positions that read an atom (`usize::MAX` = none).
#[derive(Clone, Copy)]
struct Readers {
    first: usize,
    second: usize,
}

impl Readers {
    const NONE: Readers = Readers {
        first: usize::MAX,
        second: usize::MAX,
    };
    fn add(&mut self, at: usize) {
        if at < self.first {
            self.second = self.first;
            self.first = at;
        } else if at > self.first && at < self.second {
            self.second = at;
        }
    }
    /// The first reader other than position `at`.
    fn other_than(&self, at: usize) -> usize {
        if self.first == at {
            self.second
        } else {
            self.first
        }
    }
}

/// One run found: body positions of its calls, and the carried (argument, result) positions.
struct Run {
    positions: Vec<usize>,
    links: Vec<(usize, usize)>,
}

fn run_node(node: &mut Node, maps: bool, skip: &[NodeId], stats: &mut Stats) {
    sink_output_copies(node);
    let n_atoms = node.vars.len();
    let end = node.body.len();
    // The first two distinct positions reading each atom; a node output counts as read at `end`.
    let mut readers = vec![Readers::NONE; n_atoms];
    let mut note = |v: VarId, at: usize| readers[v.0 as usize].add(at);
    for (pos, ins) in node.body.iter().enumerate() {
        for u in ins.uses() {
            note(u, pos);
        }
    }
    for o in node.flat_outputs() {
        note(o, end);
    }

    // Calls grouped by callee, in body order.
    let mut by_callee: BTreeMap<NodeId, Vec<CallRef>> = BTreeMap::new();
    for (pos, ins) in node.body.iter().enumerate() {
        if let Instr::Call { dsts, callee, args } = ins {
            if skip.contains(callee) {
                continue;
            }
            by_callee
                .entry(*callee)
                .or_default()
                .push(CallRef { pos, dsts, args });
        }
    }
    let mut runs: Vec<Run> = Vec::new();
    for calls in by_callee.values() {
        let mut i = 0;
        while i < calls.len() {
            let len = grow_run(calls, i, &readers);
            if len >= MIN_ITERATIONS
                && (maps || !links_between(&calls[i], &calls[i + 1]).is_empty())
            {
                let links = links_between(&calls[i], &calls[i + 1]);
                runs.push(Run {
                    positions: calls[i..i + len].iter().map(|c| c.pos).collect(),
                    links,
                });
            }
            i += len.max(1);
        }
    }
    if runs.is_empty() {
        return;
    }

    // Rewrite: the loop replaces each run's last call; its other calls go.
    let mut replace: BTreeMap<usize, Instr> = BTreeMap::new();
    let mut remove = vec![false; end];
    for run in &runs {
        let ins = build_loop(node, run, &readers);
        for &p in &run.positions[..run.positions.len() - 1] {
            remove[p] = true;
        }
        replace.insert(*run.positions.last().unwrap(), ins);
        stats.loops += 1;
        stats.calls_removed += run.positions.len() - 1;
    }
    let old = std::mem::take(&mut node.body);
    node.body = old
        .into_iter()
        .enumerate()
        .filter(|(p, _)| !remove[*p])
        .map(|(p, ins)| replace.remove(&p).unwrap_or(ins))
        .collect();
}

/// Moves the copies that define node outputs (and that no instruction reads) to the end of the
/// body, so that they do not stand between the calls of a run.
fn sink_output_copies(node: &mut Node) {
    let mut is_output = vec![false; node.vars.len()];
    for o in node.flat_outputs() {
        is_output[o.0 as usize] = true;
    }
    let mut read = vec![false; node.vars.len()];
    for ins in &node.body {
        for u in ins.uses() {
            read[u.0 as usize] = true;
        }
    }
    let sinkable = |ins: &Instr| matches!(ins, Instr::Assign { dst, op: crate::ir::Op::Copy(_) } if is_output[dst.0 as usize] && !read[dst.0 as usize]);
    let (tail, mut body): (Vec<Instr>, Vec<Instr>) = std::mem::take(&mut node.body)
        .into_iter()
        .partition(|i| sinkable(i));
    body.extend(tail);
    node.body = body;
}

/// The (argument position, result position) pairs where `next` reads a result of `prev`.
fn links_between(prev: &CallRef, next: &CallRef) -> Vec<(usize, usize)> {
    let mut out_pos: BTreeMap<VarId, usize> = BTreeMap::new();
    for (o, d) in prev.dsts.iter().enumerate() {
        out_pos.insert(*d, o);
    }
    next.args
        .iter()
        .enumerate()
        .filter_map(|(p, a)| out_pos.get(a).map(|&o| (p, o)))
        .collect()
}

/// Length of the longest valid run starting at `calls[start]` (1 if none).
fn grow_run(calls: &[CallRef], start: usize, readers: &[Readers]) -> usize {
    let first = &calls[start];
    let Some(second) = calls.get(start + 1) else {
        return 1;
    };
    let links = links_between(first, second);
    // A state entering at two argument positions must start as one atom.
    let mut init: BTreeMap<usize, VarId> = BTreeMap::new();
    for &(p, o) in &links {
        if let Some(prev) = init.insert(o, first.args[p]) {
            if prev != first.args[p] {
                return 1;
            }
        }
    }
    let carried: Vec<bool> = (0..first.dsts.len())
        .map(|o| links.iter().any(|l| l.1 == o))
        .collect();
    // Smallest position reading a result of the calls before the last one, other than the
    // next call reading its states.
    let mut min_each_reader = usize::MAX;
    let mut len = 1;
    for k in start + 1..calls.len() {
        let (prev, next) = (&calls[k - 1], &calls[k]);
        if links_between(prev, next) != links {
            break;
        }
        // prev's results are read, besides `next` reading its states, only after the loop.
        let prev_others = prev
            .dsts
            .iter()
            .enumerate()
            .map(|(o, d)| {
                if carried[o] {
                    readers[d.0 as usize].other_than(next.pos)
                } else {
                    readers[d.0 as usize].first
                }
            })
            .min()
            .unwrap_or(usize::MAX);
        let m = min_each_reader.min(prev_others);
        if m <= next.pos {
            break;
        }
        min_each_reader = m;
        len += 1;
    }
    len
}

fn build_loop(node: &Node, run: &Run, readers: &[Readers]) -> Instr {
    let calls: Vec<(&[VarId], NodeId, &[VarId])> = run
        .positions
        .iter()
        .map(|&p| match &node.body[p] {
            Instr::Call { dsts, callee, args } => (dsts.as_slice(), *callee, args.as_slice()),
            _ => unreachable!("runs are made of calls"),
        })
        .collect();
    let (first_dsts, callee, first_args) = calls[0];
    let last_dsts = calls[calls.len() - 1].0;
    // States, numbered by result position.
    let mut state_of_result: BTreeMap<usize, u32> = BTreeMap::new();
    for &(_, o) in &run.links {
        let next = state_of_result.len() as u32;
        state_of_result.entry(o).or_insert(next);
    }
    let mut state = vec![(VarId(0), VarId(0)); state_of_result.len()];
    for &(p, o) in &run.links {
        let j = state_of_result[&o] as usize;
        state[j] = (first_args[p], last_dsts[o]);
    }
    let arg_state: BTreeMap<usize, u32> = run
        .links
        .iter()
        .map(|&(p, o)| (p, state_of_result[&o]))
        .collect();
    let args: Vec<LoopArg> = (0..first_args.len())
        .map(|p| match arg_state.get(&p) {
            Some(&j) => LoopArg::State(j),
            None => {
                let each: Vec<VarId> = calls.iter().map(|c| c.2[p]).collect();
                if each.iter().all(|a| *a == each[0]) {
                    LoopArg::Same(each[0])
                } else {
                    LoopArg::Each(each)
                }
            }
        })
        .collect();
    let n = calls.len();
    let results: Vec<LoopResult> = (0..first_dsts.len())
        .map(|o| match state_of_result.get(&o) {
            Some(&j) => {
                // A state read outside the loop after some iteration keeps its every value.
                let steps: Vec<VarId> = calls[..n - 1].iter().map(|c| c.0[o]).collect();
                let read_outside = steps
                    .iter()
                    .zip(&run.positions[1..])
                    .any(|(d, &next)| readers[d.0 as usize].other_than(next) != usize::MAX);
                LoopResult::State {
                    state: j,
                    each: if read_outside { steps } else { vec![] },
                }
            }
            None => LoopResult::Each(calls.iter().map(|c| c.0[o]).collect()),
        })
        .collect();
    Instr::Loop {
        callee,
        count: calls.len() as u32,
        state: state.into(),
        args: args.into(),
        results: results.into(),
    }
}
