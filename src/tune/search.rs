//! The search: greedy coordinate descent over the knobs of a [`Space`], one knob at a time from
//! the current best ("incumbent"), never the full product.
//!
//! For each knob, every other value of it (applied to the incumbent) is compiled; candidates
//! whose static estimate ([`super::estimate`]) is worse than `prune_factor` × the incumbent's
//! are **pruned** (never measured), candidates whose C is identical to one already seen are
//! **duplicates** (measured once); the rest are measured together with the incumbent in one
//! batch (one harness process: variants in alternating windows, so load on the machine
//! affects them alike) and the best becomes the incumbent if it beats it by more than the
//! noise margin. After the global knobs come per-node inlining flips and per-loop unrolling
//! of the incumbent's program. One compound move: `loops=unroll` together with
//! `inline=all` (unrolled calls of a helper rarely pay; unrolled and inlined code may). Passes repeat while one changed something (at most
//! `max_passes`).
//!
//! **Budget**: the default is measured first (alone) and gives the cost of one measured
//! candidate and of one compilation; a batch is cut to what fits in the remaining time, keeping
//! room for the final check; with no room left the search stops (the report lists what was
//! not visited). **Final check** (always run; its objects are built already): the chosen
//! candidate is measured once more against the default in one batch and kept only if it is
//! not slower (goal `size`: the smallest code among
//! the candidates within 5% of the fastest, checked against the fastest).

use super::compile::Compiled;
use super::estimate::Estimate;
use super::{Dim, Goal, Knobs, LoopPolicyKnob, Space};
use std::collections::HashMap;

/// What the measurer found for one candidate (`None`: not measured for this goal).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measurement {
    /// TSC cycles per byte of the raw entry in a hot loop.
    pub hot_cpb: Option<f64>,
    /// TSC cycles of one call on one block with evicted caches (median).
    pub cold_cycles: Option<f64>,
    /// Bytes of machine code of the entry and what it calls.
    pub code_bytes: Option<u64>,
    pub spills_per_block: Option<f64>,
    pub insns_per_block: Option<f64>,
    /// TSC cycles per byte of the packed entry (goal `packed`).
    pub packed_cpb: Option<f64>,
}

/// Measures candidates; one call = one batch measured together (for fair comparison).
pub trait Measurer {
    fn measure(&mut self, batch: &[&Compiled], goal: Goal) -> Vec<Result<Measurement, String>>;
}

/// Seconds since the tuning run started.
pub trait Clock {
    fn elapsed(&self) -> f64;
}

/// Compiles candidates and lists the per-node and per-loop choices of a program.
pub trait Preparer {
    fn compile(&mut self, k: &Knobs) -> Result<Compiled, String>;
    /// Per-node inlining marks that would change `current`'s program, at most `max`.
    fn inline_flips(&self, current: &Compiled, max: usize) -> Vec<(String, bool)>;
    /// Loops kept in `current`'s program that can be forced unrolled (by body node), at most `max`.
    fn loops(&self, current: &Compiled, max: usize) -> Vec<String>;
}

/// The search's parameters.
#[derive(Clone, Debug)]
pub struct Params {
    pub goal: Goal,
    pub budget_s: f64,
    /// Candidates estimated worse than this × the incumbent's estimate are not measured.
    pub prune_factor: f64,
    /// A candidate replaces the incumbent only if faster by more than this fraction.
    pub noise: f64,
    pub max_passes: usize,
}

