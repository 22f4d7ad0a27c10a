//! The tuner's real measurer: each candidate's C is built once (kernel with the candidate's
//! compiler and flags, driver, symbols renamed: `cli::bench::harness::build_from_c`) into a
//! scratch folder that lives as long as the run, and each batch links the batch's objects into
//! one harness process (`harness::measure`: alternating windows; `harness::measure_cold` for
//! goal `cold`). Hot = cycles/byte of the raw entry (the code the knobs change); with `--runs
//! N` each candidate's minimum over N such processes (`harness::measure_min`).

use crate::cli::bench::harness::{self, Built, CcSpec, Effort, Scratch};
use crate::tune::compile::Compiled;
use crate::tune::search::{Measurement, Measurer};
use crate::tune::Goal;
use std::collections::HashMap;

pub struct HarnessMeasurer {
    dir: Scratch,
    built: HashMap<u64, Result<Built, String>>,
    quick: bool,
    runs: usize,
}

impl HarnessMeasurer {
    pub fn new(quick: bool, runs: usize) -> Result<HarnessMeasurer, String> {
        Ok(HarnessMeasurer {
            dir: Scratch::new("tune")?,
            built: HashMap::new(),
            quick,
            runs: runs.max(1),
        })
    }

    fn effort(&self, n: usize, goal: Goal) -> Effort {
        if self.quick || goal == Goal::Cold {
            Effort {
                budget_s: 0.1 * n as f64,
                ..Effort::QUICK
            }
        } else {
            Effort {
                windows: 200,
                window_ticks: 100_000,
                budget_s: (0.15 * n as f64).max(0.3),
            }
        }
    }
}

impl Measurer for HarnessMeasurer {
    fn measure(&mut self, batch: &[&Compiled], goal: Goal) -> Vec<Result<Measurement, String>> {
        for c in batch {
            if !self.built.contains_key(&c.c_hash) {
                let prefix = format!("v{}", self.built.len());
                let spec = CcSpec {
                    cc: c.knobs.cc.name.clone(),
                    flags: c.knobs.cc.flags.clone(),
                };
                let b = harness::build_from_c(&self.dir.0, &prefix, &c.prog, &c.out, c.arch, &spec);
                self.built.insert(c.c_hash, b);
            }
        }
        let mut ok: Vec<&Built> = Vec::new();
        for c in batch {
            if let Some(Ok(b)) = self.built.get(&c.c_hash) {
                if !ok.iter().any(|o| o.prefix == b.prefix) {
                    ok.push(b);
                }
            }
        }
        if ok.is_empty() {
            return batch
                .iter()
                .map(|c| {
                    Err(self
                        .built
                        .get(&c.c_hash)
                        .and_then(|b| b.as_ref().err().cloned())
                        .unwrap_or_default())
                })
                .collect();
        }
        let hot = harness::measure_min(&self.dir.0, &ok, self.effort(ok.len(), goal), self.runs);
        let cold = if goal == Goal::Cold {
            Some(harness::measure_cold(
                &self.dir.0,
                &ok,
                if self.quick { 31 } else { 151 },
            ))
        } else {
            None
        };
        batch
            .iter()
            .map(|c| {
                let b = match self.built.get(&c.c_hash) {
                    Some(Ok(b)) => b,
                    Some(Err(e)) => return Err(e.clone()),
                    None => return Err("not built".into()),
                };
                let k = ok.iter().position(|o| o.prefix == b.prefix).unwrap_or(0);
                let run = hot.as_ref().map_err(|e| e.clone())?;
                let t = &run.timings[k];
                let n = b.instances as f64;
                let cold_cycles = match &cold {
                    Some(Ok(v)) => Some(v[k]),
                    Some(Err(e)) => return Err(e.clone()),
                    None => None,
                };
                Ok(Measurement {
                    hot_cpb: Some(t.raw_ticks / b.raw_bytes_per_call()),
                    cold_cycles,
                    code_bytes: b.stats.as_ref().map(|s| s.code_bytes),
                    spills_per_block: b
                        .stats
                        .as_ref()
                        .map(|s| (s.spill_loads + s.spill_stores) / n),
                    insns_per_block: b.stats.as_ref().map(|s| s.insns / n),
                    packed_cpb: t
                        .packed_ticks
                        .zip(b.packed_bytes_per_call())
                        .map(|(t, by)| t / by),
                })
            })
            .collect()
    }
}
