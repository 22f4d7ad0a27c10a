//! Loop outlining: the iterations of an unrolled `forall` that all compute the same thing
//! become calls of one new node, which `reroll` then turns into a kept loop.
//!
//! Sema unrolls every loop (indices must be known to flatten tuples and check bounds) and
//! records where each iteration's instructions went ([`LoopHint`]). Here each hinted loop
//! (outer loops first; loops nested in an outlined loop stay unrolled inside its new node) is
//! checked: if every iteration is the same instruction sequence — same
//! ops with the same immediates, same callees, and atoms that play the same part (defined by
//! the same earlier instruction of the iteration, or read from outside in the same order) —
//! the first iteration becomes a node `<node>__loopN` whose inputs are the atoms an iteration
//! reads from outside and whose outputs are the atoms some iteration's outside reads, and every
//! iteration becomes one call of it. Unless `maps` is set, only *chains* are outlined: loops
//! whose every iteration reads a result of the one before (independent iterations are left
//! unrolled for the C compiler to interleave). Iterations that differ (node arrays `f<i>`, a `nat`
//! argument or a shift taking the index, constants depending on it) leave the loop unrolled.
//!
//! An iteration is outlined only if its work (operations, plus the work of each node it calls)
//! is at least [`MIN_WORK_PER_ATOM`] times the atoms it reads and writes (a call and its
//! argument arrays cost about one move per atom), or if the whole unrolled loop is at least
//! [`UNROLLED_WORK_LIMIT`] operations (too big for the instruction cache); smaller bodies stay
//! unrolled.
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

use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::ir::{Instr, LoopHint, LoopHints, Node, NodeId, Op, Param, Program, Var, VarId};

/// What the pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Loops whose iterations became calls.
    pub outlined: usize,
    /// Hinted loops left unrolled (iterations differ, or a result is read too early).
    pub kept_unrolled: usize,
    /// Names of the new nodes (loop bodies): the inliner keeps them, so their loops stay.
    pub bodies: Vec<String>,
}

