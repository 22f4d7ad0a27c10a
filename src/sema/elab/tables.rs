//! Tables and perms become IR: a `table` is compiled to a boolean circuit (the S-box
//! database or synthesis in `normalize::sbox`) applied at every bit position of its elements;
//! a `perm` (1-indexed) becomes wiring, one copy per output element.
//!
//! Before: `perm p (a:b3) returns (b:b3) { 3, 1, 2 }`. After: `b__0 = copy a__2;
//! b__1 = copy a__0; b__2 = copy a__1`.

use super::*;

impl<'a> Ctx<'a> {
    // --------------------------------------------------------------------------------------
    // Tables and perms

    pub(super) fn element_layout(&self, inst: &Inst) -> (usize, usize, u32) {
        // (#input elements, #output elements, element word bits)
        let count = |ps: &[ir::Param]| -> usize {
            ps.iter()
                .map(|p| {
                    if inst.slicing == Slicing::B {
                        p.atoms.len() / p.word_bits.max(1) as usize
                    } else {
                        p.atoms.len()
                    }
                })
                .sum()
        };
        let bits = inst.node.inputs.first().map(|p| p.word_bits).unwrap_or(1);
        (count(&inst.node.inputs), count(&inst.node.outputs), bits)
    }

    pub(super) fn table_body(
        &mut self,
        inst: &mut Inst,
        decl: &ast::Decl,
        entries: &[Expr],
    ) -> R<()> {
        if self.opts.keep_tables {
            return self.keep_table_body(inst, decl, entries);
        }
        let (n_in, n_out, m) = self.element_layout(inst);
        let all_same = inst
            .node
            .inputs
            .iter()
            .chain(&inst.node.outputs)
            .all(|p| p.word_bits == m);
        if !all_same {
            self.push(
                Diagnostic::error(decl.name.span, "table parameters must be vectors of one-bit elements or of one polymorphic word size")
                    .label("table")
                    .help("write table parameters sized in elements: `b4` or `v4`, not `u4`"),
            );
            return Err(());
        }
        if n_in > 16 || n_out > 64 {
            self.push(
                Diagnostic::error(
                    decl.name.span,
                    format!("table with {} input bits is too large (at most 16)", n_in),
                )
                .label("table"),
            );
            return Err(());
        }
        if entries.len() > 1 << n_in {
            self.push(
                Diagnostic::error(
                    decl.name.span,
                    format!(
                        "table has {} entries but {} input bits allow at most {}",
                        entries.len(),
                        n_in,
                        1usize << n_in
                    ),
                )
                .label("too many entries"),
            );
            return Err(());
        }
        let mut table = vec![0u64; 1 << n_in];
        let mut ok = true;
        for (i, e) in entries.iter().enumerate() {
            match self.eval_nat(inst, e) {
                Ok(v) if v >= 0 && (n_out >= 64 || (v as u64) < (1u64 << n_out)) => {
                    table[i] = v as u64
                }
                Ok(v) => {
                    self.push(
                        Diagnostic::error(
                            e.span,
                            format!("table entry {} does not fit in {} output bits", v, n_out),
                        )
                        .label("too large"),
                    );
                    ok = false;
                }
                Err(()) => ok = false,
            }
        }
        if !ok {
            return Err(());
        }
        // C2/C10 (quirk): usubac binds these tables to database circuits that number their bits
        // LSB first, i.e. computes rev_out(T[rev_in(x)]).
        let lsb_first = if entries.len() == 16 && n_in == 4 && n_out == 4 {
            usubac_lsb_first_sbox(&table)
        } else {
            None
        };
        let mut reverse = false;
        if let Some(which) = lsb_first {
            reverse = self.opts.compat_usubac;
            // One warning per table declaration (a `table[]` of 8 S-boxes gives one line), made
            // at the end of elaboration.
            let key = (decl.name.span, decl.name.name.clone());
            match self.c2_tables.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(which),
                None => self.c2_tables.push((key, vec![which])),
            }
        }
        if inst.is_entry
            && self.opts.compat_usubac
            && decl.inputs.len() == 1
            && usubac_database_sbox(n_in, n_out, &table)
        {
            self.entry_bit_params = true;
        }
        if sbox::db::lookup(n_in, n_out, &table).is_none() {
            // R7: a synthesised circuit is only accepted where the word size is known.
            self.r7_check(
                inst,
                m,
                decl.name.span,
                "a table that is not in the S-box database (its circuit is synthesised)",
            )?;
        }
        let circuit = sbox::table_circuit_for(n_in, n_out, &table, self.sbox_goal());
        let span = decl.name.span;
        let ab = inst.atom_bits(m);
        let all_ins = inst.node.flat_inputs();
        let all_outs = inst.node.flat_outputs();
        // In bitslice an element of m bits is m atoms: apply the circuit at every bit position.
        let apw = if self.opts.slicing == Slicing::B {
            m as usize
        } else {
            1
        };
        for pos in 0..apw {
            let mut ins: Vec<VarId> = (0..n_in).map(|e| all_ins[e * apw + pos]).collect();
            let mut outs: Vec<VarId> = (0..n_out).map(|e| all_outs[e * apw + pos]).collect();
            if reverse {
                ins.reverse();
                outs.reverse();
            }
            let results = self.emit_circuit(inst, &circuit, &ins, ab, span)?;
            for (j, o) in outs.iter().enumerate() {
                let src = results[j];
                self.count_op(span)?;
                inst.instrs.push((
                    Instr::Assign {
                        dst: *o,
                        op: Op::Copy(src),
                    },
                    span,
                ));
            }
        }
        Ok(())
    }

    /// R9 (`-keep-tables`): a table with one input and one output parameter of concrete word
    /// sizes m_in/m_out maps each input word x to the word T[x] (entries past the list give 0).
    /// nakiri computes it with a constant-time circuit over the word's bits (usubac emits a
    /// memory lookup): in -B on the word's bit atoms, in -V/-H on bit masks of the word.
    fn keep_table_body(&mut self, inst: &mut Inst, decl: &ast::Decl, entries: &[Expr]) -> R<()> {
        let span = decl.name.span;
        if decl.inputs.len() != 1 || decl.outputs.len() != 1 {
            self.push(
                Diagnostic::error(
                    span,
                    "tables with -keep-tables must have exactly one parameter and one result",
                )
                .label("table"),
            );
            return Err(());
        }
        for p in decl.inputs.iter().chain(&decl.outputs) {
            match &p.ty.base {
                BaseType::Nat => {
                    self.push(
                        Diagnostic::error(
                            p.ty.span,
                            "cannot use a `nat` in a table with -keep-tables",
                        )
                        .label("nat"),
                    );
                    return Err(());
                }
                BaseType::Word {
                    size: SizeSpec::Poly(_),
                    ..
                } => {
                    self.push(
                        Diagnostic::error(
                            p.ty.span,
                            "cannot use word-size polymorphic tables with -keep-tables",
                        )
                        .label("polymorphic word size")
                        .help("give the table a concrete word type, e.g. `u4`"),
                    );
                    return Err(());
                }
                _ => {}
            }
        }
        let (pin, pout) = (&inst.node.inputs[0], &inst.node.outputs[0]);
        let (m_in, m_out) = (pin.word_bits as usize, pout.word_bits as usize);
        let b = self.opts.slicing == Slicing::B;
        let (apw_in, apw_out) = if b { (m_in, m_out) } else { (1, 1) };
        let n_words = pin.atoms.len() / apw_in;
        if n_words != pout.atoms.len() / apw_out {
            self.push(Diagnostic::error(span, "with -keep-tables the table's input and result must have the same number of words").label("table"));
            return Err(());
        }
        if m_in > 16 {
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "table with {}-bit words is too large (at most 16 bits)",
                        m_in
                    ),
                )
                .label("table"),
            );
            return Err(());
        }
        if !b && m_in != m_out {
            self.push(Diagnostic::error(span, format!("-keep-tables in {}slice needs input and result words of the same size ({} and {} bits)", self.opts.slicing, m_in, m_out)).label("table").help("use -B"));
            return Err(());
        }
        if entries.len() > 1 << m_in {
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "table has {} entries but {}-bit words allow at most {}",
                        entries.len(),
                        m_in,
                        1usize << m_in
                    ),
                )
                .label("too many entries"),
            );
            return Err(());
        }
        let mut table = vec![0u64; 1 << m_in];
        for (i, e) in entries.iter().enumerate() {
            let v = self.eval_nat(inst, e)?;
            if v < 0 || (m_out < 64 && (v as u64) >> m_out != 0) {
                self.push(
                    Diagnostic::error(
                        e.span,
                        format!("table entry {} does not fit in {} bits", v, m_out),
                    )
                    .label("too large"),
                );
                return Err(());
            }
            table[i] = v as u64;
        }
        let circuit = sbox::table_circuit_for(m_in, m_out, &table, self.sbox_goal());
        let ins_all = inst.node.inputs[0].atoms.clone();
        let outs_all = inst.node.outputs[0].atoms.clone();
        let ab = inst.atom_bits(m_in as u32);
        for w in 0..n_words {
            let ins: Vec<VarId> = if b {
                ins_all[w * m_in..(w + 1) * m_in].to_vec()
            } else {
                let word = Word {
                    bits: m_in as u32,
                    atoms: vec![ins_all[w]],
                };
                let mut v = Vec::new();
                for j in 0..m_in as u32 {
                    let mask = match self.opts.slicing {
                        Slicing::H => {
                            self.shuffle_word(inst, &word, &vec![j; m_in], span)?.atoms[0]
                        }
                        _ => self.emit(inst, Op::Bitmask(ins_all[w], j), ab, span)?,
                    };
                    v.push(mask);
                }
                v
            };
            let results = self.emit_circuit(inst, &circuit, &ins, ab, span)?;
            if b {
                for (k, &src) in results.iter().enumerate().take(m_out) {
                    self.count_op(span)?;
                    inst.instrs.push((
                        Instr::Assign {
                            dst: outs_all[w * m_out + k],
                            op: Op::Copy(src),
                        },
                        span,
                    ));
                }
            } else {
                // y = OR over k of (output bit k, all ones or zeros) & (bit k alone).
                let mut acc = None;
                for (k, &src) in results.iter().enumerate().take(m_out) {
                    let bit = self
                        .const_word(inst, 1u64 << (m_out - 1 - k), m_out as u32, span)?
                        .atoms[0];
                    let t = self.emit(inst, Op::And(src, bit), ab, span)?;
                    acc = Some(match acc {
                        None => t,
                        Some(a) => self.emit(inst, Op::Or(a, t), ab, span)?,
                    });
                }
                let src = acc.unwrap_or(ins_all[w]);
                self.count_op(span)?;
                inst.instrs.push((
                    Instr::Assign {
                        dst: outs_all[w],
                        op: Op::Copy(src),
                    },
                    span,
                ));
            }
        }
        Ok(())
    }

    /// Emits `circuit`'s gates on the atoms `ins` (words of `ab` bits); returns the atom of each
    /// circuit output, in order (constant outputs are emitted as constants).
    /// Which database circuit a table takes: `--sbox-circuit`, or the measured rule.
    fn sbox_goal(&self) -> sbox::CircuitGoal {
        self.opts
            .sbox_circuit
            .unwrap_or_else(|| sbox::default_goal(self.opts.slicing == Slicing::B))
    }

    fn emit_circuit(
        &mut self,
        inst: &mut Inst,
        circuit: &sbox::Circuit,
        ins: &[VarId],
        ab: u32,
        span: crate::diag::Span,
    ) -> R<Vec<VarId>> {
        let mut gates: Vec<VarId> = Vec::with_capacity(circuit.gates.len());
        let wire = |cx: &mut Ctx, inst: &mut Inst, gates: &Vec<VarId>, w: sbox::Wire| -> R<VarId> {
            Ok(match w {
                sbox::Wire::Input(i) => ins[i],
                sbox::Wire::Gate(g) => gates[g],
                sbox::Wire::Const(b) => {
                    cx.emit(inst, Op::Const(if b { mask(ab) } else { 0 }), ab, span)?
                }
            })
        };
        for g in &circuit.gates {
            let op = match *g {
                sbox::Gate::And(a, b) => {
                    Op::And(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?)
                }
                sbox::Gate::Or(a, b) => {
                    Op::Or(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?)
                }
                sbox::Gate::Xor(a, b) => {
                    Op::Xor(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?)
                }
                sbox::Gate::Andn(a, b) => {
                    Op::Andn(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?)
                }
                sbox::Gate::Not(a) => Op::Not(wire(self, inst, &gates, a)?),
            };
            let v = self.emit(inst, op, ab, span)?;
            gates.push(v);
        }
        circuit
            .outputs
            .iter()
            .map(|&o| wire(self, inst, &gates, o))
            .collect()
    }

    pub(super) fn perm_body(
        &mut self,
        inst: &mut Inst,
        decl: &ast::Decl,
        entries: &[Expr],
    ) -> R<()> {
        let (n_in, n_out, m) = self.element_layout(inst);
        if entries.len() != n_out {
            self.push(
                Diagnostic::error(
                    decl.name.span,
                    format!(
                        "perm has {} entries but {} output elements",
                        entries.len(),
                        n_out
                    ),
                )
                .label("perm")
                .help("a perm lists exactly one (1-based) input position per output element"),
            );
            return Err(());
        }
        let apw = if self.opts.slicing == Slicing::B {
            m as usize
        } else {
            1
        };
        let ins = inst.node.flat_inputs();
        let outs = inst.node.flat_outputs();
        for (i, e) in entries.iter().enumerate() {
            let v = self.eval_nat(inst, e)?;
            if v < 1 || v as usize > n_in {
                self.push(
                    Diagnostic::error(e.span, format!("perm entry {} is outside 1..{}", v, n_in))
                        .label("perms are 1-indexed"),
                );
                return Err(());
            }
            let src = (v - 1) as usize;
            for b in 0..apw {
                self.count_op(e.span)?;
                inst.instrs.push((
                    Instr::Assign {
                        dst: outs[i * apw + b],
                        op: Op::Copy(ins[src * apw + b]),
                    },
                    e.span,
                ));
            }
        }
        Ok(())
    }
}