impl Params {
    pub fn new(goal: Goal, budget_s: f64) -> Params {
        Params {
            goal,
            budget_s,
            prune_factor: 1.5,
            noise: 0.02,
            max_passes: 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Measured,
    /// Estimate worse than the bound (both in the goal's estimated unit).
    Pruned {
        estimate: f64,
        bound: f64,
    },
    /// Same C (and compiler) as visit `.0`.
    Duplicate(usize),
    Failed(String),
    /// Compiled but not measured: the budget ran out.
    OverBudget,
}

/// One candidate the search looked at.
#[derive(Clone, Debug)]
pub struct Visit {
    pub id: usize,
    /// The knob this candidate moved (`None`: the default).
    pub dim: Option<Dim>,
    pub knobs: Knobs,
    pub estimate: Option<Estimate>,
    pub status: Status,
    /// The last measurement of it.
    pub measurement: Option<Measurement>,
    /// Batch of that measurement, and its goal metric over the incumbent's in that batch.
    pub batch: Option<usize>,
    pub vs_incumbent: Option<f64>,
    /// Goal metric relative to the default, chained through the batches' incumbents.
    pub relative: Option<f64>,
}

/// Progress after each batch (for a progress bar).
#[derive(Clone, Debug)]
pub struct Progress {
    pub elapsed: f64,
    pub budget: f64,
    pub visited: usize,
    pub measured: usize,
    pub best: String,
    /// Best relative metric (default = 1).
    pub best_relative: f64,
}

pub struct Outcome {
    pub visits: Vec<Visit>,
    pub default_id: usize,
    pub chosen_id: usize,
    pub chosen: Compiled,
    /// Goal metric of the default over the chosen one in the final batch (> 1: faster).
    pub gain_vs_default: Option<f64>,
    /// The final batch's metric of default and chosen (`None` when no final batch ran).
    pub final_metrics: Option<(f64, f64)>,
    pub batches: usize,
    pub elapsed: f64,
    pub notes: Vec<String>,
}

/// The goal's metric of a measurement.
pub fn metric(m: &Measurement, goal: Goal) -> Option<f64> {
    match goal {
        Goal::Hot | Goal::Size => m.hot_cpb,
        Goal::Cold => m.cold_cycles,
        Goal::Packed => m.packed_cpb,
    }
    .filter(|v| v.is_finite() && *v > 0.0)
}

/// The goal's estimated metric.
pub fn estimated(e: &Estimate, goal: Goal) -> f64 {
    match goal {
        // (packed: the raw kernel's estimate; the transposition is the same for every knob)
        Goal::Hot | Goal::Size | Goal::Packed => e.hot_cpb(),
        Goal::Cold => e.cold_cycles,
    }
}

struct State<'a> {
    params: &'a Params,
    clock: &'a dyn Clock,
    visits: Vec<Visit>,
    compiled: Vec<Option<Compiled>>,
    by_knobs: HashMap<Knobs, usize>,
    by_hash: HashMap<u64, usize>,
    measure_time: f64,
    slots: usize,
    compile_time: f64,
    compiles: usize,
    batches: usize,
}

impl State<'_> {
    fn slot_cost(&self) -> f64 {
        if self.slots == 0 {
            0.0
        } else {
            self.measure_time / self.slots as f64
        }
    }
    fn compile_cost(&self) -> f64 {
        if self.compiles == 0 {
            0.0
        } else {
            self.compile_time / self.compiles as f64
        }
    }
    fn remaining(&self) -> f64 {
        self.params.budget_s - self.clock.elapsed()
    }

    fn add(&mut self, dim: Option<Dim>, knobs: Knobs, prep: &mut dyn Preparer) -> usize {
        let id = self.visits.len();
        let t0 = self.clock.elapsed();
        let c = prep.compile(&knobs);
        self.compile_time += self.clock.elapsed() - t0;
        self.compiles += 1;
        let (status, est, comp) = match c {
            Ok(c) => (Status::Measured, Some(c.estimate.clone()), Some(c)),
            Err(e) => (
                Status::Failed(e.lines().next().unwrap_or("").to_string()),
                None,
                None,
            ),
        };
        self.by_knobs.insert(knobs.clone(), id);
        self.visits.push(Visit {
            id,
            dim,
            knobs,
            estimate: est,
            status,
            measurement: None,
            batch: None,
            vs_incumbent: None,
            relative: None,
        });
        self.compiled.push(comp);
        id
    }

