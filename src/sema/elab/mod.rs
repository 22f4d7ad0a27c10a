//! The elaborator (see `sema/mod.rs` for what it requires and guarantees): instances, names
//! and atoms, and the final checks and dependency order of each node. One file per
//! normalisation concern:
//! - `equations.rs`: `=`, `:=`, compound assignments, `forall` unrolling (with loop hints);
//! - `nats.rs`: compile-time index, bound and shift expressions;
//! - `values.rs`: expressions, constants, tuples, logic;
//! - `arith.rs`: bitsliced and hsliced arithmetic with carries;
//! - `shifts.rs`: shifts, rotations (words, tuples, arrays), `Shuffle`;
//! - `tables.rs`: tables to circuits, perms to wiring;
//! - `calls.rs`: calls, node arrays, per-call-site monomorphisation.

mod arith;
mod calls;
mod equations;
mod nats;
mod shifts;
mod tables;
mod values;

use super::types::Ty;
use crate::diag::{Diagnostic, Span};
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::ir::{self, mask, AtomName, Instr, NodeId, Op, Slicing, VarId};
use crate::normalize::sbox;
use crate::syntax::ast::{
    self, AssignKind, BaseType, BinOp, DeclKind, DirSpec, Expr, ExprKind, ShiftOp, SizeSpec,
};
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt::Write as _;

#[derive(Clone, Debug)]
pub struct Options {
    pub slicing: Slicing,
    /// The work budget (`--max-ops`): upper bound on each of IR operations (after unrolling),
    /// loop iterations unrolled (empty loops included) and atoms declared (entry parameters
    /// included), before giving up with a diagnostic at the place that exceeds it.
    pub max_ops: usize,
    /// Quirk rules follow usubac (`--compat usubac`, or the usubac command-line spelling):
    /// repeated `=` and the S-box database bit order, each with a warning naming the quirk.
    /// Otherwise they follow `language.md`, with a warning where usubac differs.
    pub compat_usubac: bool,
    /// usubac's `-keep-tables`: a table is typed by the word size of its one parameter and
    /// compiled as a lookup (`Op::Lookup`, not constant time) in -V; as a circuit in -B.
    pub keep_tables: bool,
    /// `-bits-per-reg N` (std): the register width a polymorphic `-H` entry word fills (R7).
    pub bits_per_reg: Option<u32>,
    /// Which database circuit a table with several takes (`--sbox-circuit`; `None` = the
    /// measured rule, [`crate::normalize::sbox::default_goal`]).
    pub sbox_circuit: Option<crate::normalize::sbox::CircuitGoal>,
}

impl Options {
    pub fn new(slicing: Slicing) -> Options {
        Options {
            slicing,
            max_ops: DEFAULT_MAX_OPS,
            compat_usubac: false,
            keep_tables: false,
            bits_per_reg: None,
            sbox_circuit: None,
        }
    }
}

/// Default work budget (`--max-ops`): the largest shipped cipher (bitsliced, unrolled) needs
/// a few hundred thousand operations.
pub const DEFAULT_MAX_OPS: usize = 2_000_000;

/// Deepest chain of calls elaborated (each level is a few stack frames of the 512 MiB stack).
pub const MAX_CALL_DEPTH: usize = 10_000;

/// The diagnostic for an exceeded work budget: what was counted, the limit, how to raise it.
pub fn budget_exceeded(span: Span, what: &str, limit: usize) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "program too large: more than {} {} (the work budget)",
            limit, what
        ),
    )
    .label("the budget runs out here")
    .help(format!(
        "check loop bounds and array sizes; raise the limit with `--max-ops N` (now {})",
        limit
    ))
}

/// Source-level view of one monomorphic instance (for `--dump typed`).
#[derive(Clone, Debug)]
pub struct InstanceInfo {
    pub name: String,
    pub decl: String,
    /// (role, name, type): role is "input", "output" or "var".
    pub vars: Vec<(&'static str, String, Ty, bool)>,
}

pub struct Checked {
    pub ir: ir::Program,
    pub instances: Vec<InstanceInfo>,
    /// Where the unrolled `forall` loops are in `ir` (see [`ir::LoopHints`]); loops marked
    /// `_unroll` are not listed.
    pub loop_hints: ir::LoopHints,
    /// R7 (usubac spelling): the entry is a table whose entry list is in usubac's S-box
    /// database, so its C parameters are one scalar per input bit and one pointer per output
    /// bit, as usubac's database circuit has them.
    pub entry_bit_params: bool,
}

type R<T> = Result<T, ()>;

#[derive(Hash, PartialEq, Eq, Clone)]
struct InstKey {
    decl: usize,
    arr: usize,
    sizes: Vec<(String, u32)>,
    nats: Vec<i64>,
}

struct Ctx<'a> {
    ast: &'a ast::Program,
    opts: &'a Options,
    decl_index: HashMap<&'a str, usize>,
    instances: HashMap<InstKey, NodeId>,
    nodes: Vec<ir::Node>,
    infos: Vec<InstanceInfo>,
    used_names: HashSet<String>,
    diags: Vec<Diagnostic>,
    seen: HashSet<(Span, String)>,
    ops: usize,
    /// Loop iterations unrolled so far (empty ones too).
    iters: usize,
    /// Atoms declared so far (parameters, outputs, local variables).
    atoms: usize,
    aborted: bool,
    depth: usize,
    loop_hints: ir::LoopHints,
    /// R7: the entry's word size `'m` is left unresolved in -H (each such word fills a whole
    /// register, elaborated as a 1-bit word); what depends on m is rejected on 1-bit words.
    r7_unresolved: Option<Span>,
    /// See [`Checked::entry_bit_params`].
    entry_bit_params: bool,
    /// C2/C10: tables (declaration span and name) bound to LSB-first database S-boxes, with
    /// which S-boxes; one warning each, made at the end.
    c2_tables: Vec<((Span, String), Vec<String>)>,
}

