//! Lookup tables to boolean circuits (stub; being written).

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
pub fn table_circuit(n_in: usize, n_out: usize, table: &[u64]) -> Circuit {
    let _ = (n_in, n_out, table);
    unimplemented!("sbox synthesis")
}