    /// Measures `ids` (the first is the incumbent, whose relative metric is known); returns
    /// the goal metric of each (`None`: failed).
    fn batch(&mut self, ids: &[usize], measurer: &mut dyn Measurer) -> Vec<Option<f64>> {
        let goal = self.params.goal;
        let refs: Vec<&Compiled> = ids
            .iter()
            .map(|&i| {
                self.compiled[i]
                    .as_ref()
                    .expect("measured candidates compiled")
            })
            .collect();
        let t0 = self.clock.elapsed();
        let res = measurer.measure(&refs, goal);
        self.measure_time += self.clock.elapsed() - t0;
        self.slots += ids.len();
        let b = self.batches;
        self.batches += 1;
        let mut out = Vec::new();
        for (k, &i) in ids.iter().enumerate() {
            match res.get(k) {
                Some(Ok(m)) => {
                    out.push(metric(m, goal));
                    self.visits[i].measurement = Some(m.clone());
                    self.visits[i].batch = Some(b);
                    self.visits[i].status = Status::Measured;
                }
                Some(Err(e)) => {
                    out.push(None);
                    self.visits[i].status =
                        Status::Failed(e.lines().next().unwrap_or("").to_string());
                }
                None => {
                    out.push(None);
                    self.visits[i].status = Status::Failed("not measured".into());
                }
            }
        }
        if let (Some(Some(inc)), Some(inc_rel)) = (out.first(), self.visits[ids[0]].relative) {
            for (k, &i) in ids.iter().enumerate() {
                if let Some(m) = out[k] {
                    self.visits[i].vs_incumbent = Some(m / inc);
                    if k > 0 || self.visits[i].relative.is_none() {
                        self.visits[i].relative = Some(inc_rel * m / inc);
                    }
                }
            }
        }
        out
    }
}