/// Elaborates `prog` for `opts.slicing`. Returns the checked program (if there was no error)
/// and all diagnostics.
pub fn elaborate(prog: &ast::Program, opts: &Options) -> (Option<Checked>, Vec<Diagnostic>) {
    // R5: `-V/-H/-B` fix only the polymorphic direction of the entry. When every explicit
    // direction in the program is the same `d`, the program is compiled as `d`.
    let explicit = explicit_direction(prog);
    let owned;
    let opts = match explicit {
        Some(d) if d != opts.slicing => {
            owned = Options {
                slicing: d,
                ..opts.clone()
            };
            &owned
        }
        _ => opts,
    };
    let mut cx = Ctx {
        ast: prog,
        opts,
        decl_index: HashMap::default(),
        instances: HashMap::default(),
        nodes: Vec::new(),
        infos: Vec::new(),
        used_names: HashSet::default(),
        diags: Vec::new(),
        seen: HashSet::default(),
        ops: 0,
        iters: 0,
        atoms: 0,
        aborted: false,
        depth: 0,
        loop_hints: ir::LoopHints::new(),
        r7_unresolved: None,
        entry_bit_params: false,
        c2_tables: Vec::new(),
    };
    for (i, d) in prog.decls.iter().enumerate() {
        if let Some(&prev) = cx.decl_index.get(d.name.name.as_str()) {
            let first = prog.decls[prev].name.span;
            cx.push(
                Diagnostic::error(d.name.span, format!("`{}` is declared twice", d.name.name))
                    .label("second declaration")
                    .with_secondary(first, "first declared here")
                    .help("included files share one name space (each file is included once, however often it is named)"),
            );
            continue;
        }
        cx.decl_index.insert(&d.name.name, i);
        check_attrs(
            &mut cx,
            &d.attrs,
            &["inline", "no_inline", "interleave", "no_opt"],
        );
    }
    let Some(entry) = prog.decls.len().checked_sub(1) else {
        cx.push(Diagnostic::error_nospan(
            "the program declares no node (the last declaration is the entry point)",
        ));
        return (None, cx.diags);
    };
    let entry_decl = &prog.decls[entry];
    // The entry's node id: declarations checked afterwards (below) add nodes after it.
    let mut entry_node: Option<NodeId> = None;
    if entry_decl.is_array {
        cx.push(
            Diagnostic::error(
                entry_decl.name.span,
                "the entry point (last declaration) cannot be an array",
            )
            .label("entry point"),
        );
    } else {
        // Entry: polymorphic sizes default to 1 in bitslice; otherwise they must be given.
        let mut sizes = BTreeMap::new();
        let mut ok = true;
        for p in entry_decl.inputs.iter().chain(&entry_decl.outputs) {
            if let BaseType::Word {
                size: SizeSpec::Poly(v),
                ..
            } = &p.ty.base
            {
                if opts.slicing == Slicing::B {
                    sizes.insert(v.clone(), 1);
                } else if opts.slicing == Slicing::H {
                    // R7: in hslice an entry word of unresolved size fills one whole register
                    // (a 1-bit hslice word: its one slot is the whole lane); only bitwise logic,
                    // copies and calls act on it, so the result does not depend on m.
                    sizes.insert(v.clone(), 1);
                    cx.r7_unresolved.get_or_insert(p.ty.span);
                } else {
                    ok = false;
                    cx.push(
                        Diagnostic::error(
                            p.ty.span,
                            format!(
                                "the word size of entry parameter `{}` is polymorphic",
                                p.name.name
                            ),
                        )
                        .label("size unknown")
                        .help(
                            "give the entry node concrete types, e.g. `u<V>16x4` instead of `v4`",
                        ),
                    );
                }
            }
            if p.ty.base == BaseType::Nat {
                ok = false;
                cx.push(
                    Diagnostic::error(p.ty.span, "the entry node cannot take `nat` parameters")
                        .label("compile-time parameter"),
                );
            }
        }
        if ok {
            entry_node = cx
                .instantiate(entry, 0, sizes, vec![], entry_decl.name.span, true)
                .ok();
        }
    }
    // Check declarations not reached from the entry, where their types are known.
    let reached: HashSet<usize> = cx.instances.keys().map(|k| k.decl).collect();
    for (i, d) in prog.decls.iter().enumerate() {
        if cx.aborted || i == entry || reached.contains(&i) {
            continue;
        }
        if cx.decl_index.get(d.name.name.as_str()) != Some(&i) {
            continue;
        }
        let mono = d.inputs.iter().chain(&d.outputs).all(|p| {
            matches!(
                p.ty.base,
                BaseType::Word {
                    size: SizeSpec::Known(_),
                    ..
                }
            )
        });
        if mono {
            let n = match &d.kind {
                DeclKind::Node(b) => b.len(),
                DeclKind::Table(l) | DeclKind::Perm(l) => l.len(),
            };
            for arr in 0..n.max(1) {
                let _ = cx.instantiate(i, arr, BTreeMap::new(), vec![], d.name.span, false);
            }
        }
    }
    let c2 = tables::c2_warnings(&cx.c2_tables, opts.compat_usubac);
    cx.diags.extend(c2);
    let has_error = cx.diags.iter().any(|d| d.is_error());
    if has_error || cx.nodes.is_empty() {
        return (None, cx.diags);
    }
    // Keep only nodes reachable from the entry (checked-only instances are dropped).
    let entry_id = entry_node.unwrap_or(NodeId(cx.nodes.len() as u32 - 1));
    let program = prune(
        ir::Program {
            slicing: opts.slicing,
            nodes: cx.nodes,
            interleave: 1,
        },
        entry_id,
    );
    let infos = cx.infos;
    let keep: HashSet<&str> = program.nodes.iter().map(|n| n.name.as_str()).collect();
    let instances = infos
        .into_iter()
        .filter(|i| keep.contains(i.name.as_str()))
        .collect();
    if let Err(e) = ir::verify(&program) {
        return (None, vec![Diagnostic::error_nospan(format!("{}", e))]);
    }
    let loop_hints = cx
        .loop_hints
        .into_iter()
        .filter(|(name, _)| keep.contains(name.as_str()))
        .collect();
    (
        Some(Checked {
            ir: program,
            instances,
            loop_hints,
            entry_bit_params: cx.entry_bit_params,
        }),
        cx.diags,
    )
}