/// `maps`: also outline loops whose iterations are independent; otherwise only chains.
pub fn run(prog: &mut Program, hints: &LoopHints, maps: bool) -> Stats {
    let mut stats = Stats::default();
    let n_orig = prog.nodes.len();
    let mut taken: HashSet<String> = prog.nodes.iter().map(|n| n.name.clone()).collect();
    // New nodes, each with the original node it was taken from; ids are n_orig + k until the
    // final renumbering.
    let mut new_nodes: Vec<(usize, Node)> = Vec::new();
    // The work of every node, new ones included (what a call stands for).
    let mut sizes: Vec<usize> = Vec::with_capacity(n_orig);
    for n in &prog.nodes {
        let w = work(&n.body, &sizes);
        sizes.push(w);
    }
    for idx in 0..n_orig {
        let Some(hs) = hints.get(&prog.nodes[idx].name) else {
            continue;
        };
        let node = &mut prog.nodes[idx];
        let mut body: Vec<Option<Instr>> = std::mem::take(&mut node.body)
            .into_iter()
            .map(Some)
            .collect();
        let mut index = BodyIndex::new(node, &body);
        // Positions inside a loop already outlined: the loops nested there stay unrolled in
        // the new node's body (as a hand-written round function unrolls its inner loops).
        let mut inside = vec![false; body.len()];
        // Outer loops first (sema lists inner loops first).
        for hint in hs.iter().rev() {
            if hint
                .iterations
                .iter()
                .flatten()
                .any(|&p| inside.get(p).copied().unwrap_or(true))
            {
                continue;
            }
            let made = NodeId((n_orig + new_nodes.len()) as u32);
            match outline_loop(
                node, &mut body, &index, hint, made, &mut taken, &sizes, maps,
            ) {
                Some((new, lasts)) => {
                    sizes.push(work(&new.body, &sizes));
                    for (ps, last) in hint.iterations.iter().zip(lasts) {
                        for &p in ps {
                            inside[p] = true;
                            index.moved_to[p] = last;
                        }
                    }
                    stats.bodies.push(new.name.clone());
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
    prog.nodes.extend(new_nodes.into_iter().map(|(_, n)| n));
    prog.reorder_nodes(&order);
    stats
}

/// Operations done by `body`, counting a call as its callee's work (`sizes`) and a copy as none.
fn work(body: &[Instr], sizes: &[usize]) -> usize {
    body.iter()
        .map(|ins| match ins {
            Instr::Assign {
                op: Op::Copy(_), ..
            } => 0,
            Instr::Assign { .. } => 1,
            Instr::Call { callee, .. } => sizes.get(callee.0 as usize).copied().unwrap_or(1),
            Instr::Loop { callee, count, .. } => {
                *count as usize * sizes.get(callee.0 as usize).copied().unwrap_or(1)
            }
        })
        .fold(0usize, |a, b| a.saturating_add(b))
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
    /// In a canonical order: dependencies first, otherwise in the order sema made them (so
    /// corresponding instructions of different iterations line up).
    positions: Vec<usize>,
    /// The last of them in the body: where the call will stand.
    last: usize,
    outside: Vec<VarId>,
    /// Every atom it defines → (instruction number, result number).
    defs: HashMap<VarId, (usize, usize)>,
}

/// `positions` (in the order sema made them) sorted so that every instruction comes after the
/// ones of the list that define what it reads, otherwise keeping the given order.
fn canonical_order(body: &[Option<Instr>], positions: &[usize]) -> Vec<usize> {
    let index_of_def: HashMap<VarId, usize> = positions
        .iter()
        .enumerate()
        .flat_map(|(k, &p)| {
            body[p]
                .as_ref()
                .unwrap()
                .defs()
                .into_iter()
                .map(move |d| (d, k))
        })
        .collect();
    let n = positions.len();
    let mut indeg = vec![0usize; n];
    let mut users: Vec<Vec<usize>> = vec![vec![]; n];
    for (k, &p) in positions.iter().enumerate() {
        for u in body[p].as_ref().unwrap().uses() {
            if let Some(&d) = index_of_def.get(&u) {
                indeg[k] += 1;
                users[d].push(k);
            }
        }
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&k| indeg[k] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut out = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(k)) = ready.pop() {
        out.push(positions[k]);
        for &u in &users[k] {
            indeg[u] -= 1;
            if indeg[u] == 0 {
                ready.push(std::cmp::Reverse(u));
            }
        }
    }
    out
}

/// The op with its operands blanked: equal shapes compute the same function of the operands.
fn op_shape(op: &Op) -> Op {
    let mut o = op.clone();
    o.map_operands(|_| VarId(0));
    o
}

/// What `outline_loop` asks of a node's body, built once per node (asking the whole body
/// once per hinted loop was quadratic: a made-up program of 2000 independent 8-round chains
/// spent 2.8 s here, outlining nothing).
struct BodyIndex {
    /// Atoms defined as constants (sema shares them; they never move).
    const_atom: Vec<bool>,
    /// Per atom, the body positions (as sema made them) of the instructions that read it.
    readers: Vec<Vec<u32>>,
    /// Node outputs.
    is_output: Vec<bool>,
    /// Where the instruction first at each position now stands: itself, or the call of the
    /// outlined iteration it went into (that call reads what the instruction read from
    /// outside its iteration).
    moved_to: Vec<usize>,
}

impl BodyIndex {
    fn new(node: &Node, body: &[Option<Instr>]) -> BodyIndex {
        let n = node.vars.len();
        let mut const_atom = vec![false; n];
        let mut readers: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (p, ins) in body.iter().enumerate() {
            let Some(ins) = ins else { continue };
            if let Instr::Assign {
                dst,
                op: Op::Const(_),
            } = ins
            {
                const_atom[dst.0 as usize] = true;
            }
            for u in ins.uses() {
                readers[u.0 as usize].push(p as u32);
            }
        }
        let mut is_output = vec![false; n];
        for o in node.flat_outputs() {
            is_output[o.0 as usize] = true;
        }
        BodyIndex {
            const_atom,
            readers,
            is_output,
            moved_to: (0..body.len()).collect(),
        }
    }
}

/// An iteration is worth a call when its work is at least this many times the atoms it passes
/// (smaller ones, like `n[i] = k[i] ^ n[i-4]`, are cheaper unrolled)...
pub const MIN_WORK_PER_ATOM: usize = 1;
/// ... or when the unrolled loop would be this much work or more (then the code no longer
/// fits the instruction cache, and a loop wins whatever its calls cost).
pub const UNROLLED_WORK_LIMIT: usize = 4096;

/// The new node, and per iteration the position of its call.
#[allow(clippy::too_many_arguments)]
fn outline_loop(
    node: &mut Node,
    body: &mut [Option<Instr>],
    index: &BodyIndex,
    hint: &LoopHint,
    id: NodeId,
    taken: &mut HashSet<String>,
    sizes: &[usize],
    maps: bool,
) -> Option<(Node, Vec<usize>)> {
    let is_const = |ins: &Instr| {
        matches!(
            ins,
            Instr::Assign {
                op: Op::Const(_),
                ..
            }
        )
    };
    // Constants (shared by sema) get an input slot per occurrence: iterations that differ
    // only in constants (a round number) then agree, and pass them per iteration.
    let const_atom = &index.const_atom;
    let mut iters: Vec<Iteration> = hint
        .iterations
        .iter()
        .map(|ps| {
            let kept: Vec<usize> = ps
                .iter()
                .copied()
                .filter(|&p| {
                    body.get(p)
                        .and_then(|i| i.as_ref())
                        .is_some_and(|i| !is_const(i))
                })
                .collect();
            Iteration {
                last: kept.iter().copied().max().unwrap_or(0),
                positions: canonical_order(body, &kept),
                outside: vec![],
                defs: HashMap::default(),
            }
        })
        .collect();
    if iters.len() < 2
        || iters[0].positions.is_empty()
        || iters
            .iter()
            .any(|it| it.positions.len() != iters[0].positions.len())
    {
        return None;
    }
    // Same instruction sequence, atoms in the same roles.
    let len = iters[0].positions.len();
    let mut roles0: Vec<Vec<Role>> = Vec::with_capacity(len);
    for (k, it) in iters.iter_mut().enumerate() {
        let mut seen: HashMap<VarId, usize> = HashMap::default();
        for j in 0..len {
            let ins = body[it.positions[j]].as_ref().unwrap();
            let mut roles = Vec::new();
            for u in ins.uses() {
                let r = match it.defs.get(&u) {
                    Some(&(instr, out)) => Role::Local { instr, out },
                    None if const_atom[u.0 as usize] => {
                        it.outside.push(u);
                        Role::Outside {
                            slot: it.outside.len() - 1,
                        }
                    }
                    None => {
                        let next = it.outside.len();
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
    // A chain: every iteration reads a result of the one before.
    let chain = iters
        .windows(2)
        .all(|w| w[1].outside.iter().any(|a| w[0].defs.contains_key(a)));
    if !chain && !maps {
        return None;
    }
    let first = &iters[0];
    for it in &iters[1..] {
        if it
            .outside
            .iter()
            .zip(&first.outside)
            .any(|(a, b)| node.bits(*a) != node.bits(*b))
        {
            return None;
        }
        for j in 0..len {
            let (a, b) = (
                body[first.positions[j]].as_ref().unwrap(),
                body[it.positions[j]].as_ref().unwrap(),
            );
            let same = match (a, b) {
                (Instr::Assign { dst: da, op: oa }, Instr::Assign { dst: db, op: ob }) => {
                    node.bits(*da) == node.bits(*db) && op_shape(oa) == op_shape(ob)
                }
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
    // Only the readers of the atoms the iterations define are looked at (`index`).
    let end = body.len();
    let mut iter_of_pos: HashMap<usize, usize> = HashMap::default();
    for (k, it) in iters.iter().enumerate() {
        for &p in &it.positions {
            iter_of_pos.insert(p, k);
        }
    }
    let mut escaping: Vec<(usize, usize)> = Vec::new();
    for (k, it) in iters.iter().enumerate() {
        for (&d, &r) in &it.defs {
            let readers = index.readers[d.0 as usize]
                .iter()
                .map(|&p| index.moved_to[p as usize])
                .chain(index.is_output[d.0 as usize].then_some(end));
            for at in readers {
                if iter_of_pos.get(&at) != Some(&k) {
                    if at <= it.last {
                        return None;
                    }
                    if !escaping.contains(&r) {
                        escaping.push(r);
                    }
                }
            }
        }
    }
    escaping.sort_unstable();
    let fragment: Vec<Instr> = first
        .positions
        .iter()
        .map(|&p| body[p].clone().unwrap())
        .collect();
    let w = work(&fragment, sizes);
    if w < MIN_WORK_PER_ATOM * (first.outside.len() + escaping.len())
        && w.saturating_mul(iters.len()) < UNROLLED_WORK_LIMIT
    {
        return None;
    }

    // The new node: the first iteration, renamed.
    let mut name = format!("{}__loop", node.name);
    let mut n = 0;
    while taken.contains(&format!("{}{}", name, n)) {
        n += 1;
    }
    name = format!("{}{}", name, n);
    taken.insert(name.clone());
    let mut new = Node {
        name,
        inputs: vec![],
        outputs: vec![],
        vars: vec![],
        body: vec![],
        inline: None,
        lockstep: false,
    };
    // Operands are renamed by their role (a constant read twice has two slots).
    let mut slot_var: Vec<VarId> = Vec::with_capacity(first.outside.len());
    for (s, &a) in first.outside.iter().enumerate() {
        let bits = node.bits(a);
        let v = new.new_var(format!("in{}", s), bits);
        slot_var.push(v);
        new.inputs.push(Param {
            name: format!("in{}", s),
            c_dims: vec![],
            word_bits: bits,
            atoms: vec![v],
            is_const: false,
        });
    }
    let mut result_var: HashMap<(usize, usize), VarId> = HashMap::default();
    for (j, &p) in first.positions.iter().enumerate() {
        let mut ins = body[p].clone().unwrap();
        let mut roles = roles0[j].iter();
        ins.map_uses(|_| match roles.next().expect("one role per operand") {
            Role::Outside { slot } => slot_var[*slot],
            Role::Local { instr, out } => result_var[&(*instr, *out)],
        });
        let mut out = 0;
        ins.map_defs(|d| {
            let Var { name, bits } = node.var(d).clone();
            let v = new.new_var(format!("{}_{}", name, new.vars.len()), bits);
            result_var.insert((j, out), v);
            out += 1;
            v
        });
        new.body.push(ins);
    }
    let by_result: HashMap<(usize, usize), VarId> =
        first.defs.iter().map(|(&d, &r)| (r, d)).collect();
    for (i, r) in escaping.iter().enumerate() {
        let a = result_var[r];
        new.outputs.push(Param {
            name: format!("out{}", i),
            c_dims: vec![],
            word_bits: node.bits(by_result[r]),
            atoms: vec![a],
            is_const: false,
        });
    }

    // Each iteration becomes a call at the place of its last instruction.
    let lasts = iters.iter().map(|it| it.last).collect();
    for it in &iters {
        let by_result: HashMap<(usize, usize), VarId> =
            it.defs.iter().map(|(&d, &r)| (r, d)).collect();
        let dsts = escaping.iter().map(|r| by_result[r]).collect();
        for &p in &it.positions {
            body[p] = None;
        }
        body[it.last] = Some(Instr::Call {
            dsts,
            callee: id,
            args: it.outside.clone(),
        });
    }
    Some((new, lasts))
}
