//! Static estimates of a compiled candidate, used to prune before measuring: no process runs.
//!
//! - **instructions** the call executes (`opt::cost::node_work`: the target's op costs, calls
//!   and kept loops counted through) and the **static** instructions of every node once (a
//!   code-size proxy);
//! - the **critical path** through the dependency graph (each op's latency = its instruction
//!   count; a call's = its callee's critical path, a kept loop's = count × the body's);
//! - **spills**: Belady's estimate (`opt::cost::spill_estimate`) of loads and stores for the
//!   target's register count, per node, times how often the node runs;
//! - the **port bound**: (instructions + spills) / issue width (4 integer ALUs on GP, 3 vector
//!   pipes for SIMD logic on the modelled Zen 3 core).
//!
//! Hot cycles per call = max(port bound, critical path); cold = hot + one fetch of the code
//! from outside L1/L2 (static bytes ≈ 4 per instruction, ~20 cycles per 64-byte line). The
//! numbers rank candidates; they are not predictions of measured cycles.

use crate::ir::{Instr, Program};
use crate::opt::cost;
use crate::target::{Arch, Target};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Instances per call of the raw entry.
    pub instances: usize,
    /// Bytes of non-`const` input per instance.
    pub bytes_per_instance: f64,
    /// Per call of the raw entry.
    pub insns: f64,
    pub critical_path: f64,
    pub spills: f64,
    /// Instructions of every node counted once (code size proxy).
    pub static_insns: f64,
    /// Estimated cycles of one hot call and of one cold call.
    pub hot_cycles: f64,
    pub cold_cycles: f64,
}

impl Estimate {
    /// Estimated cycles per byte in a hot loop.
    pub fn hot_cpb(&self) -> f64 {
        self.hot_cycles / (self.instances.max(1) as f64 * self.bytes_per_instance.max(1e-9))
    }
}

/// Issue width the port bound divides by.
pub fn issue_width(arch: Arch) -> f64 {
    if arch == Arch::Std {
        4.0
    } else {
        3.0
    }
}

/// Bytes of data one instance reads (the non-`const` inputs; per copy when interleaved), as
/// `nakiri bench` counts them.
pub fn bytes_per_instance(prog: &Program) -> f64 {
    let e = prog.entry();
    let bits: u64 = e
        .inputs
        .iter()
        .filter(|p| !p.is_const)
        .flat_map(|p| p.atoms.iter())
        .map(|a| e.bits(*a) as u64)
        .sum();
    bits as f64 / 8.0 / prog.interleave.max(1) as f64
}

/// Per node, the longest dependency chain through its body, in cycles (each operation its
/// instruction count, a call its callee's chain, a kept loop its count times its body's).
/// Kept loops run one after another, not side by side (the core's window holds a few
/// iterations at most): a loop starts when its inputs are ready and the loop before it in
/// the body has ended, so two independent loops count twice, not once. (ACE's three
/// Simeck-box loops per step had read as overlapping, 0.52 of its port bound, until
/// `loop-fuse` made them one loop.)
fn critical_paths(prog: &Program, t: &Target) -> Vec<f64> {
    let mut crit = vec![0f64; prog.nodes.len()];
    for (idx, node) in prog.nodes.iter().enumerate() {
        let mut ready = vec![0f64; node.vars.len()];
        let mut longest = 0f64;
        let mut loop_end = 0f64;
        for ins in &node.body {
            let mut start = ins
                .uses()
                .iter()
                .map(|u| ready[u.0 as usize])
                .fold(0f64, f64::max);
            if matches!(ins, Instr::Loop { .. }) {
                start = start.max(loop_end);
            }
            let lat = match ins {
                Instr::Assign { dst, op } => t.cost(op, node.bits(*dst), prog.slicing).insns as f64,
                Instr::Call { callee, .. } => crit[callee.0 as usize],
                Instr::Loop { callee, count, .. } => *count as f64 * crit[callee.0 as usize],
            };
            for d in ins.defs() {
                ready[d.0 as usize] = start + lat;
            }
            if matches!(ins, Instr::Loop { .. }) {
                loop_end = start + lat;
            }
            longest = longest.max(start + lat);
        }
        crit[idx] = longest;
    }
    crit
}