/// The one explicit direction (`u<H>16`, ...) of every parameter and variable type, if all
/// explicit directions agree (R5).
fn explicit_direction(prog: &ast::Program) -> Option<Slicing> {
    let mut found: Option<Slicing> = None;
    for d in &prog.decls {
        let bodies: Vec<&ast::Param> = match &d.kind {
            DeclKind::Node(b) => b.iter().flat_map(|b| b.vars.iter()).collect(),
            _ => vec![],
        };
        for p in d.inputs.iter().chain(&d.outputs).chain(bodies) {
            let dir = match &p.ty.base {
                BaseType::Word {
                    dir: DirSpec::V, ..
                } => Slicing::V,
                BaseType::Word {
                    dir: DirSpec::H, ..
                } => Slicing::H,
                BaseType::Word {
                    dir: DirSpec::B, ..
                } => Slicing::B,
                _ => continue,
            };
            match found {
                None => found = Some(dir),
                Some(f) if f != dir => return None,
                _ => {}
            }
        }
    }
    found
}

/// Keeps the nodes reachable from `entry` (which becomes the last node), renumbering calls.
fn prune(mut prog: ir::Program, entry: NodeId) -> ir::Program {
    let mut reach = vec![false; prog.nodes.len()];
    let mut stack = vec![entry];
    while let Some(n) = stack.pop() {
        if reach[n.0 as usize] {
            continue;
        }
        reach[n.0 as usize] = true;
        stack.extend(
            prog.nodes[n.0 as usize]
                .body
                .iter()
                .filter_map(|ins| ins.callee()),
        );
    }
    let mut order: Vec<usize> = (0..prog.nodes.len())
        .filter(|&i| reach[i] && i != entry.0 as usize)
        .collect();
    order.push(entry.0 as usize);
    prog.reorder_nodes(&order);
    prog
}

fn check_attrs(cx: &mut Ctx, attrs: &[ast::Ident], allowed: &[&str]) {
    for a in attrs {
        if !allowed.contains(&a.name.as_str()) {
            cx.push(
                Diagnostic::warning(
                    a.span,
                    format!("attribute `_{}` has no effect here", a.name),
                )
                .label("ignored"),
            );
        }
    }
}

// ------------------------------------------------------------------------------------------
// Values

#[derive(Clone, Debug)]
struct Word {
    bits: u32,
    /// One atom (V/H) or `bits` one-bit atoms, MSB first (B).
    atoms: Vec<VarId>,
}

#[derive(Clone, Debug)]
struct Val {
    words: Vec<Word>,
    shape: Vec<usize>,
}

impl Val {
    fn tuple(words: Vec<Word>) -> Val {
        let n = words.len();
        Val {
            words,
            shape: if n == 1 { vec![] } else { vec![n] },
        }
    }
    fn atoms(&self) -> Vec<VarId> {
        self.words
            .iter()
            .flat_map(|w| w.atoms.iter().copied())
            .collect()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Input,
    Output,
    Local,
}

struct VarEntry {
    ty: Ty,
    role: Role,
    /// Current version of each atom (word-major; bits inside words in B).
    slots: Vec<VarId>,
    /// The version-0 placeholders (what `=` defines).
    first: Vec<VarId>,
    atoms_per_word: usize,
    decl_span: Span,
}

enum Name {
    Nat(i64),
    Var,
}

struct Inst {
    node: ir::Node,
    vars: HashMap<String, VarEntry>,
    nats: HashMap<String, i64>,
    loops: Vec<(String, i64)>,
    instrs: Vec<(Instr, Span)>,
    /// Per `forall` (inner loops first): the range of `instrs` each iteration produced.
    loop_ranges: Vec<Vec<(usize, usize)>>,
    /// Where each atom written by an equation was defined (indexed by `VarId`).
    def_span: Vec<Option<Span>>,
    input_ids: HashSet<VarId>,
    /// Version atom (made by `:=`) → the variable's version-0 atom (for messages).
    first_of: HashMap<VarId, VarId>,
    /// Atoms that hold a source variable (version 0 or a `:=` version), indexed by `VarId`.
    source_atom: Vec<bool>,
    consts: HashMap<(u32, u64), VarId>,
    names: HashSet<AtomName>,
    /// How many of `names` start with `_t` (only then can a temporary's name be taken).
    t_names: usize,
    suffix: HashMap<String, usize>,
    tmp: usize,
    slicing: Slicing,
    /// `nat` local variables (R8): declared, given a value by `k = <compile-time expr>`.
    nat_locals: HashMap<String, Span>,
    /// The entry node's instance (its parameters' C shapes follow usubac's reshaping, C4).
    is_entry: bool,
    /// Per parameter name: how many innermost dimensions usubac's reshaping merges (C4).
    merges: HashMap<String, usize>,
}

/// `_t<k>` (no leading zero) with `k <= tmp`: the name of a temporary made already.
fn is_temp_name(name: &str, tmp: usize) -> bool {
    match name.strip_prefix("_t") {
        Some(d)
            if !d.is_empty() && !d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit()) =>
        {
            d.parse::<usize>().is_ok_and(|k| k <= tmp)
        }
        _ => false,
    }
}

