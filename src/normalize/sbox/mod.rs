//! Lookup tables (`table` declarations, S-boxes) to boolean circuits, for
//! bitsliced evaluation.
//!
//! # Contract
//! [`table_circuit`]`(n_in, n_out, table)` returns a [`Circuit`] over inputs
//! `Input(0..n_in)` (Input(0) = MSB of the table index) whose output `j` is
//! bit `j` of the entry counted from the MSB, for **every** index (all
//! constructions are checked exhaustively in the tests). Gates only read
//! inputs and earlier gates; constants are folded away (a constant output is
//! `Wire::Const`, an output equal to an input is that `Input`), dead gates are
//! removed. The result is deterministic: no time limits, no hash-map
//! iteration order; searches are bounded by counted work. Malformed tables
//! never panic: a short table is padded with zeros, bits above `n_out` are
//! ignored. Work is roughly `O(2^n_in * n_out)` times small factors for the
//! generic constructions (a random 12-input table: ~0.2 s, release, stop 53).
//! [`eval`] evaluates a circuit on one index.
//!
//! # Construction (in order)
//! 1. **Database** ([`db`]): a table equal to a known S-box gets its stored
//!    compact circuit; where the database has several (AES), the one the
//!    [`CircuitGoal`] prefers ([`table_circuit_for`]; `--sbox-circuit`, by
//!    default [`default_goal`]: the smallest in bitslice, the shallowest in
//!    m-slice).
//! 2. **Generic synthesis** ([`generic_circuit`], `anf.rs`), the smallest of:
//!    * ANF: Möbius transform per output bit; monomials built incrementally
//!      (each from an existing sub-monomial AND one variable) and shared
//!      across outputs; the XOR sums share their most frequent common pairs
//!      (Paar-style greedy, work-bounded);
//!    * decision diagrams with sub-functions shared by truth table (and
//!      complement), Shannon (multiplexer) or positive-Davio nodes, variable
//!      order forward and reversed.
//! 3. **Heuristic search** (`search.rs`, up to 6 inputs, used when smaller):
//!    Kwan-style construction with don't-care masks over 64-bit truth tables:
//!    reuse an existing wire (or its NOT), else one new gate over two existing
//!    wires, else split on an input with one of seven decompositions
//!    (`g ^ (s&h)`, `g | (s&h)`, `g & (!s|h)` in both polarities, mux),
//!    comparing alternatives with bounded lookahead; all output orders (up to
//!    4 outputs) are tried. DES-sized tables take ~20 ms, 4-bit ones ~20 ms.
//!
//! # Database (gate counts = gates of the returned circuit, NOT counted)
//! | S-box | in→out | gates | provenance |
//! | --- | --- | --- | --- |
//! | AES | 8→8 | 119 | Boyar–Peralta 115-gate circuit as published in their 2009 paper (depth 29 with the NOTs); `Small` |
//! | AES | 8→8 | 132 | Boyar–Peralta depth-16 circuit as published in their paper (128 ops; the 4 XNORs cost a NOT each; depth 17); `Shallow` |
//! | SKINNY-128 S8 | 8→8 | 24 | the S-box definition in the SKINNY paper (4 × 2 NOR/XOR, permutations free) |
//! | Ascon | 5→5 | 17 | bitsliced S-box given in the Ascon specification |
//! | RECTANGLE | 4→4 | 12 | bit-slice S-box given in the RECTANGLE specification |
//! | Clyde-128 (Spook) | 4→4 | 8 | bitsliced S-box given in the Spook specification |
//! | DES S1..S8 | 6→4 | 66 59 60 50 68 62 59 53 | own search (lookahead ≤ 3), precomputed in `db_search.rs` |
//! | Serpent S0..S7 | 4→4 | 17 18 17 18 18 17 18 20 | own search |
//! | PRESENT | 4→4 | 18 | own search |
//! | Spongent | 4→4 | 15 | own search (Spongent's S-box differs from PRESENT's) |
//! | GIFT | 4→4 | 13 | own search |
//! | SKINNY-64 S4 | 4→4 | 10 | own search |
//! | Pyjamask S3 / S4 | 3→3 / 4→4 | 7 / 13 | own search |
//!
//! Tables are facts from the specifications; the AES and SKINNY-128 tables
//! are computed from their definitions (GF(2^8) inverse + affine map; NOR/XOR
//! layers) and checked against published values. DES tables are stored in
//! FIPS 46 row/column layout and recognised in Usuba's plain input order
//! (entry index = the 6 input bits b0..b5, MSB first).

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