/// How many times each node runs per call of the entry.
fn executions(prog: &Program) -> Vec<f64> {
    let n = prog.nodes.len();
    let mut ex = vec![0f64; n];
    if n == 0 {
        return ex;
    }
    ex[n - 1] = 1.0;
    for idx in (0..n).rev() {
        for ins in &prog.nodes[idx].body {
            match ins {
                Instr::Call { callee, .. } => ex[callee.0 as usize] += ex[idx],
                Instr::Loop { callee, count, .. } => {
                    ex[callee.0 as usize] += ex[idx] * *count as f64
                }
                _ => {}
            }
        }
    }
    ex
}

/// The static estimate of `prog` compiled for `arch` with `instances` instances per call.
pub fn estimate_with(prog: &Program, arch: Arch, instances: usize) -> Estimate {
    let t = Target::new(arch);
    if prog.nodes.is_empty() {
        return Estimate::default();
    }
    let entry = prog.nodes.len() - 1;
    let mut memo = Vec::new();
    let insns = cost::node_work(prog, entry, &t, &mut memo) as f64;
    let crit = critical_paths(prog, &t);
    let ex = executions(prog);
    let mut spills = 0f64;
    let mut static_insns = 0f64;
    for (i, node) in prog.nodes.iter().enumerate() {
        if ex[i] > 0.0 {
            spills += ex[i] * cost::spill_estimate(node, t.n_regs as usize) as f64;
        }
        static_insns += node
            .body
            .iter()
            .map(|ins| match ins {
                Instr::Assign { dst, op } => t.cost(op, node.bits(*dst), prog.slicing).insns as f64,
                _ => 1.0 + ins.uses().len() as f64 / 4.0,
            })
            .sum::<f64>();
    }
    let hot = ((insns + spills) / issue_width(arch)).max(crit[entry]);
    let cold = hot + static_insns * 4.0 / 64.0 * 20.0;
    Estimate {
        instances,
        bytes_per_instance: bytes_per_instance(prog),
        insns,
        critical_path: crit[entry],
        spills,
        static_insns,
        hot_cycles: hot,
        cold_cycles: cold,
    }
}

/// [`estimate_with`], instances per call from the target's register layout (× the
/// interleaving factor).
pub fn estimate(prog: &Program, arch: Arch) -> Estimate {
    let e = prog.entry();
    let word = e
        .inputs
        .iter()
        .chain(&e.outputs)
        .map(|p| p.word_bits)
        .max()
        .unwrap_or(1);
    let inst = crate::target::instances_per_call(arch, prog.slicing, word)
        * prog.interleave.max(1) as usize;
    estimate_with(prog, arch, inst)
}

/// Loads and stores beyond the unavoidable ones: Belady's estimate (`cost::spill_estimate`)
/// for the target's register count minus the same with unbounded registers (the loads of
/// inputs, which are memory either way), each node weighted by how often it runs per call.
pub fn excess_spills(prog: &Program, arch: Arch) -> f64 {
    let t = Target::new(arch);
    let ex = executions(prog);
    prog.nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| ex[*i] > 0.0)
        .map(|(i, n)| {
            ex[i]
                * cost::spill_estimate(n, t.n_regs as usize)
                    .saturating_sub(cost::spill_estimate(n, usize::MAX / 4))
                    as f64
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two kept loops on independent states run one after the other: the chain counts both
    /// (2 loops x 4 iterations x 2 operations on GP), and an operation beside them does not
    /// wait for them.
    #[test]
    fn independent_loops_count_one_after_another() {
        let prog = crate::ir::parse::parse(
            "slicing V
node r
  input x [] word 8 = x
  input k [] word 8 = k
  output y [] word 8 = y
  t:8 = xor x k
  y:8 = rotl t 1
end
node f
  input a [] word 8 = a
  input b [] word 8 = b
  input k [] word 8 = k
  output o [3] word 8 = a2 b2 c
  loop 4 r state a->a2:8 args @0 k results @0
  loop 4 r state b->b2:8 args @0 k results @0
  c:8 = not k
end
",
        )
        .unwrap();
        crate::ir::verify(&prog).unwrap();
        let crit = critical_paths(&prog, &Target::new(Arch::Std));
        assert_eq!(crit[0], 2.0);
        assert_eq!(crit[1], 16.0);
    }
}