fn c_ident(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('\'') {
        std::borrow::Cow::Owned(s.replace('\'', "_q"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

impl Inst {
    fn new(name: String, slicing: Slicing, inline: Option<bool>) -> Inst {
        Inst {
            node: ir::Node {
                name,
                inputs: vec![],
                outputs: vec![],
                vars: vec![],
                body: vec![],
                inline,
                lockstep: false,
            },
            vars: HashMap::default(),
            nats: HashMap::default(),
            loops: vec![],
            instrs: vec![],
            loop_ranges: vec![],
            def_span: Vec::new(),
            input_ids: HashSet::default(),
            first_of: HashMap::default(),
            source_atom: Vec::new(),
            consts: HashMap::default(),
            names: HashSet::default(),
            t_names: 0,
            suffix: HashMap::default(),
            tmp: 0,
            slicing,
            nat_locals: HashMap::default(),
            is_entry: false,
            merges: HashMap::default(),
        }
    }

    fn atom_bits(&self, word_bits: u32) -> u32 {
        if self.slicing == Slicing::B {
            1
        } else {
            word_bits
        }
    }

    fn fresh(&mut self, base: &str, bits: u32) -> VarId {
        let base = c_ident(base);
        let mut name = AtomName::from(&*base);
        // Taken: an atom of the node has this name. Temporaries (`_t1`, `_t2`, ...) are not in
        // `names` (they are most atoms of a bitsliced node): they are the `_t<k>` with k <= `tmp`.
        let t_name = base.starts_with("_t");
        if self.names.contains(&name) || is_temp_name(&base, self.tmp) {
            // Per-base counter: amortised O(1) even for millions of versions of one variable.
            let k = self.suffix.entry(base.to_string()).or_insert(0);
            loop {
                *k += 1;
                let cand = format!("{}_{}", base, k);
                if !is_temp_name(&cand, self.tmp) {
                    let cand = AtomName::from(cand);
                    if !self.names.contains(&cand) {
                        name = cand;
                        break;
                    }
                }
            }
        }
        if t_name {
            self.t_names += 1;
        }
        self.names.insert(name.clone());
        self.node.new_var(name, bits)
    }

    fn temp(&mut self, bits: u32) -> VarId {
        loop {
            self.tmp += 1;
            let n = AtomName::numbered("_t", self.tmp);
            if self.t_names == 0 || !self.names.contains(&n) {
                return self.node.new_var(n, bits);
            }
        }
    }

    fn def_span_of(&self, id: VarId) -> Option<Span> {
        self.def_span.get(id.0 as usize).copied().flatten()
    }

    fn set_def_span(&mut self, id: VarId, span: Span) {
        let i = id.0 as usize;
        if self.def_span.len() <= i {
            self.def_span.resize(i + 1, None);
        }
        self.def_span[i] = Some(span);
    }

    fn mark_source(&mut self, id: VarId) {
        let i = id.0 as usize;
        if self.source_atom.len() <= i {
            self.source_atom.resize(i + 1, false);
        }
        self.source_atom[i] = true;
    }

    fn is_source(&self, id: VarId) -> bool {
        self.source_atom
            .get(id.0 as usize)
            .copied()
            .unwrap_or(false)
    }

    /// `x[3]` or `x[3] (bit 5)`: the source element an atom holds (computed only for messages).
    fn describe(&self, id: VarId) -> String {
        let f = self.first_of.get(&id).copied().unwrap_or(id);
        for (name, e) in &self.vars {
            if let Some(k) = e.first.iter().position(|x| *x == f) {
                let shape = match &e.ty {
                    Ty::Words { shape, .. } => shape.clone(),
                    Ty::Nat => vec![],
                };
                let (w, b) = (k / e.atoms_per_word, k % e.atoms_per_word);
                return if e.atoms_per_word > 1 {
                    format!("{}{} (bit {})", name, src_index(&shape, w), b)
                } else {
                    format!("{}{}", name, src_index(&shape, w))
                };
            }
        }
        self.node.var(id).name.to_string()
    }

    /// Declares a source variable with its atoms.
    fn declare(&mut self, name: &str, ty: Ty, role: Role, span: Span) -> Vec<VarId> {
        let (bits, n_words) = match &ty {
            Ty::Words { bits, .. } => (*bits, ty.n_words()),
            Ty::Nat => (1, 0),
        };
        let apw = if self.slicing == Slicing::B {
            bits as usize
        } else {
            1
        };
        let ab = self.atom_bits(bits);
        let mut atoms = Vec::with_capacity(n_words * apw);
        let shape = match &ty {
            Ty::Words { shape, .. } => shape.clone(),
            Ty::Nat => vec![],
        };
        // `name`, then `__i` per index, then `__b<bit>` in B: one buffer for every atom.
        let mut base = String::new();
        self.names.reserve(n_words * apw);
        for w in 0..n_words {
            base.clear();
            base.push_str(name);
            push_index_suffix(&mut base, &shape, w);
            let word_len = base.len();
            for b in 0..apw {
                base.truncate(word_len);
                if apw > 1 {
                    let _ = write!(base, "__b{}", b);
                }
                let id = self.fresh(&base, ab);
                self.mark_source(id);
                atoms.push(id);
            }
        }
        self.vars.insert(
            name.to_string(),
            VarEntry {
                ty,
                role,
                slots: atoms.clone(),
                first: atoms.clone(),
                atoms_per_word: apw,
                decl_span: span,
            },
        );
        atoms
    }
}

/// Appends `__3__1` for word 7 of shape [4, 2] (C-friendly suffix).
fn push_index_suffix(s: &mut String, shape: &[usize], mut w: usize) {
    if shape.is_empty() {
        return;
    }
    let mut idx = [0usize; 8];
    let mut heap_idx = Vec::new();
    let idx: &mut [usize] = if shape.len() <= idx.len() {
        &mut idx[..shape.len()]
    } else {
        heap_idx.resize(shape.len(), 0);
        &mut heap_idx
    };
    for (i, d) in shape.iter().enumerate().rev() {
        idx[i] = w % d;
        w /= d;
    }
    for i in idx.iter() {
        let _ = write!(s, "__{}", i);
    }
}

/// `[3][1]` for word 7 of shape [4, 2] (for messages).
fn src_index(shape: &[usize], mut w: usize) -> String {
    let mut idx = vec![0; shape.len()];
    for (i, d) in shape.iter().enumerate().rev() {
        idx[i] = w % d;
        w /= d;
    }
    idx.iter().map(|i| format!("[{}]", i)).collect()
}

impl<'a> Ctx<'a> {
    fn push(&mut self, d: Diagnostic) {
        let key = (
            d.primary.as_ref().map(|p| p.0).unwrap_or_default(),
            d.message.clone(),
        );
        if self.seen.insert(key) {
            self.diags.push(d);
        }
    }

    fn err(&mut self, inst: &Inst, d: Diagnostic) {
        let d = if inst.loops.is_empty() {
            d
        } else {
            // Inside a loop, report one error per source location (the first failing iteration).
            let sp = d.primary.as_ref().map(|p| p.0).unwrap_or_default();
            if !self.seen.insert((sp, "<in loop>".to_string())) {
                return;
            }
            let it: Vec<String> = inst
                .loops
                .iter()
                .map(|(n, v)| format!("{} = {}", n, v))
                .collect();
            d.note(format!("in loop iteration {}", it.join(", ")))
        };
        self.push(d);
    }

    fn count_op(&mut self, span: Span) -> R<()> {
        self.ops += 1;
        if self.ops > self.opts.max_ops {
            return self.over_budget(span, "operations after unrolling");
        }
        Ok(())
    }

    /// Counts one unrolled loop iteration (empty bodies cost too: 1000^3 empty iterations must
    /// not hang the compiler).
    pub(super) fn count_iteration(&mut self, span: Span) -> R<()> {
        self.iters += 1;
        if self.iters > self.opts.max_ops {
            return self.over_budget(span, "loop iterations unrolled");
        }
        Ok(())
    }

    /// Counts `n` atoms about to be declared (entry parameters included: `x:u64x1000000` is
    /// 64 million atoms in bitslice).
    fn count_atoms(&mut self, span: Span, n: usize) -> R<()> {
        self.atoms = self.atoms.saturating_add(n);
        if self.atoms > self.opts.max_ops {
            return self.over_budget(span, "atoms (one per register-sized word)");
        }
        Ok(())
    }

    /// Counts the atoms a declared parameter or variable of type `ty` will have.
    fn count_type_atoms(&mut self, span: Span, ty: &Ty) -> R<()> {
        if let Ty::Words { bits, .. } = ty {
            let per_word = if self.opts.slicing == Slicing::B {
                *bits as usize
            } else {
                1
            };
            return self.count_atoms(span, ty.n_words().saturating_mul(per_word));
        }
        Ok(())
    }

    fn over_budget(&mut self, span: Span, what: &str) -> R<()> {
        if !self.aborted {
            self.aborted = true;
            let d = budget_exceeded(span, what, self.opts.max_ops);
            self.push(d);
        }
        Err(())
    }

    fn emit(&mut self, inst: &mut Inst, op: Op, bits: u32, span: Span) -> R<VarId> {
        if let Op::Const(c) = op {
            if let Some(&v) = inst.consts.get(&(bits, c)) {
                return Ok(v);
            }
        }
        self.count_op(span)?;
        let is_const = matches!(op, Op::Const(_));
        let c = if let Op::Const(c) = op { c } else { 0 };
        let dst = inst.temp(bits);
        inst.instrs.push((Instr::Assign { dst, op }, span));
        if is_const {
            inst.consts.insert((bits, c), dst);
        }
        Ok(dst)
    }

    // --------------------------------------------------------------------------------------
    // Instances

    /// R7: rejects `what` on a 1-bit word when the entry's word size is unresolved in -H (the
    /// result would depend on m; usubac crashes on it).
    pub(super) fn r7_check(&mut self, inst: &mut Inst, bits: u32, span: Span, what: &str) -> R<()> {
        let Some(entry_span) = self.r7_unresolved else {
            return Ok(());
        };
        if bits != 1 || self.opts.slicing != Slicing::H {
            return Ok(());
        }
        self.err(
            inst,
            Diagnostic::error(span, format!("{} depends on the word size, which is unresolved here", what))
                .label("depends on m")
                .with_secondary(entry_span, "the entry's word size is polymorphic: in -H each such word is one whole register (R7)")
                .help("only bitwise logic, copies and calls may act on it; give the entry concrete types (e.g. `u<H>16` instead of `v1`)"),
        );
        Err(())
    }

    fn instantiate(
        &mut self,
        decl: usize,
        arr: usize,
        sizes: BTreeMap<String, u32>,
        nats: Vec<i64>,
        call_span: Span,
        is_entry: bool,
    ) -> R<NodeId> {
        let key = InstKey {
            decl,
            arr,
            sizes: sizes.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            nats: nats.clone(),
        };
        if let Some(&id) = self.instances.get(&key) {
            return Ok(id);
        }
        if self.aborted {
            return Err(());
        }
        self.depth += 1;
        if self.depth > MAX_CALL_DEPTH {
            self.depth -= 1;
            // Fatal: every caller up the chain would fail the same way (and checking the
            // remaining declarations would redo the chain once per node).
            self.aborted = true;
            self.push(
                Diagnostic::error(call_span, format!("calls nested too deeply: more than {} nodes each calling the next", MAX_CALL_DEPTH))
                    .label("here")
                    .help("each node is elaborated inside its caller; shorten the chain of calls (a loop over one node is not nested)"),
            );
            return Err(());
        }
        let r = self.instantiate_inner(decl, arr, &sizes, &nats, call_span, is_entry);
        self.depth -= 1;
        let id = r?;
        self.instances.insert(key, id);
        Ok(id)
    }

    fn instance_name(
        &mut self,
        decl: &ast::Decl,
        arr: usize,
        sizes: &BTreeMap<String, u32>,
        nats: &[i64],
        is_entry: bool,
    ) -> String {
        let mut name = c_ident(&decl.name.name).into_owned();
        if !is_entry {
            if decl.is_array {
                name = format!("{}__{}", name, arr);
            }
            for (k, v) in sizes {
                name = format!("{}__{}{}", name, c_ident(k), v);
            }
            for n in nats {
                name = format!("{}__n{}", name, n);
            }
        }
        let mut unique = name.clone();
        let mut k = 1;
        while self.used_names.contains(&unique) {
            unique = format!("{}_{}", name, k);
            k += 1;
        }
        self.used_names.insert(unique.clone());
        unique
    }

    fn instantiate_inner(
        &mut self,
        decl_idx: usize,
        arr: usize,
        sizes: &BTreeMap<String, u32>,
        nats: &[i64],
        call_span: Span,
        is_entry: bool,
    ) -> R<NodeId> {
        let decl: &'a ast::Decl = &self.ast.decls[decl_idx];
        let inline = if decl.attrs.iter().any(|a| a.name == "inline") {
            Some(true)
        } else if decl.attrs.iter().any(|a| a.name == "no_inline") {
            Some(false)
        } else {
            None
        };
        let name = self.instance_name(decl, arr, sizes, nats, is_entry);
        let mut inst = Inst::new(name.clone(), self.opts.slicing, inline);
        inst.is_entry = is_entry;
        let mut info = InstanceInfo {
            name,
            decl: decl.name.name.clone(),
            vars: vec![],
        };
        let _ = call_span;

        // Parameters. `nat` parameters are bound to the call's compile-time arguments.
        let mut nat_iter = nats.iter();
        let mut ok = true;
        let mut in_params = Vec::new();
        for p in &decl.inputs {
            if p.ty.base == BaseType::Nat {
                let v = *nat_iter.next().unwrap_or(&0);
                inst.nats.insert(p.name.name.clone(), v);
                info.vars
                    .push(("input", p.name.name.clone(), Ty::Nat, false));
                continue;
            }
            in_params.push(p);
        }
        let mut declared: HashMap<&str, Span> = HashMap::default();
        for p in decl.inputs.iter().chain(&decl.outputs) {
            if let Some(prev) = declared.insert(&p.name.name, p.name.span) {
                self.push(
                    Diagnostic::error(
                        p.name.span,
                        format!("parameter `{}` is declared twice", p.name.name),
                    )
                    .label("again")
                    .with_secondary(prev, "first here"),
                );
                ok = false;
            }
        }
        for (role, list) in [
            (Role::Input, &in_params),
            (Role::Output, &decl.outputs.iter().collect::<Vec<_>>()),
        ] {
            for p in list.iter() {
                let ty = match self
                    .resolve_type(&inst, &p.ty, sizes)
                    .and_then(|t| self.count_type_atoms(p.ty.span, &t).map(|_| t))
                {
                    Ok(t) => t,
                    Err(()) => {
                        ok = false;
                        continue;
                    }
                };
                if ty == Ty::Nat {
                    self.push(
                        Diagnostic::error(p.ty.span, "outputs cannot be `nat`")
                            .label("compile-time type"),
                    );
                    ok = false;
                    continue;
                }
                let (bits, shape) = match &ty {
                    Ty::Words { bits, shape, .. } => (*bits, shape.clone()),
                    Ty::Nat => unreachable!(),
                };
                info.vars.push((
                    if role == Role::Input {
                        "input"
                    } else {
                        "output"
                    },
                    p.name.name.clone(),
                    ty.clone(),
                    p.is_const,
                ));
                let atoms = inst.declare(&p.name.name, ty, role, p.name.span);
                let mut c_dims = shape.clone();
                if self.opts.slicing == Slicing::B && bits > 1 {
                    c_dims.push(bits as usize);
                }
                let param = ir::Param {
                    name: c_ident(&p.name.name).into_owned(),
                    c_dims,
                    word_bits: bits,
                    atoms: atoms.clone(),
                    is_const: p.is_const,
                };
                if role == Role::Input {
                    for a in &atoms {
                        inst.input_ids.insert(*a);
                    }
                    inst.node.inputs.push(param);
                } else {
                    inst.node.outputs.push(param);
                }
            }
        }
        if !ok {
            return Err(());
        }
        match &decl.kind {
            DeclKind::Node(bodies) => {
                let Some(body) = bodies.get(arr) else {
                    self.push(
                        Diagnostic::error(decl.name.span, "node array has no bodies")
                            .label("empty"),
                    );
                    return Err(());
                };
                for p in &body.vars {
                    if let Some(prev) = declared.insert(&p.name.name, p.name.span) {
                        self.push(
                            Diagnostic::error(
                                p.name.span,
                                format!("`{}` is declared twice", p.name.name),
                            )
                            .label("again")
                            .with_secondary(prev, "first here"),
                        );
                        ok = false;
                        continue;
                    }
                    match self
                        .resolve_type(&inst, &p.ty, sizes)
                        .and_then(|t| self.count_type_atoms(p.ty.span, &t).map(|_| t))
                    {
                        Ok(Ty::Nat) => {
                            // R8: a `nat` local; `k = <compile-time expression>` gives it its value.
                            inst.nat_locals.insert(p.name.name.clone(), p.name.span);
                            info.vars.push(("var", p.name.name.clone(), Ty::Nat, false));
                        }
                        Ok(ty) => {
                            info.vars
                                .push(("var", p.name.name.clone(), ty.clone(), false));
                            inst.declare(&p.name.name, ty, Role::Local, p.name.span);
                        }
                        Err(()) => ok = false,
                    }
                }
                if !ok {
                    return Err(());
                }
                for eq in &body.eqs {
                    if self.aborted {
                        return Err(());
                    }
                    let _ = self.equation(&mut inst, eq, decl_idx);
                }
                let mut unset: Vec<(&String, &Span)> = inst
                    .nat_locals
                    .iter()
                    .filter(|(n, _)| !inst.nats.contains_key(*n))
                    .collect();
                unset.sort_by_key(|(_, sp)| (sp.file, sp.lo));
                for (n, sp) in unset {
                    self.push(
                        Diagnostic::warning(
                            *sp,
                            format!("`nat` local `{}` is never given a value", n),
                        )
                        .label("has no effect"),
                    );
                }
            }
            DeclKind::Table(lists) => self.table_body(
                &mut inst,
                decl,
                &lists[arr.min(lists.len().saturating_sub(1))],
            )?,
            DeclKind::Perm(lists) => self.perm_body(
                &mut inst,
                decl,
                &lists[arr.min(lists.len().saturating_sub(1))],
            )?,
        }
        if is_entry {
            self.entry_c_shapes(&mut inst, decl);
        }
        self.finish(inst, info, decl)
    }

    /// usubac's C shapes of the entry's parameters: `b1[n]` is `[n]` (C5), `v1` a scalar, and the
    /// innermost dimensions merged by reshaping (C4). The data layout (row-major) is unchanged.
    fn entry_c_shapes(&mut self, inst: &mut Inst, decl: &ast::Decl) {
        let b = self.opts.slicing == Slicing::B;
        let params: Vec<&ast::Param> = decl
            .inputs
            .iter()
            .filter(|p| p.ty.base != BaseType::Nat)
            .chain(&decl.outputs)
            .collect();
        let merges = inst.merges.clone();
        for (p, ip) in params.iter().zip(
            inst.node
                .inputs
                .iter_mut()
                .chain(inst.node.outputs.iter_mut()),
        ) {
            let bit_dim = b && ip.word_bits > 1;
            let mut shape: Vec<usize> = if bit_dim {
                ip.c_dims[..ip.c_dims.len() - 1].to_vec()
            } else {
                ip.c_dims.clone()
            };
            // A vector count of 1 (`b1`, `v1`, `u8x1`) adds no dimension (C5; R7's `v1`).
            if matches!(p.ty.base, BaseType::Word { count: Some(1), .. }) {
                shape.pop();
            }
            for _ in 0..merges.get(&p.name.name).copied().unwrap_or(0) {
                if shape.len() >= 2 {
                    let x = shape.pop().unwrap();
                    let y = shape.pop().unwrap();
                    shape.push(x * y);
                }
            }
            if bit_dim {
                shape.push(ip.word_bits as usize);
            }
            ip.c_dims = shape;
        }
    }

    /// For usubac's reshaping (C4): the entry parameter at the root of path `e` and the array
    /// nesting the path leaves (the variable's dimensions minus its plain indices).
    fn path_depth(&self, inst: &Inst, e: &Expr) -> Option<(String, usize)> {
        let mut cur = e;
        let mut ones = 0;
        while let ExprKind::Index(b, idx) = &cur.kind {
            if matches!(idx, ast::Index::One(_)) {
                ones += 1;
            }
            cur = b;
        }
        let ExprKind::Var(id) = &cur.kind else {
            return None;
        };
        let v = inst.vars.get(&id.name)?;
        if v.role == Role::Local {
            return None;
        }
        let Ty::Words { shape, .. } = &v.ty else {
            return None;
        };
        Some((id.name.clone(), shape.len().checked_sub(ones)?))
    }

    /// Records a C4 merge when `e` (a path rooted at an entry parameter, holding `words` words)
    /// is bound to a parameter of type `t` with fewer dimensions and as many words.
    fn note_reshape(&mut self, inst: &mut Inst, e: &Expr, t: &ast::TypeExpr, words: usize) {
        if !inst.is_entry {
            return;
        }
        let Some((name, depth)) = self.path_depth(inst, e) else {
            return;
        };
        let BaseType::Word { count, .. } = &t.base else {
            return;
        };
        let pdepth = t.dims.len() + count.is_some() as usize;
        let mut pwords = count.unwrap_or(1) as usize;
        for d in &t.dims {
            match self.eval_nat_quiet(inst, d) {
                Some(k) if k > 0 => pwords *= k as usize,
                _ => return,
            }
        }
        if depth > pdepth && pwords == words {
            let m = inst.merges.entry(name).or_insert(0);
            *m = (*m).max(depth - pdepth);
        }
    }

    fn resolve_type(
        &mut self,
        inst: &Inst,
        t: &ast::TypeExpr,
        sizes: &BTreeMap<String, u32>,
    ) -> R<Ty> {
        let (dir, size, count) = match &t.base {
            BaseType::Nat => {
                if !t.dims.is_empty() {
                    self.push(
                        Diagnostic::error(t.span, "arrays of `nat` are not supported")
                            .label("here"),
                    );
                    return Err(());
                }
                return Ok(Ty::Nat);
            }
            BaseType::Word { dir, size, count } => (dir, size, count),
        };
        let mode = self.opts.slicing;
        let d = match dir {
            DirSpec::Poly(_) => mode,
            DirSpec::V => Slicing::V,
            DirSpec::H => Slicing::H,
            DirSpec::B => Slicing::B,
        };
        if d != mode {
            let flag = match mode {
                Slicing::V => "-V",
                Slicing::H => "-H",
                Slicing::B => "-B",
            };
            self.push(
                Diagnostic::error(
                    t.span,
                    format!(
                        "this type is {}-sliced but the program is compiled with {}",
                        d, flag
                    ),
                )
                .label(format!("explicit direction {}", d))
                .help(format!(
                    "compile with -{} or leave the direction polymorphic (`u32`, `u<'D>32`)",
                    d
                )),
            );
            return Err(());
        }
        let bits = match size {
            SizeSpec::Known(m) => *m,
            SizeSpec::Poly(v) => match sizes.get(v) {
                Some(m) => *m,
                None => {
                    self.push(
                        Diagnostic::error(
                            t.span,
                            format!("cannot determine the word size `'{}`", v),
                        )
                        .label("polymorphic size")
                        .help("use a concrete word type"),
                    );
                    return Err(());
                }
            },
        };
        if bits == 0 || bits > 64 {
            self.push(
                Diagnostic::error(
                    t.span,
                    format!("words of {} bits are not supported (1 to 64)", bits),
                )
                .label("word size"),
            );
            return Err(());
        }
        let mut shape = Vec::new();
        for dexp in &t.dims {
            let n = self.eval_nat(inst, dexp)?;
            if n <= 0 || n > 1 << 24 {
                self.push(
                    Diagnostic::error(dexp.span, format!("array size {} is out of range", n))
                        .label("size"),
                );
                return Err(());
            }
            shape.push(n as usize);
        }
        if let Some(k) = count {
            shape.push(*k as usize);
        }
        let total: usize = shape
            .iter()
            .try_fold(1usize, |a, &b| a.checked_mul(b))
            .unwrap_or(usize::MAX);
        if total > 1 << 24 {
            self.push(
                Diagnostic::error(t.span, "this type is too large")
                    .label(format!("{} words", total)),
            );
            return Err(());
        }
        Ok(Ty::Words {
            dir: d,
            bits,
            shape,
        })
    }

    /// Orders instructions by dependency, checks definitions, builds the IR node.
    fn finish(&mut self, mut inst: Inst, info: InstanceInfo, decl: &ast::Decl) -> R<NodeId> {
        let n_vars = inst.node.vars.len();
        let mut def_of: Vec<Option<usize>> = vec![None; n_vars];
        let mut failed = false;
        // One buffer for every instruction's atoms (`Instr::defs_into`/`uses_into`).
        let mut buf: Vec<VarId> = Vec::new();
        for (i, (ins, span)) in inst.instrs.iter().enumerate() {
            ins.defs_into(&mut buf);
            for &d in &buf {
                if let Some(prev) = def_of[d.0 as usize] {
                    let pspan = inst.instrs[prev].1;
                    let what = inst.describe(d);
                    self.err(
                        &inst,
                        Diagnostic::error(*span, format!("`{}` is defined twice", what))
                            .label("second definition")
                            .with_secondary(pspan, "first definition")
                            .help("use `:=` to give a variable a new version"),
                    );
                    failed = true;
                }
                def_of[d.0 as usize] = Some(i);
            }
        }
        // Uses of atoms that are never defined.
        let mut reported: HashSet<VarId> = HashSet::default();
        for (ins, span) in &inst.instrs {
            ins.uses_into(&mut buf);
            for &u in &buf {
                if def_of[u.0 as usize].is_none()
                    && !inst.input_ids.contains(&u)
                    && reported.insert(u)
                {
                    let what = inst.describe(u);
                    self.push(
                        Diagnostic::error(*span, format!("`{}` is used but never defined", what))
                            .label("used here"),
                    );
                    failed = true;
                }
            }
        }
        // Outputs: their final versions must be defined.
        let mut outputs = std::mem::take(&mut inst.node.outputs);
        for p in outputs.iter_mut() {
            let entry = &inst.vars[&source_name(decl, &p.name)];
            let slots = entry.slots.clone();
            for (k, s) in slots.iter().enumerate() {
                if def_of[s.0 as usize].is_none() {
                    let what = inst.describe(entry.first[k]);
                    self.push(
                        Diagnostic::error(
                            entry.decl_span,
                            format!("output `{}` is never defined", what),
                        )
                        .label("output declared here"),
                    );
                    failed = true;
                    break;
                }
            }
            p.atoms = slots;
        }
        inst.node.outputs = outputs;
        if failed {
            return Err(());
        }
        // Kahn's algorithm, preferring source order.
        // The edges (instruction that defines an operand -> instruction that reads it, once per
        // pair) in one flat list per defining instruction, in reader order (`users_at`).
        let n = inst.instrs.len();
        let mut indeg = vec![0usize; n];
        let mut deps: Vec<(u32, u32)> = Vec::new();
        let mut last_reader = vec![usize::MAX; n];
        for (i, (ins, _)) in inst.instrs.iter().enumerate() {
            ins.for_each_use(|u| {
                if let Some(d) = def_of[u.0 as usize] {
                    if last_reader[d] != i {
                        last_reader[d] = i;
                        indeg[i] += 1;
                        deps.push((d as u32, i as u32));
                    }
                }
            });
        }
        drop(last_reader);
        let mut users_at = vec![0usize; n + 1];
        for &(d, _) in &deps {
            users_at[d as usize + 1] += 1;
        }
        for i in 0..n {
            users_at[i + 1] += users_at[i];
        }
        let mut fill = users_at.clone();
        let mut users = vec![0u32; deps.len()];
        for &(d, i) in &deps {
            users[fill[d as usize]] = i;
            fill[d as usize] += 1;
        }
        drop(deps);
        drop(fill);
        let mut heap: BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
            .filter(|&i| indeg[i] == 0)
            .map(std::cmp::Reverse)
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse(i)) = heap.pop() {
            order.push(i);
            for &u in &users[users_at[i]..users_at[i + 1]] {
                let u = u as usize;
                indeg[u] -= 1;
                if indeg[u] == 0 {
                    heap.push(std::cmp::Reverse(u));
                }
            }
        }
        if order.len() < n {
            let remaining: Vec<usize> = (0..n).filter(|&i| indeg[i] > 0).collect();
            // Walk dependencies among the remaining instructions until one repeats: that is a cycle
            // (the rest merely depend on it).
            let mut pos_in_walk: HashMap<usize, usize> = HashMap::default();
            let mut walk = vec![remaining[0]];
            let mut cur = remaining[0];
            let mut stuck: Vec<usize> = remaining.clone();
            loop {
                pos_in_walk.insert(cur, walk.len() - 1);
                let next = inst.instrs[cur]
                    .0
                    .uses()
                    .into_iter()
                    .filter_map(|u| def_of[u.0 as usize])
                    .find(|&d| indeg[d] > 0);
                let Some(next) = next else { break };
                if let Some(&p) = pos_in_walk.get(&next) {
                    stuck = walk[p..].to_vec();
                    break;
                }
                walk.push(next);
                cur = next;
            }
            stuck.sort();
            // Name whole equations (the copies into source variables) rather than sub-expressions.
            let eqs: Vec<usize> = stuck
                .iter()
                .copied()
                .filter(|&i| matches!(&inst.instrs[i].0, Instr::Assign { dst, op: Op::Copy(_) } if inst.is_source(*dst)))
                .collect();
            if !eqs.is_empty() {
                stuck = eqs;
            }
            let first = inst.instrs[stuck[0]].1;
            let mut d = Diagnostic::error(first, "equations depend on each other in a cycle")
                .label("part of the cycle");
            let mut spans = HashSet::default();
            spans.insert(first);
            for &i in stuck.iter().skip(1) {
                let sp = inst.instrs[i].1;
                if spans.insert(sp) && spans.len() <= 4 {
                    d = d.with_secondary(sp, "also in the cycle");
                }
            }
            self.push(d.help(
                "every value must be computable from the inputs; use `:=` for a new version",
            ));
            return Err(());
        }
        // Loop iterations, as positions in the ordered body.
        let mut new_pos = vec![0usize; n];
        for (new, &old) in order.iter().enumerate() {
            new_pos[old] = new;
        }
        let hints: Vec<ir::LoopHint> = inst
            .loop_ranges
            .iter()
            .map(|ranges| ir::LoopHint {
                iterations: ranges
                    .iter()
                    .map(|&(a, b)| (a..b).map(|old| new_pos[old]).collect())
                    .collect(),
            })
            .collect();
        if !hints.is_empty() {
            self.loop_hints.insert(inst.node.name.clone(), hints);
        }
        let mut slots: Vec<Option<Instr>> = inst.instrs.into_iter().map(|(i, _)| Some(i)).collect();
        inst.node.body = order
            .into_iter()
            .map(|i| slots[i].take().unwrap())
            .collect();
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(inst.node);
        self.infos.push(info);
        Ok(id)
    }
}

fn describe_val(v: &Val) -> String {
    let w = v.words.first().map(|w| w.bits).unwrap_or(0);
    if v.words.len() == 1 {
        format!("a {}-bit word", w)
    } else {
        format!("{} words of {} bits", v.words.len(), w)
    }
}

fn source_name(decl: &ast::Decl, c_name: &str) -> String {
    decl.outputs
        .iter()
        .map(|p| p.name.name.clone())
        .find(|n| c_ident(n) == c_name)
        .unwrap_or_else(|| c_name.to_string())
}