/// Runs the search from `default` (which must compile).
pub fn run(
    space: &Space,
    default: Knobs,
    prep: &mut dyn Preparer,
    measurer: &mut dyn Measurer,
    clock: &dyn Clock,
    params: &Params,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, String> {
    let goal = params.goal;
    let mut st = State {
        params,
        clock,
        visits: vec![],
        compiled: vec![],
        by_knobs: HashMap::new(),
        by_hash: HashMap::new(),
        measure_time: 0.0,
        slots: 0,
        compile_time: 0.0,
        compiles: 0,
        batches: 0,
    };
    let mut notes = Vec::new();
    let def = st.add(None, default.clone(), prep);
    if let Status::Failed(e) = &st.visits[def].status {
        return Err(format!("the default configuration does not compile: {}", e));
    }
    st.by_hash
        .insert(st.compiled[def].as_ref().unwrap().c_hash, def);
    st.visits[def].relative = Some(1.0);
    let m = st.batch(&[def], measurer);
    if m[0].is_none() {
        return Err(match &st.visits[def].status {
            Status::Failed(e) => format!("cannot measure the default configuration: {}", e),
            _ => "cannot measure the default configuration".into(),
        });
    }
    st.visits[def].relative = Some(1.0);
    let mut inc = def;
    let report = |st: &State, inc: usize, progress: &mut dyn FnMut(&Progress)| {
        progress(&Progress {
            elapsed: st.clock.elapsed(),
            budget: params.budget_s,
            visited: st.visits.len(),
            measured: st.visits.iter().filter(|v| v.measurement.is_some()).count(),
            best: st.visits[inc].knobs.diff(&st.visits[def].knobs),
            best_relative: st.visits[inc].relative.unwrap_or(1.0),
        })
    };
    report(&st, inc, progress);
    let mut out_of_budget = false;
    'passes: for _pass in 0..params.max_passes.max(1) {
        let mut changed = false;
        for &dim in &space.dims {
            let cur = st.visits[inc].knobs.clone();
            let alts: Vec<Knobs> = match dim {
                Dim::InlineNode => {
                    let flips = prep.inline_flips(
                        st.compiled[inc].as_ref().unwrap(),
                        space.max_node_candidates,
                    );
                    flips
                        .into_iter()
                        .filter(|(n, _)| !cur.inline_nodes.iter().any(|(m, _)| m == n))
                        .map(|f| {
                            let mut k = cur.clone();
                            k.inline_nodes.push(f);
                            k.inline_nodes.sort();
                            k
                        })
                        .collect()
                }
                Dim::Loop if cur.loops != LoopPolicyKnob::Unroll => prep
                    .loops(
                        st.compiled[inc].as_ref().unwrap(),
                        space.max_node_candidates,
                    )
                    .into_iter()
                    .filter(|l| !cur.unrolled_loops.contains(l))
                    .map(|l| {
                        let mut k = cur.clone();
                        k.unrolled_loops.push(l);
                        k.unrolled_loops.sort();
                        k
                    })
                    .collect(),
                Dim::Loop => vec![],
                d => space.alternatives(d, &cur),
            };
            let inc_est = st.visits[inc]
                .estimate
                .as_ref()
                .map(|e| estimated(e, goal))
                .unwrap_or(f64::INFINITY);
            let mut cands: Vec<usize> = Vec::new();
            for k in alts {
                if st.by_knobs.contains_key(&k) {
                    continue;
                }
                if st.remaining() < st.compile_cost() + 2.0 * st.slot_cost() {
                    out_of_budget = true;
                    break;
                }
                let id = st.add(Some(dim), k, prep);
                let Some(c) = st.compiled[id].as_ref() else {
                    continue;
                };
                let e = estimated(&c.estimate, goal);
                let bound = params.prune_factor * inc_est;
                if e > bound {
                    st.visits[id].status = Status::Pruned { estimate: e, bound };
                    continue;
                }
                if let Some(&first) = st.by_hash.get(&c.c_hash) {
                    st.visits[id].status = Status::Duplicate(first);
                    continue;
                }
                st.by_hash.insert(c.c_hash, id);
                st.visits[id].status = Status::OverBudget;
                cands.push(id);
            }
            // What fits: (1 + n) slots now, and 2 for the final check.
            let slot = st.slot_cost();
            let fit = if slot > 0.0 {
                ((st.remaining() - 2.0 * slot) / slot).floor() as i64 - 1
            } else {
                cands.len() as i64
            };
            if fit < cands.len() as i64 {
                out_of_budget = true;
            }
            cands.truncate(fit.max(0) as usize);
            if !cands.is_empty() {
                let mut ids = vec![inc];
                ids.extend(&cands);
                let ms = st.batch(&ids, measurer);
                if let Some(inc_m) = ms[0] {
                    let best = ids
                        .iter()
                        .zip(&ms)
                        .skip(1)
                        .filter_map(|(&i, m)| m.map(|m| (i, m)))
                        .min_by(|a, b| a.1.total_cmp(&b.1));
                    if let Some((i, m)) = best {
                        if m < inc_m * (1.0 - params.noise) {
                            inc = i;
                            changed = true;
                        }
                    }
                }
                report(&st, inc, progress);
            }
            if out_of_budget {
                notes.push(format!(
                    "the budget ({} s) ended the search during knob `{}`",
                    params.budget_s,
                    dim.name()
                ));
                break 'passes;
            }
        }
        if !changed {
            break;
        }
    }

    // The final check.
    let mut chosen = inc;
    let mut final_metrics = None;
    let mut gain = None;
    if goal == Goal::Size {
        let fastest = st
            .visits
            .iter()
            .filter(|v| v.measurement.is_some())
            .filter_map(|v| v.relative.map(|r| (v.id, r)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((fast, fast_rel)) = fastest {
            let smallest = st
                .visits
                .iter()
                .filter(|v| v.relative.is_some_and(|r| r <= fast_rel * 1.05))
                .filter_map(|v| {
                    v.measurement
                        .as_ref()
                        .and_then(|m| m.code_bytes)
                        .map(|b| (v.id, b))
                })
                .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
            chosen = fast;
            if let Some((small, _)) = smallest {
                if small != fast && st.remaining() >= 2.0 * st.slot_cost() {
                    let ms = st.batch(&[fast, small], measurer);
                    if let (Some(f), Some(s)) = (ms[0], ms[1]) {
                        final_metrics = Some((f, s));
                        chosen = if s <= f * 1.05 { small } else { fast };
                    }
                } else {
                    chosen = small;
                }
            }
        }
    } else if inc != def {
        // Always run (the batches above keep room for it; its objects are built already, so
        // it costs one harness run even when a batch took longer than predicted).
        let ms = st.batch(&[def, inc], measurer);
        match (ms[0], ms[1]) {
            (Some(d), Some(c)) => {
                final_metrics = Some((d, c));
                gain = Some(d / c);
                if c > d {
                    notes.push(format!("the final check measured `{}` slower than the default ({:.4} vs {:.4}): keeping the default", st.visits[inc].knobs.diff(&default), c, d));
                    chosen = def;
                    gain = Some(1.0);
                }
            }
            _ => chosen = def,
        }
    } else {
        gain = Some(1.0);
    }
    report(&st, chosen, progress);
    let chosen_c = st.compiled[chosen]
        .clone()
        .expect("the chosen candidate compiled");
    Ok(Outcome {
        visits: st.visits,
        default_id: def,
        chosen_id: chosen,
        chosen: chosen_c,
        gain_vs_default: gain,
        final_metrics,
        batches: st.batches,
        elapsed: clock.elapsed(),
        notes,
    })
}