/// The name of the S-box when `table` is one of the lists usubac's database binds LSB first
/// (Rectangle, Clyde, Serpent S0-S7; `shared/spec/compat.md` C2).
pub(super) fn usubac_lsb_first_sbox(table: &[u64]) -> Option<String> {
    use crate::normalize::sbox::db::{CLYDE, RECTANGLE, SERPENT};
    let eq = |l: &[u8; 16]| table.len() == 16 && l.iter().zip(table).all(|(a, b)| *a as u64 == *b);
    if eq(&RECTANGLE) {
        return Some("Rectangle".into());
    }
    if eq(&CLYDE) {
        return Some("Clyde".into());
    }
    SERPENT
        .iter()
        .position(eq)
        .map(|k| format!("Serpent S{}", k))
}

/// Whether `table` is one of the S-boxes of usubac's database (`shared/spec/compat.md` C2: the
/// LSB-first ones, DES S1-S8, AES, PRESENT, Pyjamask, Ascon, Spongent and Skinny's 8-bit S-box).
pub(super) fn usubac_database_sbox(n_in: usize, n_out: usize, table: &[u64]) -> bool {
    use crate::normalize::sbox::db;
    let eq = |l: &[u8]| table.len() == l.len() && l.iter().zip(table).all(|(a, b)| *a as u64 == *b);
    match (n_in, n_out) {
        (4, 4) => {
            usubac_lsb_first_sbox(table).is_some()
                || eq(&db::PRESENT)
                || eq(&db::SPONGENT)
                || eq(&db::PYJAMASK4)
        }
        (3, 3) => eq(&db::PYJAMASK3),
        (5, 5) => eq(&db::ASCON),
        (6, 4) => (0..8).any(|k| db::des_table(k) == table),
        (8, 8) => db::aes_table() == table || db::skinny8_table() == table,
        _ => false,
    }
}

/// The C2/C10 warnings: one per table declaration whose entry lists (or, for a `table[]`, some
/// of them) are database S-boxes that usubac computes LSB first.
pub(super) fn c2_warnings(
    tables: &[((Span, String), Vec<String>)],
    compat_usubac: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for ((span, name), which) in tables {
        let mut which = which.clone();
        which.dedup();
        let list = match which.len() {
            1 => format!("the {} S-box", which[0]),
            _ => format!("the {} S-boxes", which.join(", ")),
        };
        let d = if compat_usubac {
            Diagnostic::warning(*span, format!("usubac quirk (S-box database bit order): table `{}` is {}, which usubac computes LSB first: rev_out(T[rev_in(x)])", name, list))
                .label("bits reversed")
                .help("pass `--compat nakiri` (or use `nakiri compile`) for T[x], as `language.md` reads it")
        } else {
            Diagnostic::warning(*span, format!("table `{}` is {}: nakiri computes T[x] (MSB first, `language.md`), usubac computes rev_out(T[rev_in(x)])", name, list))
                .label("means something else under usubac")
                .help("pass `--compat usubac` for usubac's meaning")
        };
        out.push(d);
    }
    out
}
