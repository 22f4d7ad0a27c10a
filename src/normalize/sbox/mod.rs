//! Lookup tables to boolean circuits (see the module docs below; written later).

mod anf;
mod builder;
pub mod db;
pub mod search;

pub use builder::cleanup;

/// A wire of a circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wire {
    /// Input bit i (bit 0 = most significant bit of the table index).
    Input(usize),
    /// Result of gate i (gates only read inputs, constants and earlier gates).
    Gate(usize),
    Const(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gate {
    And(Wire, Wire),
    Or(Wire, Wire),
    Xor(Wire, Wire),
    /// `!a & b`
    Andn(Wire, Wire),
    Not(Wire),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Circuit {
    pub n_inputs: usize,
    pub gates: Vec<Gate>,
    /// Output bit j (bit 0 = most significant bit of the table entry).
    pub outputs: Vec<Wire>,
}

/// Builds a circuit computing `table` (`table.len() == 1 << n_in`, entries `< 1 << n_out`).
///
/// Tolerant of malformed input: a shorter table is padded with zeros, extra
/// entries are ignored and entry bits above `n_out` are ignored.
pub fn table_circuit(n_in: usize, n_out: usize, table: &[u64]) -> Circuit {
    let size = 1usize << n_in;
    let mask = if n_out >= 64 { u64::MAX } else { (1u64 << n_out) - 1 };
    let table: Vec<u64> = (0..size).map(|x| table.get(x).copied().unwrap_or(0) & mask).collect();
    if n_out == 0 {
        return Circuit { n_inputs: n_in, gates: Vec::new(), outputs: Vec::new() };
    }
    if let Some(c) = db::lookup(n_in, n_out, &table) {
        return c;
    }
    let mut best = generic_circuit(n_in, n_out, &table);
    if n_in <= SEARCH_MAX_INPUTS {
        if let Some(c) = search::search_circuit(n_in, n_out, &table, SEARCH_LOOK, SEARCH_BUDGET) {
            if c.gates.len() < best.gates.len() {
                best = c;
            }
        }
    }
    best
}

/// Tables with at most this many inputs also get a bounded heuristic search.
pub const SEARCH_MAX_INPUTS: usize = 4;
/// Lookahead and work budget of the compile-time search.
pub const SEARCH_LOOK: u32 = 1;
pub const SEARCH_BUDGET: u64 = 200_000;

/// Writes a circuit in the database's program syntax: inputs are `i0..`,
/// gates `g0..`; returns the program and the output names.
pub fn to_program(c: &Circuit) -> (String, Vec<String>) {
    let name = |w: Wire| match w {
        Wire::Input(i) => format!("i{i}"),
        Wire::Gate(i) => format!("g{i}"),
        Wire::Const(b) => format!("{}", b as u8),
    };
    let mut prog = String::new();
    for (i, g) in c.gates.iter().enumerate() {
        let rhs = match *g {
            Gate::And(a, b) => format!("{} & {}", name(a), name(b)),
            Gate::Or(a, b) => format!("{} | {}", name(a), name(b)),
            Gate::Xor(a, b) => format!("{} ^ {}", name(a), name(b)),
            Gate::Andn(a, b) => format!("~{} & {}", name(a), name(b)),
            Gate::Not(a) => format!("~{}", name(a)),
        };
        prog.push_str(&format!("g{i} = {rhs}; "));
    }
    (prog.trim_end().to_string(), c.outputs.iter().map(|&w| name(w)).collect())
}

/// Generic synthesis (no database): the smallest of several constructions.
pub fn generic_circuit(n_in: usize, n_out: usize, table: &[u64]) -> Circuit {
    let mut best = anf::anf_circuit(n_in, n_out, table);
    let fwd: Vec<usize> = (0..n_in).collect();
    let rev: Vec<usize> = (0..n_in).rev().collect();
    for order in [&fwd, &rev] {
        for how in [anf::Decomp::Shannon, anf::Decomp::Davio] {
            let c = anf::dd_circuit(n_in, n_out, table, order, how);
            if c.gates.len() < best.gates.len() {
                best = c;
            }
        }
    }
    best
}

/// Evaluates `c` on table index `input` and returns the table entry.
pub fn eval(c: &Circuit, input: u64) -> u64 {
    let wire = |w: Wire, vals: &[bool]| -> bool {
        match w {
            Wire::Input(i) => (input >> (c.n_inputs - 1 - i)) & 1 == 1,
            Wire::Gate(g) => vals[g],
            Wire::Const(b) => b,
        }
    };
    let mut vals = Vec::with_capacity(c.gates.len());
    for g in &c.gates {
        let v = match *g {
            Gate::And(a, b) => wire(a, &vals) & wire(b, &vals),
            Gate::Or(a, b) => wire(a, &vals) | wire(b, &vals),
            Gate::Xor(a, b) => wire(a, &vals) ^ wire(b, &vals),
            Gate::Andn(a, b) => !wire(a, &vals) & wire(b, &vals),
            Gate::Not(a) => !wire(a, &vals),
        };
        vals.push(v);
    }
    let mut out = 0;
    for &w in &c.outputs {
        out = (out << 1) | wire(w, &vals) as u64;
    }
    out
}

#[cfg(test)]
mod tests;