/// Which of several database circuits for one table to take (`--sbox-circuit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum CircuitGoal {
    /// Fewest gates (ties: least depth). Best where the sliced code has independent work to
    /// overlap with the circuit's dependency chain, as in bitslice (every bit of every byte
    /// is its own copy of the circuit).
    #[default]
    Small,
    /// Least depth (ties: fewest gates). Best where the circuit's chain is the critical path,
    /// as in m-slice: AES `-H` / `-V`, where the whole state goes through one S-box circuit
    /// per round.
    Shallow,
}

impl CircuitGoal {
    pub fn name(self) -> &'static str {
        match self {
            CircuitGoal::Small => "small",
            CircuitGoal::Shallow => "shallow",
        }
    }
    pub fn parse(s: &str) -> Option<CircuitGoal> {
        [CircuitGoal::Small, CircuitGoal::Shallow]
            .into_iter()
            .find(|g| g.name() == s)
    }
}

/// The measured rule of `--sbox-circuit auto` (README "The S-box circuits"): `Small` in
/// bitslice, `Shallow` in vslice and hslice.
pub fn default_goal(bitslice: bool) -> CircuitGoal {
    if bitslice {
        CircuitGoal::Small
    } else {
        CircuitGoal::Shallow
    }
}

/// Longest chain of gates from an input to an output (a NOT counts as a gate).
pub fn depth(c: &Circuit) -> usize {
    let mut d = vec![0usize; c.gates.len()];
    let at = |d: &Vec<usize>, w: Wire| match w {
        Wire::Gate(g) => d[g],
        _ => 0,
    };
    for (i, g) in c.gates.iter().enumerate() {
        d[i] = 1 + match *g {
            Gate::And(a, b) | Gate::Or(a, b) | Gate::Xor(a, b) | Gate::Andn(a, b) => {
                at(&d, a).max(at(&d, b))
            }
            Gate::Not(a) => at(&d, a),
        };
    }
    c.outputs.iter().map(|&w| at(&d, w)).max().unwrap_or(0)
}

/// Builds a circuit computing `table` (`table.len() == 1 << n_in`, entries `< 1 << n_out`),
/// the database's smallest where it has several ([`table_circuit_for`]).
///
/// Tolerant of malformed input: a shorter table is padded with zeros, extra
/// entries are ignored and entry bits above `n_out` are ignored.
pub fn table_circuit(n_in: usize, n_out: usize, table: &[u64]) -> Circuit {
    table_circuit_for(n_in, n_out, table, CircuitGoal::Small)
}

/// [`table_circuit`], choosing among the database's circuits for `table` by `goal`.
pub fn table_circuit_for(n_in: usize, n_out: usize, table: &[u64], goal: CircuitGoal) -> Circuit {
    let size = 1usize << n_in;
    let mask = if n_out >= 64 {
        u64::MAX
    } else {
        (1u64 << n_out) - 1
    };
    let table: Vec<u64> = (0..size)
        .map(|x| table.get(x).copied().unwrap_or(0) & mask)
        .collect();
    if n_out == 0 {
        return Circuit {
            n_inputs: n_in,
            gates: Vec::new(),
            outputs: Vec::new(),
        };
    }
    if let Some(c) = db::lookup_for(n_in, n_out, &table, goal) {
        return c;
    }
    let mut best = generic_circuit(n_in, n_out, &table);
    if n_in <= SEARCH_MAX_INPUTS && n_out <= 8 {
        let (look, budget) = if n_in <= 4 {
            (2, SEARCH_BUDGET)
        } else {
            (1, SEARCH_BUDGET / 10)
        };
        if let Some(c) = search::search_circuit(n_in, n_out, &table, look, budget) {
            if c.gates.len() < best.gates.len() {
                best = c;
            }
        }
    }
    best
}

/// Tables with at most this many inputs (and at most 8 outputs) also get a
/// bounded heuristic search at compile time (lookahead 2 up to 4 inputs,
/// else 1).
pub const SEARCH_MAX_INPUTS: usize = 6;
/// Work budget per output order of the compile-time search for up to 4
/// inputs (a tenth of it for 5-6 inputs); deterministic: counted in examined
/// wire pairs, not in time. Keeps the search around 20 ms per table.
pub const SEARCH_BUDGET: u64 = 2_000_000;

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
    (
        prog.trim_end().to_string(),
        c.outputs.iter().map(|&w| name(w)).collect(),
    )
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
