//! The elaborator (see `sema/mod.rs` for what it requires and guarantees).

use super::types::Ty;
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, mask, Instr, NodeId, Op, Slicing, VarId};
use crate::normalize::sbox;
use crate::syntax::ast::{self, AssignKind, BaseType, BinOp, DeclKind, DirSpec, Expr, ExprKind, ShiftOp, SizeSpec};
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BinaryHeap};

#[derive(Clone, Debug)]
pub struct Options {
    pub slicing: Slicing,
    /// Upper bound on IR operations (after unrolling) before giving up with a diagnostic.
    pub max_ops: usize,
}

impl Options {
    pub fn new(slicing: Slicing) -> Options {
        Options { slicing, max_ops: 2_000_000 }
    }
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
    aborted: bool,
    depth: usize,
    loop_hints: ir::LoopHints,
}

/// Elaborates `prog` for `opts.slicing`. Returns the checked program (if there was no error)
/// and all diagnostics.
pub fn elaborate(prog: &ast::Program, opts: &Options) -> (Option<Checked>, Vec<Diagnostic>) {
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
        aborted: false,
        depth: 0,
        loop_hints: ir::LoopHints::new(),
    };
    for (i, d) in prog.decls.iter().enumerate() {
        if let Some(&prev) = cx.decl_index.get(d.name.name.as_str()) {
            let first = prog.decls[prev].name.span;
            cx.push(
                Diagnostic::error(d.name.span, format!("`{}` is declared twice", d.name.name))
                    .label("second declaration")
                    .with_secondary(first, "first declared here")
                    .help("was a file included twice?"),
            );
            continue;
        }
        cx.decl_index.insert(&d.name.name, i);
        check_attrs(&mut cx, &d.attrs, &["inline", "no_inline", "interleave", "no_opt"]);
    }
    let Some(entry) = prog.decls.len().checked_sub(1) else {
        cx.push(Diagnostic::error_nospan("the program declares no node (the last declaration is the entry point)"));
        return (None, cx.diags);
    };
    let entry_decl = &prog.decls[entry];
    // The entry's node id: declarations checked afterwards (below) add nodes after it.
    let mut entry_node: Option<NodeId> = None;
    if entry_decl.is_array {
        cx.push(Diagnostic::error(entry_decl.name.span, "the entry point (last declaration) cannot be an array").label("entry point"));
    } else {
        // Entry: polymorphic sizes default to 1 in bitslice; otherwise they must be given.
        let mut sizes = BTreeMap::new();
        let mut ok = true;
        for p in entry_decl.inputs.iter().chain(&entry_decl.outputs) {
            if let BaseType::Word { size: SizeSpec::Poly(v), .. } = &p.ty.base {
                if opts.slicing == Slicing::B {
                    sizes.insert(v.clone(), 1);
                } else {
                    ok = false;
                    cx.push(
                        Diagnostic::error(p.ty.span, format!("the word size of entry parameter `{}` is polymorphic", p.name.name))
                            .label("size unknown")
                            .help("give the entry node concrete types, e.g. `u<V>16x4` instead of `v4`"),
                    );
                }
            }
            if p.ty.base == BaseType::Nat {
                ok = false;
                cx.push(Diagnostic::error(p.ty.span, "the entry node cannot take `nat` parameters").label("compile-time parameter"));
            }
        }
        if ok {
            entry_node = cx.instantiate(entry, 0, sizes, vec![], entry_decl.name.span, true).ok();
        }
    }
    // Check declarations not reached from the entry, where their types are known.
    for (i, d) in prog.decls.iter().enumerate() {
        if cx.aborted || i == entry || cx.instances.keys().any(|k| k.decl == i) {
            continue;
        }
        if cx.decl_index.get(d.name.name.as_str()) != Some(&i) {
            continue;
        }
        let mono = d.inputs.iter().chain(&d.outputs).all(|p| matches!(p.ty.base, BaseType::Word { size: SizeSpec::Known(_), .. }));
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
    let has_error = cx.diags.iter().any(|d| d.is_error());
    if has_error || cx.nodes.is_empty() {
        return (None, cx.diags);
    }
    // Keep only nodes reachable from the entry (checked-only instances are dropped).
    let entry_id = entry_node.unwrap_or(NodeId(cx.nodes.len() as u32 - 1));
    let program = prune(ir::Program { slicing: opts.slicing, nodes: cx.nodes }, entry_id);
    let infos = cx.infos;
    let keep: HashSet<&str> = program.nodes.iter().map(|n| n.name.as_str()).collect();
    let instances = infos.into_iter().filter(|i| keep.contains(i.name.as_str())).collect();
    if let Err(e) = ir::verify(&program) {
        return (None, vec![Diagnostic::error_nospan(format!("{}", e))]);
    }
    let loop_hints = cx.loop_hints.into_iter().filter(|(name, _)| keep.contains(name.as_str())).collect();
    (Some(Checked { ir: program, instances, loop_hints }), cx.diags)
}

/// Keeps the nodes reachable from `entry` (which becomes the last node), renumbering calls.
fn prune(prog: ir::Program, entry: NodeId) -> ir::Program {
    let mut reach = vec![false; prog.nodes.len()];
    let mut stack = vec![entry];
    while let Some(n) = stack.pop() {
        if reach[n.0 as usize] {
            continue;
        }
        reach[n.0 as usize] = true;
        for ins in &prog.nodes[n.0 as usize].body {
            if let Instr::Call { callee, .. } = ins {
                stack.push(*callee);
            }
        }
    }
    let mut remap = vec![None; prog.nodes.len()];
    let mut order: Vec<usize> = (0..prog.nodes.len()).filter(|&i| reach[i] && i != entry.0 as usize).collect();
    order.push(entry.0 as usize);
    for (new, &old) in order.iter().enumerate() {
        remap[old] = Some(NodeId(new as u32));
    }
    let mut nodes: Vec<Option<ir::Node>> = prog.nodes.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for &old in &order {
        let mut n = nodes[old].take().unwrap();
        for ins in &mut n.body {
            if let Instr::Call { callee, .. } = ins {
                *callee = remap[callee.0 as usize].unwrap();
            }
        }
        out.push(n);
    }
    ir::Program { slicing: prog.slicing, nodes: out }
}

fn check_attrs(cx: &mut Ctx, attrs: &[ast::Ident], allowed: &[&str]) {
    for a in attrs {
        if !allowed.contains(&a.name.as_str()) {
            cx.push(Diagnostic::warning(a.span, format!("attribute `_{}` has no effect here", a.name)).label("ignored"));
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
        Val { words, shape: if n == 1 { vec![] } else { vec![n] } }
    }
    fn atoms(&self) -> Vec<VarId> {
        self.words.iter().flat_map(|w| w.atoms.iter().copied()).collect()
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
    def_span: HashMap<VarId, Span>,
    input_ids: HashSet<VarId>,
    /// Version atom (made by `:=`) → the variable's version-0 atom (for messages).
    first_of: HashMap<VarId, VarId>,
    /// Atoms that hold a source variable (version 0 or a `:=` version), indexed by `VarId`.
    source_atom: Vec<bool>,
    consts: HashMap<(u32, u64), VarId>,
    names: HashSet<String>,
    suffix: HashMap<String, usize>,
    tmp: usize,
    slicing: Slicing,
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
            node: ir::Node { name, inputs: vec![], outputs: vec![], vars: vec![], body: vec![], inline },
            vars: HashMap::default(),
            nats: HashMap::default(),
            loops: vec![],
            instrs: vec![],
            loop_ranges: vec![],
            def_span: HashMap::default(),
            input_ids: HashSet::default(),
            first_of: HashMap::default(),
            source_atom: Vec::new(),
            consts: HashMap::default(),
            names: HashSet::default(),
            suffix: HashMap::default(),
            tmp: 0,
            slicing,
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
        let mut name = base.to_string();
        if self.names.contains(&name) {
            // Per-base counter: amortised O(1) even for millions of versions of one variable.
            let k = self.suffix.entry(base.to_string()).or_insert(0);
            loop {
                *k += 1;
                let cand = format!("{}_{}", base, k);
                if !self.names.contains(&cand) {
                    name = cand;
                    break;
                }
            }
        }
        self.names.insert(name.clone());
        self.node.new_var(name, bits)
    }

    fn temp(&mut self, bits: u32) -> VarId {
        self.tmp += 1;
        let n = format!("_t{}", self.tmp);
        self.fresh(&n, bits)
    }

    fn mark_source(&mut self, id: VarId) {
        let i = id.0 as usize;
        if self.source_atom.len() <= i {
            self.source_atom.resize(i + 1, false);
        }
        self.source_atom[i] = true;
    }

    fn is_source(&self, id: VarId) -> bool {
        self.source_atom.get(id.0 as usize).copied().unwrap_or(false)
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
                return if e.atoms_per_word > 1 { format!("{}{} (bit {})", name, src_index(&shape, w), b) } else { format!("{}{}", name, src_index(&shape, w)) };
            }
        }
        self.node.var(id).name.clone()
    }

    /// Declares a source variable with its atoms.
    fn declare(&mut self, name: &str, ty: Ty, role: Role, span: Span) -> Vec<VarId> {
        let (bits, n_words) = match &ty {
            Ty::Words { bits, .. } => (*bits, ty.n_words()),
            Ty::Nat => (1, 0),
        };
        let apw = if self.slicing == Slicing::B { bits as usize } else { 1 };
        let ab = self.atom_bits(bits);
        let mut atoms = Vec::with_capacity(n_words * apw);
        let shape = match &ty {
            Ty::Words { shape, .. } => shape.clone(),
            Ty::Nat => vec![],
        };
        for w in 0..n_words {
            let idx = index_suffix(&shape, w);
            for b in 0..apw {
                let base = if apw > 1 { format!("{}{}__b{}", name, idx, b) } else { format!("{}{}", name, idx) };
                let id = self.fresh(&base, ab);
                self.mark_source(id);
                atoms.push(id);
            }
        }
        self.vars.insert(
            name.to_string(),
            VarEntry { ty, role, slots: atoms.clone(), first: atoms.clone(), atoms_per_word: apw, decl_span: span },
        );
        atoms
    }
}

/// `__3__1` for word 7 of shape [4, 2] (C-friendly suffix).
fn index_suffix(shape: &[usize], mut w: usize) -> String {
    if shape.is_empty() {
        return String::new();
    }
    let mut idx = vec![0; shape.len()];
    for (i, d) in shape.iter().enumerate().rev() {
        idx[i] = w % d;
        w /= d;
    }
    idx.iter().map(|i| format!("__{}", i)).collect()
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
        let key = (d.primary.as_ref().map(|p| p.0).unwrap_or_default(), d.message.clone());
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
            let it: Vec<String> = inst.loops.iter().map(|(n, v)| format!("{} = {}", n, v)).collect();
            d.note(format!("in loop iteration {}", it.join(", ")))
        };
        self.push(d);
    }

    fn count_op(&mut self, span: Span) -> R<()> {
        self.ops += 1;
        if self.ops > self.opts.max_ops {
            if !self.aborted {
                self.aborted = true;
                self.push(
                    Diagnostic::error(span, format!("program too large: more than {} operations after unrolling", self.opts.max_ops))
                        .label("while elaborating this")
                        .help("check loop bounds and array sizes"),
                );
            }
            return Err(());
        }
        Ok(())
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

    fn instantiate(&mut self, decl: usize, arr: usize, sizes: BTreeMap<String, u32>, nats: Vec<i64>, call_span: Span, is_entry: bool) -> R<NodeId> {
        let key = InstKey { decl, arr, sizes: sizes.iter().map(|(k, v)| (k.clone(), *v)).collect(), nats: nats.clone() };
        if let Some(&id) = self.instances.get(&key) {
            return Ok(id);
        }
        if self.aborted {
            return Err(());
        }
        self.depth += 1;
        if self.depth > 10_000 {
            self.depth -= 1;
            self.push(Diagnostic::error(call_span, "calls nested too deeply").label("here"));
            return Err(());
        }
        let r = self.instantiate_inner(decl, arr, &sizes, &nats, call_span, is_entry);
        self.depth -= 1;
        let id = r?;
        self.instances.insert(key, id);
        Ok(id)
    }

    fn instance_name(&mut self, decl: &ast::Decl, arr: usize, sizes: &BTreeMap<String, u32>, nats: &[i64], is_entry: bool) -> String {
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

    fn instantiate_inner(&mut self, decl_idx: usize, arr: usize, sizes: &BTreeMap<String, u32>, nats: &[i64], call_span: Span, is_entry: bool) -> R<NodeId> {
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
        let mut info = InstanceInfo { name, decl: decl.name.name.clone(), vars: vec![] };
        let _ = call_span;

        // Parameters. `nat` parameters are bound to the call's compile-time arguments.
        let mut nat_iter = nats.iter();
        let mut ok = true;
        let mut in_params = Vec::new();
        for p in &decl.inputs {
            if p.ty.base == BaseType::Nat {
                let v = *nat_iter.next().unwrap_or(&0);
                inst.nats.insert(p.name.name.clone(), v);
                info.vars.push(("input", p.name.name.clone(), Ty::Nat, false));
                continue;
            }
            in_params.push(p);
        }
        let mut declared: HashMap<&str, Span> = HashMap::default();
        for p in decl.inputs.iter().chain(&decl.outputs) {
            if let Some(prev) = declared.insert(&p.name.name, p.name.span) {
                self.push(Diagnostic::error(p.name.span, format!("parameter `{}` is declared twice", p.name.name)).label("again").with_secondary(prev, "first here"));
                ok = false;
            }
        }
        for (role, list) in [(Role::Input, &in_params), (Role::Output, &decl.outputs.iter().collect::<Vec<_>>())] {
            for p in list.iter() {
                let ty = match self.resolve_type(&inst, &p.ty, sizes) {
                    Ok(t) => t,
                    Err(()) => {
                        ok = false;
                        continue;
                    }
                };
                if ty == Ty::Nat {
                    self.push(Diagnostic::error(p.ty.span, "outputs cannot be `nat`").label("compile-time type"));
                    ok = false;
                    continue;
                }
                let (bits, shape) = match &ty {
                    Ty::Words { bits, shape, .. } => (*bits, shape.clone()),
                    Ty::Nat => unreachable!(),
                };
                info.vars.push((if role == Role::Input { "input" } else { "output" }, p.name.name.clone(), ty.clone(), p.is_const));
                let atoms = inst.declare(&p.name.name, ty, role, p.name.span);
                let mut c_dims = shape.clone();
                if self.opts.slicing == Slicing::B && bits > 1 {
                    c_dims.push(bits as usize);
                }
                let param = ir::Param { name: c_ident(&p.name.name).into_owned(), c_dims, word_bits: bits, atoms: atoms.clone(), is_const: p.is_const };
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
                    self.push(Diagnostic::error(decl.name.span, "node array has no bodies").label("empty"));
                    return Err(());
                };
                for p in &body.vars {
                    if let Some(prev) = declared.insert(&p.name.name, p.name.span) {
                        self.push(Diagnostic::error(p.name.span, format!("`{}` is declared twice", p.name.name)).label("again").with_secondary(prev, "first here"));
                        ok = false;
                        continue;
                    }
                    match self.resolve_type(&inst, &p.ty, sizes) {
                        Ok(Ty::Nat) => {
                            self.push(Diagnostic::error(p.ty.span, "local variables cannot be `nat`").label("use a loop index or a nat parameter"));
                            ok = false;
                        }
                        Ok(ty) => {
                            info.vars.push(("var", p.name.name.clone(), ty.clone(), false));
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
            }
            DeclKind::Table(lists) => self.table_body(&mut inst, decl, &lists[arr.min(lists.len().saturating_sub(1))])?,
            DeclKind::Perm(lists) => self.perm_body(&mut inst, decl, &lists[arr.min(lists.len().saturating_sub(1))])?,
        }
        self.finish(inst, info, decl)
    }

    fn resolve_type(&mut self, inst: &Inst, t: &ast::TypeExpr, sizes: &BTreeMap<String, u32>) -> R<Ty> {
        let (dir, size, count) = match &t.base {
            BaseType::Nat => {
                if !t.dims.is_empty() {
                    self.push(Diagnostic::error(t.span, "arrays of `nat` are not supported").label("here"));
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
                Diagnostic::error(t.span, format!("this type is {}-sliced but the program is compiled with {}", d, flag))
                    .label(format!("explicit direction {}", d))
                    .help(format!("compile with -{} or leave the direction polymorphic (`u32`, `u<'D>32`)", d)),
            );
            return Err(());
        }
        let bits = match size {
            SizeSpec::Known(m) => *m,
            SizeSpec::Poly(v) => match sizes.get(v) {
                Some(m) => *m,
                None => {
                    self.push(Diagnostic::error(t.span, format!("cannot determine the word size `'{}`", v)).label("polymorphic size").help("use a concrete word type"));
                    return Err(());
                }
            },
        };
        if bits == 0 || bits > 64 {
            self.push(Diagnostic::error(t.span, format!("words of {} bits are not supported (1 to 64)", bits)).label("word size"));
            return Err(());
        }
        let mut shape = Vec::new();
        for dexp in &t.dims {
            let n = self.eval_nat(inst, dexp)?;
            if n <= 0 || n > 1 << 24 {
                self.push(Diagnostic::error(dexp.span, format!("array size {} is out of range", n)).label("size"));
                return Err(());
            }
            shape.push(n as usize);
        }
        if let Some(k) = count {
            shape.push(*k as usize);
        }
        let total: usize = shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b)).unwrap_or(usize::MAX);
        if total > 1 << 24 {
            self.push(Diagnostic::error(t.span, "this type is too large").label(format!("{} words", total)));
            return Err(());
        }
        Ok(Ty::Words { dir: d, bits, shape })
    }

    /// Orders instructions by dependency, checks definitions, builds the IR node.
    fn finish(&mut self, mut inst: Inst, info: InstanceInfo, decl: &ast::Decl) -> R<NodeId> {
        let n_vars = inst.node.vars.len();
        let mut def_of: Vec<Option<usize>> = vec![None; n_vars];
        let mut failed = false;
        for (i, (ins, span)) in inst.instrs.iter().enumerate() {
            for d in ins.defs() {
                if let Some(prev) = def_of[d.0 as usize] {
                    let pspan = inst.instrs[prev].1;
                    let what = inst.describe(d);
                    self.err(&inst, Diagnostic::error(*span, format!("`{}` is defined twice", what)).label("second definition").with_secondary(pspan, "first definition").help("use `:=` to give a variable a new version"));
                    failed = true;
                }
                def_of[d.0 as usize] = Some(i);
            }
        }
        // Uses of atoms that are never defined.
        let mut reported: HashSet<VarId> = HashSet::default();
        for (ins, span) in &inst.instrs {
            for u in ins.uses() {
                if def_of[u.0 as usize].is_none() && !inst.input_ids.contains(&u) && reported.insert(u) {
                    let what = inst.describe(u);
                    self.push(Diagnostic::error(*span, format!("`{}` is used but never defined", what)).label("used here"));
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
                    self.push(Diagnostic::error(entry.decl_span, format!("output `{}` is never defined", what)).label("output declared here"));
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
        let n = inst.instrs.len();
        let mut indeg = vec![0usize; n];
        let mut users: Vec<Vec<usize>> = vec![vec![]; n];
        for (i, (ins, _)) in inst.instrs.iter().enumerate() {
            let mut seen_dep: Vec<usize> = Vec::new();
            for u in ins.uses() {
                if let Some(d) = def_of[u.0 as usize] {
                    if !seen_dep.contains(&d) {
                        seen_dep.push(d);
                        indeg[i] += 1;
                        users[d].push(i);
                    }
                }
            }
        }
        let mut heap: BinaryHeap<std::cmp::Reverse<usize>> = (0..n).filter(|&i| indeg[i] == 0).map(std::cmp::Reverse).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse(i)) = heap.pop() {
            order.push(i);
            for &u in &users[i] {
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
                let next = inst.instrs[cur].0.uses().into_iter().filter_map(|u| def_of[u.0 as usize]).find(|&d| indeg[d] > 0);
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
            let mut d = Diagnostic::error(first, "equations depend on each other in a cycle").label("part of the cycle");
            let mut spans = HashSet::default();
            spans.insert(first);
            for &i in stuck.iter().skip(1) {
                let sp = inst.instrs[i].1;
                if spans.insert(sp) && spans.len() <= 4 {
                    d = d.with_secondary(sp, "also in the cycle");
                }
            }
            self.push(d.help("every value must be computable from the inputs; use `:=` for a new version"));
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
        inst.node.body = order.into_iter().map(|i| slots[i].take().unwrap()).collect();
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(inst.node);
        self.infos.push(info);
        Ok(id)
    }

    // --------------------------------------------------------------------------------------
    // Tables and perms

    fn element_layout(&self, inst: &Inst) -> (usize, usize, u32) {
        // (#input elements, #output elements, element word bits)
        let count = |ps: &[ir::Param]| -> usize { ps.iter().map(|p| if inst.slicing == Slicing::B { p.atoms.len() / p.word_bits.max(1) as usize } else { p.atoms.len() }).sum() };
        let bits = inst.node.inputs.first().map(|p| p.word_bits).unwrap_or(1);
        (count(&inst.node.inputs), count(&inst.node.outputs), bits)
    }

    fn table_body(&mut self, inst: &mut Inst, decl: &ast::Decl, entries: &[Expr]) -> R<()> {
        let (n_in, n_out, m) = self.element_layout(inst);
        let all_same = inst.node.inputs.iter().chain(&inst.node.outputs).all(|p| p.word_bits == m);
        if !all_same {
            self.push(
                Diagnostic::error(decl.name.span, "table parameters must be vectors of one-bit elements or of one polymorphic word size")
                    .label("table")
                    .help("write table parameters sized in elements: `b4` or `v4`, not `u4`"),
            );
            return Err(());
        }
        if n_in > 16 || n_out > 64 {
            self.push(Diagnostic::error(decl.name.span, format!("table with {} input bits is too large (at most 16)", n_in)).label("table"));
            return Err(());
        }
        if entries.len() > 1 << n_in {
            self.push(Diagnostic::error(decl.name.span, format!("table has {} entries but {} input bits allow at most {}", entries.len(), n_in, 1usize << n_in)).label("too many entries"));
            return Err(());
        }
        let mut table = vec![0u64; 1 << n_in];
        let mut ok = true;
        for (i, e) in entries.iter().enumerate() {
            match self.eval_nat(inst, e) {
                Ok(v) if v >= 0 && (n_out >= 64 || (v as u64) < (1u64 << n_out)) => table[i] = v as u64,
                Ok(v) => {
                    self.push(Diagnostic::error(e.span, format!("table entry {} does not fit in {} output bits", v, n_out)).label("too large"));
                    ok = false;
                }
                Err(()) => ok = false,
            }
        }
        if !ok {
            return Err(());
        }
        let circuit = sbox::table_circuit(n_in, n_out, &table);
        let span = decl.name.span;
        let ab = inst.atom_bits(m);
        let all_ins = inst.node.flat_inputs();
        let all_outs = inst.node.flat_outputs();
        // In bitslice an element of m bits is m atoms: apply the circuit at every bit position.
        let apw = if self.opts.slicing == Slicing::B { m as usize } else { 1 };
        for pos in 0..apw {
        let ins: Vec<VarId> = (0..n_in).map(|e| all_ins[e * apw + pos]).collect();
        let outs: Vec<VarId> = (0..n_out).map(|e| all_outs[e * apw + pos]).collect();
        let mut gates: Vec<VarId> = Vec::with_capacity(circuit.gates.len());
        let wire = |cx: &mut Ctx, inst: &mut Inst, gates: &Vec<VarId>, w: sbox::Wire| -> R<VarId> {
            Ok(match w {
                sbox::Wire::Input(i) => ins[i],
                sbox::Wire::Gate(g) => gates[g],
                sbox::Wire::Const(b) => cx.emit(inst, Op::Const(if b { mask(ab) } else { 0 }), ab, span)?,
            })
        };
        for g in &circuit.gates {
            let op = match *g {
                sbox::Gate::And(a, b) => Op::And(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?),
                sbox::Gate::Or(a, b) => Op::Or(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?),
                sbox::Gate::Xor(a, b) => Op::Xor(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?),
                sbox::Gate::Andn(a, b) => Op::Andn(wire(self, inst, &gates, a)?, wire(self, inst, &gates, b)?),
                sbox::Gate::Not(a) => Op::Not(wire(self, inst, &gates, a)?),
            };
            let v = self.emit(inst, op, ab, span)?;
            gates.push(v);
        }
        for (j, o) in outs.iter().enumerate() {
            let src = wire(self, inst, &gates, circuit.outputs[j])?;
            self.count_op(span)?;
            inst.instrs.push((Instr::Assign { dst: *o, op: Op::Copy(src) }, span));
        }
        }
        Ok(())
    }

    fn perm_body(&mut self, inst: &mut Inst, decl: &ast::Decl, entries: &[Expr]) -> R<()> {
        let (n_in, n_out, m) = self.element_layout(inst);
        if entries.len() != n_out {
            self.push(Diagnostic::error(decl.name.span, format!("perm has {} entries but {} output elements", entries.len(), n_out)).label("perm").help("a perm lists exactly one (1-based) input position per output element"));
            return Err(());
        }
        let apw = if self.opts.slicing == Slicing::B { m as usize } else { 1 };
        let ins = inst.node.flat_inputs();
        let outs = inst.node.flat_outputs();
        for (i, e) in entries.iter().enumerate() {
            let v = self.eval_nat(inst, e)?;
            if v < 1 || v as usize > n_in {
                self.push(Diagnostic::error(e.span, format!("perm entry {} is outside 1..{}", v, n_in)).label("perms are 1-indexed"));
                return Err(());
            }
            let src = (v - 1) as usize;
            for b in 0..apw {
                self.count_op(e.span)?;
                inst.instrs.push((Instr::Assign { dst: outs[i * apw + b], op: Op::Copy(ins[src * apw + b]) }, e.span));
            }
        }
        Ok(())
    }

    // --------------------------------------------------------------------------------------
    // Equations

    fn equation(&mut self, inst: &mut Inst, eq: &ast::Equation, decl_idx: usize) -> R<()> {
        match eq {
            ast::Equation::Forall { attrs, var, from, to, body, span } => {
                check_attrs(self, attrs, &["unroll", "no_unroll", "pipelined"]);
                let a = self.eval_nat(inst, from)?;
                let b = self.eval_nat(inst, to)?;
                let count = (a - b).unsigned_abs() + 1;
                if count > 1 << 22 {
                    self.err(inst, Diagnostic::error(*span, format!("loop runs {} times (at most {} allowed)", count, 1 << 22)).label("loop"));
                    return Err(());
                }
                if inst.vars.contains_key(&var.name) || inst.nats.contains_key(&var.name) || inst.loops.iter().any(|(n, _)| n == &var.name) {
                    self.err(inst, Diagnostic::error(var.span, format!("loop index `{}` shadows another name", var.name)).label("already declared"));
                    return Err(());
                }
                let step: i64 = if a <= b { 1 } else { -1 };
                let mut i = a;
                let keep = !attrs.iter().any(|x| x.name == "unroll");
                let mut ranges = Vec::new();
                loop {
                    let start = inst.instrs.len();
                    inst.loops.push((var.name.clone(), i));
                    for e in body {
                        if self.aborted {
                            inst.loops.pop();
                            return Err(());
                        }
                        let _ = self.equation(inst, e, decl_idx);
                    }
                    inst.loops.pop();
                    ranges.push((start, inst.instrs.len()));
                    if i == b {
                        break;
                    }
                    i += step;
                }
                if keep && ranges.len() > 1 {
                    inst.loop_ranges.push(ranges);
                }
                Ok(())
            }
            ast::Equation::Assign { lhs, kind, rhs, span } => {
                let r = self.assign(inst, lhs, *kind, rhs, *span, decl_idx);
                if r.is_err() {
                    // Poison the left-hand side so later uses don't cascade into more errors.
                    for l in lhs {
                        if let Ok((name, words)) = self.place(inst, l, true) {
                            let Some(v) = inst.vars.get(&name) else { continue };
                            if v.role == Role::Input {
                                continue;
                            }
                            let apw = v.atoms_per_word;
                            let ids: Vec<VarId> = words.iter().flat_map(|w| (0..apw).map(move |b| w * apw + b)).map(|k| inst.vars[&name].slots[k]).collect();
                            for id in ids {
                                if !inst.def_span.contains_key(&id) {
                                    inst.def_span.insert(id, *span);
                                    inst.instrs.push((Instr::Assign { dst: id, op: Op::Const(0) }, *span));
                                }
                            }
                        }
                    }
                }
                r
            }
        }
    }

    fn assign(&mut self, inst: &mut Inst, lhs: &[Expr], kind: AssignKind, rhs: &Expr, span: Span, decl_idx: usize) -> R<()> {
        let mut places = Vec::new();
        let mut expect = Vec::new();
        for l in lhs {
            let (name, words) = self.place(inst, l, false)?;
            let v = &inst.vars[&name];
            if v.role == Role::Input {
                self.err(inst, Diagnostic::error(l.span, format!("cannot assign to input `{}`", name)).label("input parameter").help("declare a local variable in `vars` and assign that"));
                return Err(());
            }
            let bits = match v.ty {
                Ty::Words { bits, .. } => bits,
                Ty::Nat => 1,
            };
            expect.extend(std::iter::repeat(bits).take(words.len()));
            places.push((name, words, l.span));
        }
        let val = self.eval(inst, rhs, Some(&expect), decl_idx)?;
        let rhs_atoms = val.atoms();
        let mut lhs_slots = Vec::new();
        for (name, words, _) in &places {
            let apw = inst.vars[name].atoms_per_word;
            for w in words {
                for b in 0..apw {
                    lhs_slots.push((name.clone(), w * apw + b));
                }
            }
        }
        if lhs_slots.len() != rhs_atoms.len() {
            let unit = if self.opts.slicing == Slicing::B { "bits" } else { "words" };
            self.err(
                inst,
                Diagnostic::error(rhs.span, format!("the right side has {} {} but the left side expects {}", rhs_atoms.len(), unit, lhs_slots.len()))
                    .label("size mismatch")
                    .with_secondary(lhs[0].span.to(lhs[lhs.len() - 1].span), format!("{} {}", lhs_slots.len(), unit)),
            );
            return Err(());
        }
        for ((name, k), a) in lhs_slots.iter().zip(&rhs_atoms) {
            let target_bits = inst.node.bits(inst.vars[name].slots[*k]);
            if target_bits != inst.node.bits(*a) {
                self.err(
                    inst,
                    Diagnostic::error(rhs.span, format!("word size mismatch: {}-bit value assigned to {}-bit `{}`", inst.node.bits(*a), target_bits, name)).label("wrong word size"),
                );
                return Err(());
            }
        }
        for ((name, k), a) in lhs_slots.into_iter().zip(rhs_atoms) {
            let dst = match kind {
                AssignKind::Def => {
                    let v = &inst.vars[&name];
                    let first = v.first[k];
                    if let Some(prev) = inst.def_span.get(&first) {
                        let what = inst.describe(first);
                        let d = Diagnostic::error(span, format!("`{}` is defined twice", what)).label("second definition").with_secondary(*prev, "first definition").help("use `:=` to give a variable a new version");
                        self.err(inst, d);
                        return Err(());
                    }
                    first
                }
                AssignKind::Redef => {
                    let bits = inst.node.bits(inst.vars[&name].slots[k]);
                    let base = inst.node.var(inst.vars[&name].first[k]).name.clone();
                    let id = inst.fresh(&format!("{}_v", base), bits);
                    let f = inst.vars[&name].first[k];
                    inst.first_of.insert(id, f);
                    inst.mark_source(id);
                    inst.vars.get_mut(&name).unwrap().slots[k] = id;
                    id
                }
            };
            inst.def_span.insert(dst, span);
            self.count_op(span)?;
            inst.instrs.push((Instr::Assign { dst, op: Op::Copy(a) }, span));
        }
        Ok(())
    }

    /// Resolves an l-value (or an indexed variable) to (variable, word indices, shape).
    /// Cost is proportional to the selection, not to the variable. `quiet`: no diagnostics.
    fn place(&mut self, inst: &mut Inst, e: &Expr, quiet: bool) -> R<(String, Vec<usize>)> {
        self.place_shaped(inst, e, quiet).map(|(n, w, _)| (n, w))
    }

    fn place_shaped(&mut self, inst: &mut Inst, e: &Expr, quiet: bool) -> R<(String, Vec<usize>, Vec<usize>)> {
        let mut chain = Vec::new();
        let mut cur = e;
        while let ExprKind::Index(b, idx) = &cur.kind {
            chain.push((idx, cur.span));
            cur = b;
        }
        chain.reverse();
        let ExprKind::Var(id) = &cur.kind else {
            if !quiet {
                self.err(inst, Diagnostic::error(e.span, "cannot assign to this expression").label("not a variable").help("the left side is a variable, an indexed variable, or a tuple of them"));
            }
            return Err(());
        };
        let Some(v) = inst.vars.get(&id.name) else {
            if !quiet {
                let d = Diagnostic::error(id.span, format!("unknown variable `{}`", id.name)).label("not declared").help("declare it in the node's `vars`");
                self.err(inst, d);
            }
            return Err(());
        };
        let n_words = v.ty.n_words();
        let mut shape = match &v.ty {
            Ty::Words { shape, .. } => shape.clone(),
            Ty::Nat => vec![],
        };
        let mut sel: Option<Vec<usize>> = None; // None = every word, in order
        for (idx, span) in chain {
            let (picked, new_shape) = self.pick_rows(inst, &shape[..shape.len().min(1)], idx, span, quiet)?;
            let rs: usize = shape[1..].iter().product();
            let mut next = Vec::with_capacity(picked.len() * rs);
            for p in &picked {
                for j in 0..rs {
                    let k = p * rs + j;
                    next.push(match &sel {
                        Some(s) => s[k],
                        None => k,
                    });
                }
            }
            let mut s2 = new_shape;
            s2.extend_from_slice(&shape[1..]);
            shape = s2;
            sel = Some(next);
        }
        Ok((id.name.clone(), sel.unwrap_or_else(|| (0..n_words).collect()), shape))
    }

    fn index_rows<T: Clone>(&mut self, inst: &mut Inst, items: Vec<T>, shape: &[usize], idx: &ast::Index, span: Span, quiet: bool) -> R<(Vec<T>, Vec<usize>)> {
        let (picks, new_shape) = self.pick_rows(inst, shape, idx, span, quiet)?;
        let rs: usize = shape[1..].iter().product();
        let mut out = Vec::with_capacity(picks.len() * rs);
        for p in picks {
            out.extend_from_slice(&items[p * rs..(p + 1) * rs]);
        }
        Ok((out, new_shape))
    }

    /// The rows (outermost indices) an index selects, and the resulting shape.
    fn pick_rows(&mut self, inst: &mut Inst, shape: &[usize], idx: &ast::Index, span: Span, quiet: bool) -> R<(Vec<usize>, Vec<usize>)> {

        if shape.is_empty() {
            if !quiet {
                let _ = idx;
                let m = "cannot index a single word";
                let d = Diagnostic::error(span, m).label("not an array or vector").help("to address the bits of a word, declare it as a vector of bits, e.g. `b32` instead of `u32`");
                self.err(inst, d);
            }
            return Err(());
        }
        let rows = shape[0];
        let mut picks = Vec::new();
        let check = |cx: &mut Ctx, inst: &mut Inst, e: &Expr| -> R<usize> {
            let k = if quiet { cx.eval_nat_quiet(inst, e).ok_or(())? } else { cx.eval_nat(inst, e)? };
            if k < 0 || k as usize >= rows {
                if !quiet {
                    cx.err(inst, Diagnostic::error(e.span, format!("index {} is out of bounds (size {})", k, rows)).label("out of bounds"));
                }
                return Err(());
            }
            Ok(k as usize)
        };
        let new_shape;
        match idx {
            ast::Index::One(e) => {
                picks.push(check(self, inst, e)?);
                new_shape = shape[1..].to_vec();
            }
            ast::Index::Range(a, b) => {
                let a = check(self, inst, a)?;
                let b = check(self, inst, b)?;
                if a <= b {
                    picks.extend(a..=b);
                } else {
                    picks.extend((b..=a).rev());
                }
                let mut s = vec![picks.len()];
                s.extend_from_slice(&shape[1..]);
                new_shape = s;
            }
            ast::Index::List(l) => {
                for e in l {
                    picks.push(check(self, inst, e)?);
                }
                let mut s = vec![picks.len()];
                s.extend_from_slice(&shape[1..]);
                new_shape = s;
            }
        }
        Ok((picks, new_shape))
    }

    // --------------------------------------------------------------------------------------
    // Compile-time naturals

    fn lookup_name(&self, inst: &Inst, name: &str) -> Option<Name> {
        if let Some((_, v)) = inst.loops.iter().rev().find(|(n, _)| n == name) {
            return Some(Name::Nat(*v));
        }
        if let Some(v) = inst.nats.get(name) {
            return Some(Name::Nat(*v));
        }
        if inst.vars.contains_key(name) {
            return Some(Name::Var);
        }
        None
    }

    fn eval_nat_quiet(&mut self, inst: &Inst, e: &Expr) -> Option<i64> {
        let n = self.diags.len();
        let r = self.eval_nat(inst, e).ok();
        self.diags.truncate(n);
        r
    }

    fn eval_nat(&mut self, inst: &Inst, e: &Expr) -> R<i64> {
        match &e.kind {
            ExprKind::Int(n, None) => {
                if *n > i64::MAX as u64 {
                    self.err(inst, Diagnostic::error(e.span, "integer too large for an index expression").label("here"));
                    return Err(());
                }
                Ok(*n as i64)
            }
            ExprKind::Var(id) => match self.lookup_name(inst, &id.name) {
                Some(Name::Nat(v)) => Ok(v),
                Some(Name::Var) => {
                    self.err(
                        inst,
                        Diagnostic::error(id.span, format!("`{}` is not known at compile time", id.name))
                            .label("data-dependent")
                            .help("indices and shift amounts may only use literals, loop indices and `nat` parameters (constant time)"),
                    );
                    Err(())
                }
                None => {
                    self.err(inst, Diagnostic::error(id.span, format!("unknown name `{}`", id.name)).label("not declared"));
                    Err(())
                }
            },
            ExprKind::Bin(op, a, b) => {
                let x = self.eval_nat(inst, a)?;
                let y = self.eval_nat(inst, b)?;
                let r = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div | BinOp::Mod if y == 0 => {
                        self.err(inst, Diagnostic::error(b.span, "division by zero").label("is zero"));
                        return Err(());
                    }
                    BinOp::Div => Some(x.div_euclid(y)),
                    BinOp::Mod => Some(x.rem_euclid(y)),
                    _ => {
                        self.err(inst, Diagnostic::error(e.span, "only `+ - * / %` are allowed in compile-time expressions").label("not an index operator"));
                        return Err(());
                    }
                };
                match r {
                    Some(v) => Ok(v),
                    None => {
                        self.err(inst, Diagnostic::error(e.span, "arithmetic overflow in a compile-time expression").label("overflows"));
                        Err(())
                    }
                }
            }
            _ => {
                self.err(
                    inst,
                    Diagnostic::error(e.span, "expected a compile-time expression")
                        .label("not a constant")
                        .help("indices and shift amounts may only use literals, loop indices and `nat` parameters (constant time)"),
                );
                Err(())
            }
        }
    }

    /// Whether `e` is made only of untyped literals, loop indices and nat parameters.
    fn is_static(&self, inst: &Inst, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_, None) => true,
            ExprKind::Var(id) => matches!(self.lookup_name(inst, &id.name), Some(Name::Nat(_))),
            ExprKind::Bin(_, a, b) => self.is_static(inst, a) && self.is_static(inst, b),
            _ => false,
        }
    }

    // --------------------------------------------------------------------------------------
    // Values

    fn const_val(&mut self, inst: &mut Inst, value: u64, widths: &[u32], span: Span) -> R<Val> {
        let total: u64 = widths.iter().map(|&w| w as u64).sum();
        if total < 64 && value >> total != 0 {
            self.err(inst, Diagnostic::error(span, format!("constant {:#x} does not fit in {} bits", value, total)).label("too large"));
            return Err(());
        }
        let mut words = vec![];
        let mut shift: u64 = 0;
        for &w in widths.iter().rev() {
            let v = if shift >= 64 { 0 } else { (value >> shift) & mask(w) };
            shift += w as u64;
            words.push(self.const_word(inst, v, w, span)?);
        }
        words.reverse();
        Ok(Val::tuple(words))
    }

    fn const_word(&mut self, inst: &mut Inst, v: u64, bits: u32, span: Span) -> R<Word> {
        if self.opts.slicing == Slicing::B {
            let mut atoms = Vec::with_capacity(bits as usize);
            for b in 0..bits {
                let bit = (v >> (bits - 1 - b)) & 1;
                atoms.push(self.emit(inst, Op::Const(bit), 1, span)?);
            }
            Ok(Word { bits, atoms })
        } else {
            Ok(Word { bits, atoms: vec![self.emit(inst, Op::Const(v & mask(bits)), bits, span)?] })
        }
    }

    fn widths(v: &Val) -> Vec<u32> {
        v.words.iter().map(|w| w.bits).collect()
    }

    fn eval(&mut self, inst: &mut Inst, e: &Expr, expect: Option<&[u32]>, decl_idx: usize) -> R<Val> {
        match &e.kind {
            ExprKind::Int(n, None) => match expect {
                Some(w) if !w.is_empty() => self.const_val(inst, *n, w, e.span),
                _ => {
                    self.err(inst, Diagnostic::error(e.span, "cannot infer the type of this constant").label("untyped constant").help(format!("annotate it, e.g. `{}:u32`", n)));
                    Err(())
                }
            },
            ExprKind::Int(n, Some(t)) => {
                let ty = self.resolve_type(inst, t, &BTreeMap::new())?;
                match ty {
                    Ty::Words { bits, shape, .. } => {
                        let count: usize = shape.iter().product();
                        let mut v = self.const_val(inst, *n, &vec![bits; count], e.span)?;
                        v.shape = shape;
                        Ok(v)
                    }
                    Ty::Nat => match expect {
                        Some(w) if !w.is_empty() => self.const_val(inst, *n, w, e.span),
                        _ => {
                            self.err(inst, Diagnostic::error(e.span, "a `nat` constant cannot be used as data here").label("nat"));
                            Err(())
                        }
                    },
                }
            }
            ExprKind::Var(id) => match self.lookup_name(inst, &id.name) {
                Some(Name::Nat(v)) => match expect {
                    Some(w) if !w.is_empty() => self.const_val(inst, v as u64, w, e.span),
                    _ => {
                        self.err(inst, Diagnostic::error(e.span, format!("cannot infer the word type of compile-time value `{}`", id.name)).label("compile-time value"));
                        Err(())
                    }
                },
                Some(Name::Var) => {
                    let v = &inst.vars[&id.name];
                    let (bits, shape) = match &v.ty {
                        Ty::Words { bits, shape, .. } => (*bits, shape.clone()),
                        Ty::Nat => (1, vec![]),
                    };
                    let apw = v.atoms_per_word;
                    let words = v.slots.chunks(apw).map(|c| Word { bits, atoms: c.to_vec() }).collect();
                    Ok(Val { words, shape })
                }
                None => {
                    let d = if self.decl_index.contains_key(id.name.as_str()) {
                        Diagnostic::error(id.span, format!("`{}` is a node, table or perm, not a variable", id.name)).label("call it with arguments")
                    } else {
                        Diagnostic::error(id.span, format!("unknown variable `{}`", id.name)).label("not declared")
                    };
                    self.err(inst, d);
                    Err(())
                }
            },
            ExprKind::Index(base, idx) => {
                let mut root = &**base;
                while let ExprKind::Index(b, _) = &root.kind {
                    root = b;
                }
                if let ExprKind::Var(id) = &root.kind {
                    if matches!(self.lookup_name(inst, &id.name), Some(Name::Var)) {
                        let (name, sel, shape) = self.place_shaped(inst, e, false)?;
                        let v = &inst.vars[&name];
                        let bits = match &v.ty {
                            Ty::Words { bits, .. } => *bits,
                            Ty::Nat => 1,
                        };
                        let apw = v.atoms_per_word;
                        let words = sel.iter().map(|w| Word { bits, atoms: v.slots[w * apw..(w + 1) * apw].to_vec() }).collect();
                        return Ok(Val { words, shape });
                    }
                }
                let v = self.eval(inst, base, None, decl_idx)?;
                let (words, shape) = self.index_rows(inst, v.words, &v.shape, idx, e.span, false)?;
                Ok(Val { words, shape })
            }
            ExprKind::Tuple(items) => self.eval_tuple(inst, items, expect, decl_idx),
            ExprKind::Not(a) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                self.map_atoms(inst, &v, e.span, |x| Op::Not(x))
            }
            ExprKind::Bin(op, a, b) => {
                if self.is_static(inst, e) {
                    let n = self.eval_nat(inst, e)?;
                    if n < 0 {
                        self.err(inst, Diagnostic::error(e.span, format!("negative constant {}", n)).label("negative"));
                        return Err(());
                    }
                    return self.eval(inst, &Expr { kind: ExprKind::Int(n as u64, None), span: e.span }, expect, decl_idx);
                }
                let (va, vb) = if self.is_static(inst, a) {
                    let vb = self.eval(inst, b, expect, decl_idx)?;
                    let w = Self::widths(&vb);
                    (self.eval(inst, a, Some(&w), decl_idx)?, vb)
                } else {
                    let va = self.eval(inst, a, expect, decl_idx)?;
                    let w = Self::widths(&va);
                    let vb = self.eval(inst, b, Some(&w), decl_idx)?;
                    (va, vb)
                };
                self.binop(inst, *op, va, vb, e.span, a.span, b.span)
            }
            ExprKind::Shift(op, a, k) => {
                let amount = self.eval_nat(inst, k)?;
                if amount < 0 {
                    self.err(inst, Diagnostic::error(k.span, "negative shift amount").label("negative"));
                    return Err(());
                }
                let v = self.eval(inst, a, expect, decl_idx)?;
                self.shift(inst, *op, v, amount as u64, e.span)
            }
            ExprKind::Call(f, idx, args) => self.call(inst, f, idx.as_deref(), args, e.span, decl_idx),
            ExprKind::Shuffle(a, pat) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                let mut p = Vec::new();
                for x in pat {
                    p.push(self.eval_nat(inst, x)?);
                }
                let mut words = Vec::new();
                for w in &v.words {
                    if p.len() != w.bits as usize || p.iter().any(|&i| i < 0 || i as u32 >= w.bits) {
                        self.err(inst, Diagnostic::error(e.span, format!("Shuffle pattern must list {} bit positions in 0..{}", w.bits, w.bits)).label("bad pattern"));
                        return Err(());
                    }
                    let perm: Vec<u32> = p.iter().map(|&i| i as u32).collect();
                    words.push(self.shuffle_word(inst, w, &perm, e.span)?);
                }
                Ok(Val { words, shape: v.shape })
            }
            ExprKind::Bitmask(a, k) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                let k = self.eval_nat(inst, k)?;
                let mut words = Vec::new();
                for w in &v.words {
                    if k < 0 || k as u32 >= w.bits {
                        self.err(inst, Diagnostic::error(e.span, format!("Bitmask index {} is outside 0..{}", k, w.bits)).label("bad bit index"));
                        return Err(());
                    }
                    let k = k as u32;
                    let nw = match self.opts.slicing {
                        Slicing::B => Word { bits: w.bits, atoms: vec![w.atoms[k as usize]; w.bits as usize] },
                        Slicing::V => Word { bits: w.bits, atoms: vec![self.emit(inst, Op::Bitmask(w.atoms[0], k), w.bits, e.span)?] },
                        Slicing::H => self.shuffle_word(inst, w, &vec![k; w.bits as usize], e.span)?,
                    };
                    words.push(nw);
                }
                Ok(Val { words, shape: v.shape })
            }
            ExprKind::Pack(a, b, t) => {
                let va = self.eval(inst, a, None, decl_idx)?;
                let vb = self.eval(inst, b, Some(&Self::widths(&va)), decl_idx)?;
                if va.words.len() != 1 || vb.words.len() != 1 || va.words[0].bits != vb.words[0].bits || va.words[0].bits > 32 {
                    self.err(inst, Diagnostic::error(e.span, "Pack takes two words of the same size (at most 32 bits)").label("bad operands"));
                    return Err(());
                }
                let m = va.words[0].bits;
                if let Some(t) = t {
                    if let Ok(Ty::Words { bits, shape, .. }) = self.resolve_type(inst, t, &BTreeMap::new()) {
                        if bits != 2 * m || shape.iter().product::<usize>() != 1 {
                            self.err(inst, Diagnostic::error(t.span, format!("Pack of two {}-bit words gives a u{}", m, 2 * m)).label("wrong result type"));
                            return Err(());
                        }
                    }
                }
                match self.opts.slicing {
                    Slicing::B => {
                        let mut atoms = va.words[0].atoms.clone();
                        atoms.extend_from_slice(&vb.words[0].atoms);
                        Ok(Val::tuple(vec![Word { bits: 2 * m, atoms }]))
                    }
                    Slicing::V => {
                        let r = self.emit(inst, Op::Pack(va.words[0].atoms[0], vb.words[0].atoms[0]), 2 * m, e.span)?;
                        Ok(Val::tuple(vec![Word { bits: 2 * m, atoms: vec![r] }]))
                    }
                    Slicing::H => {
                        self.err(inst, Diagnostic::error(e.span, "Pack cannot be expressed in hslice").label("hslice").help("compile with -V or -B"));
                        Err(())
                    }
                }
            }
            ExprKind::Refresh(a) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                self.map_atoms(inst, &v, e.span, Op::Copy)
            }
        }
    }

    fn eval_tuple(&mut self, inst: &mut Inst, items: &[Expr], expect: Option<&[u32]>, decl_idx: usize) -> R<Val> {
        // Evaluate typed items first; untyped constants share the remaining expected words.
        let mut vals: Vec<Option<Val>> = vec![None; items.len()];
        let mut n_static = 0;
        let mut known = 0usize;
        for (i, it) in items.iter().enumerate() {
            if self.is_static(inst, it) {
                n_static += 1;
            } else {
                let v = self.eval(inst, it, None, decl_idx)?;
                known += v.words.len();
                vals[i] = Some(v);
            }
        }
        if n_static > 0 {
            let Some(exp) = expect else {
                let sp = items.iter().find(|i| self.is_static(inst, i)).map(|i| i.span).unwrap_or_default();
                self.err(inst, Diagnostic::error(sp, "cannot infer the type of this constant").label("untyped constant").help("annotate it, e.g. `0:u32`"));
                return Err(());
            };
            // Work in words when the known items align with the expected words, else in bits.
            let mut exp: Vec<u32> = exp.to_vec();
            let aligned = {
                let mut pos = 0;
                let mut ok = true;
                for v in vals.iter().flatten() {
                    for w in &v.words {
                        if pos >= exp.len() {
                            ok = false;
                            break;
                        }
                        pos += 1;
                        let _ = w;
                    }
                }
                ok && exp.len() >= known
            };
            if !aligned && self.opts.slicing == Slicing::B {
                let total: u32 = exp.iter().sum();
                exp = vec![1; total as usize];
            }
            let remaining = exp.len().saturating_sub(if aligned { known } else { vals.iter().flatten().map(|v| v.words.iter().map(|w| w.bits as usize).sum::<usize>()).sum() });
            if remaining == 0 || remaining % n_static != 0 {
                let sp = items.iter().find(|i| self.is_static(inst, i)).map(|i| i.span).unwrap_or_default();
                self.err(inst, Diagnostic::error(sp, "cannot spread the constants of this tuple evenly over the remaining elements").label("untyped constant").help("annotate the constant with its type"));
                return Err(());
            }
            let per = remaining / n_static;
            // Widths for each constant, in order of position.
            let mut pos = 0usize;
            for (i, it) in items.iter().enumerate() {
                match &vals[i] {
                    Some(v) => {
                        pos += if aligned { v.words.len() } else { v.words.iter().map(|w| w.bits as usize).sum() };
                    }
                    None => {
                        let ws = exp.get(pos..pos + per).map(|s| s.to_vec());
                        let Some(ws) = ws else {
                            self.err(inst, Diagnostic::error(it.span, "tuple does not match the expected shape").label("here"));
                            return Err(());
                        };
                        let n = self.eval_nat(inst, it)?;
                        vals[i] = Some(self.const_val(inst, n as u64, &ws, it.span)?);
                        pos += per;
                    }
                }
            }
        }
        let words: Vec<Word> = vals.into_iter().flat_map(|v| v.unwrap().words).collect();
        let n = words.len();
        Ok(Val { words, shape: vec![n] })
    }

    fn map_atoms(&mut self, inst: &mut Inst, v: &Val, span: Span, f: impl Fn(VarId) -> Op) -> R<Val> {
        let mut words = Vec::with_capacity(v.words.len());
        for w in &v.words {
            let mut atoms = Vec::with_capacity(w.atoms.len());
            for a in &w.atoms {
                let bits = inst.node.bits(*a);
                atoms.push(self.emit(inst, f(*a), bits, span)?);
            }
            words.push(Word { bits: w.bits, atoms });
        }
        Ok(Val { words, shape: v.shape.clone() })
    }

    #[allow(clippy::too_many_arguments)]
    fn binop(&mut self, inst: &mut Inst, op: BinOp, a: Val, b: Val, span: Span, sa: Span, sb: Span) -> R<Val> {
        let logic = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
        if matches!(op, BinOp::Div | BinOp::Mod) {
            self.err(inst, Diagnostic::error(span, "`/` and `%` only apply to compile-time naturals").label("data operands").help("division of data is not constant time; only index expressions may divide"));
            return Err(());
        }
        if logic {
            let aa = a.atoms();
            let bb = b.atoms();
            let same_words = Self::widths(&a) == Self::widths(&b);
            if aa.len() != bb.len() || (!same_words && self.opts.slicing != Slicing::B) {
                self.err(
                    inst,
                    Diagnostic::error(span, "operands of a logic operator have different shapes")
                        .label("mismatch")
                        .with_secondary(sa, describe_val(&a))
                        .with_secondary(sb, describe_val(&b)),
                );
                return Err(());
            }
            for (x, y) in aa.iter().zip(&bb) {
                if inst.node.bits(*x) != inst.node.bits(*y) {
                    self.err(inst, Diagnostic::error(span, "operands have different word sizes").label("mismatch").with_secondary(sa, describe_val(&a)).with_secondary(sb, describe_val(&b)));
                    return Err(());
                }
            }
            let mut out = Vec::with_capacity(aa.len());
            for (x, y) in aa.iter().zip(&bb) {
                let o = match op {
                    BinOp::And => Op::And(*x, *y),
                    BinOp::Or => Op::Or(*x, *y),
                    _ => Op::Xor(*x, *y),
                };
                let bits = inst.node.bits(*x);
                out.push(self.emit(inst, o, bits, span)?);
            }
            // Rebuild with the left operand's word structure.
            let mut words = Vec::new();
            let mut pos = 0;
            for w in &a.words {
                let n = w.atoms.len();
                words.push(Word { bits: w.bits, atoms: out[pos..pos + n].to_vec() });
                pos += n;
            }
            return Ok(Val { words, shape: a.shape });
        }
        // Arithmetic.
        if Self::widths(&a) != Self::widths(&b) {
            self.err(inst, Diagnostic::error(span, "operands of arithmetic have different shapes").label("mismatch").with_secondary(sa, describe_val(&a)).with_secondary(sb, describe_val(&b)));
            return Err(());
        }
        let mut words = Vec::new();
        for (x, y) in a.words.iter().zip(&b.words) {
            let m = x.bits;
            if ![8, 16, 32, 64].contains(&m) {
                self.err(inst, Diagnostic::error(span, format!("arithmetic needs 8-, 16-, 32- or 64-bit words, not {}-bit", m)).label("word size").with_secondary(sa, describe_val(&a)));
                return Err(());
            }
            let w = match (self.opts.slicing, op) {
                (Slicing::V, _) => {
                    let o = match op {
                        BinOp::Add => Op::Add(x.atoms[0], y.atoms[0]),
                        BinOp::Sub => Op::Sub(x.atoms[0], y.atoms[0]),
                        _ => Op::Mul(x.atoms[0], y.atoms[0]),
                    };
                    Word { bits: m, atoms: vec![self.emit(inst, o, m, span)?] }
                }
                (Slicing::B, BinOp::Add) => Word { bits: m, atoms: self.b_add(inst, &x.atoms, &y.atoms, false, span)? },
                (Slicing::B, BinOp::Sub) => {
                    let mut nb = Vec::new();
                    for v in &y.atoms {
                        nb.push(self.emit(inst, Op::Not(*v), 1, span)?);
                    }
                    Word { bits: m, atoms: self.b_add(inst, &x.atoms, &nb, true, span)? }
                }
                (Slicing::B, _) => Word { bits: m, atoms: self.b_mul(inst, &x.atoms, &y.atoms, span)? },
                (Slicing::H, BinOp::Add) => Word { bits: m, atoms: vec![self.h_add(inst, x.atoms[0], y.atoms[0], m, span)?] },
                (Slicing::H, BinOp::Sub) => {
                    let nb = self.emit(inst, Op::Not(y.atoms[0]), m, span)?;
                    let one = self.emit(inst, Op::Const(1), m, span)?;
                    let t = self.h_add(inst, x.atoms[0], nb, m, span)?;
                    Word { bits: m, atoms: vec![self.h_add(inst, t, one, m, span)?] }
                }
                (Slicing::H, _) => {
                    // Shift-and-add: sum over j of (a << j) & broadcast(bit j from the LSB of b).
                    let mut acc = self.emit(inst, Op::Const(0), m, span)?;
                    for j in 0..m {
                        let sh = if j == 0 { x.atoms[0] } else { self.emit(inst, Op::Shl(x.atoms[0], j), m, span)? };
                        let bm = self.emit(inst, Op::Shuffle(y.atoms[0], vec![m - 1 - j; m as usize]), m, span)?;
                        let pp = self.emit(inst, Op::And(sh, bm), m, span)?;
                        acc = self.h_add(inst, acc, pp, m, span)?;
                    }
                    Word { bits: m, atoms: vec![acc] }
                }
            };
            words.push(w);
        }
        Ok(Val { words, shape: a.shape })
    }

    /// Ripple-carry adder over bits (MSB first), with an optional carry-in of one.
    fn b_add(&mut self, inst: &mut Inst, a: &[VarId], b: &[VarId], carry_one: bool, span: Span) -> R<Vec<VarId>> {
        let m = a.len();
        let mut out = vec![VarId(0); m];
        let mut carry: Option<VarId> = if carry_one { Some(self.emit(inst, Op::Const(1), 1, span)?) } else { None };
        for i in (0..m).rev() {
            let x = self.emit(inst, Op::Xor(a[i], b[i]), 1, span)?;
            match carry {
                None => {
                    out[i] = x;
                    if i > 0 {
                        carry = Some(self.emit(inst, Op::And(a[i], b[i]), 1, span)?);
                    }
                }
                Some(c) => {
                    out[i] = self.emit(inst, Op::Xor(x, c), 1, span)?;
                    if i > 0 {
                        let g = self.emit(inst, Op::And(a[i], b[i]), 1, span)?;
                        let p = self.emit(inst, Op::And(x, c), 1, span)?;
                        carry = Some(self.emit(inst, Op::Or(g, p), 1, span)?);
                    }
                }
            }
        }
        Ok(out)
    }

    fn b_mul(&mut self, inst: &mut Inst, a: &[VarId], b: &[VarId], span: Span) -> R<Vec<VarId>> {
        let m = a.len();
        let zero = self.emit(inst, Op::Const(0), 1, span)?;
        let mut acc: Option<Vec<VarId>> = None;
        for j in 0..m {
            // partial product (a << j) & b_j, where b_j is bit j from the LSB
            let bj = b[m - 1 - j];
            let mut pp = vec![zero; m];
            for i in 0..m {
                if i + j < m {
                    pp[i] = self.emit(inst, Op::And(a[i + j], bj), 1, span)?;
                }
            }
            acc = Some(match acc {
                None => pp,
                Some(s) => {
                    // Only the top m-j bits change; the low j bits of pp are zero.
                    let top = self.b_add(inst, &s[..m - j], &pp[..m - j], false, span)?;
                    let mut r = top;
                    r.extend_from_slice(&s[m - j..]);
                    r
                }
            });
        }
        Ok(acc.unwrap_or_default())
    }

    /// Hslice addition with slot shifts: repeat (a, b) := (a ^ b, (a & b) << 1).
    fn h_add(&mut self, inst: &mut Inst, a: VarId, b: VarId, m: u32, span: Span) -> R<VarId> {
        let (mut x, mut y) = (a, b);
        for _ in 0..m - 1 {
            let s = self.emit(inst, Op::Xor(x, y), m, span)?;
            let c = self.emit(inst, Op::And(x, y), m, span)?;
            y = self.emit(inst, Op::Shl(c, 1), m, span)?;
            x = s;
        }
        self.emit(inst, Op::Xor(x, y), m, span)
    }

    fn shuffle_word(&mut self, inst: &mut Inst, w: &Word, perm: &[u32], span: Span) -> R<Word> {
        if self.opts.slicing == Slicing::B {
            Ok(Word { bits: w.bits, atoms: perm.iter().map(|&i| w.atoms[i as usize]).collect() })
        } else {
            Ok(Word { bits: w.bits, atoms: vec![self.emit(inst, Op::Shuffle(w.atoms[0], perm.to_vec()), w.bits, span)?] })
        }
    }

    fn shift(&mut self, inst: &mut Inst, op: ShiftOp, v: Val, k: u64, span: Span) -> R<Val> {
        // Outermost dimension with more than one element.
        let dim = v.shape.iter().position(|&d| d > 1);
        if let Some(d) = dim {
            if op == ShiftOp::Sar {
                self.err(inst, Diagnostic::error(span, "`>>!` (arithmetic shift) applies to single words, not tuples or arrays").label("on a tuple"));
                return Err(());
            }
            let n = v.shape[d];
            let rs: usize = v.shape[d + 1..].iter().product();
            let rows: Vec<Vec<Word>> = v.words.chunks(rs).map(|c| c.to_vec()).collect();
            let mut zero_row = Vec::new();
            for w in &rows[0] {
                zero_row.push(self.const_word(inst, 0, w.bits, span)?);
            }
            let k = k as usize;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let r = match op {
                    ShiftOp::Shl => if i + k < n { rows[i + k].clone() } else { zero_row.clone() },
                    ShiftOp::Shr => if i >= k { rows[i - k].clone() } else { zero_row.clone() },
                    ShiftOp::Rotl => rows[(i + k % n) % n].clone(),
                    ShiftOp::Rotr => rows[(i + n - k % n) % n].clone(),
                    ShiftOp::Sar => unreachable!(),
                };
                out.extend(r);
            }
            return Ok(Val { words: out, shape: v.shape });
        }
        // A single word: move its bits.
        let Some(w) = v.words.first().cloned() else {
            return Ok(v);
        };
        let m = w.bits;
        let nw = if self.opts.slicing == Slicing::B {
            let zero = self.emit(inst, Op::Const(0), 1, span)?;
            let mm = m as usize;
            let k = k as usize;
            let atoms: Vec<VarId> = (0..mm)
                .map(|i| match op {
                    ShiftOp::Shl => if i + k < mm { w.atoms[i + k] } else { zero },
                    ShiftOp::Shr => if i >= k { w.atoms[i - k] } else { zero },
                    ShiftOp::Sar => if i >= k { w.atoms[i - k] } else { w.atoms[0] },
                    ShiftOp::Rotl => w.atoms[(i + k % mm) % mm],
                    ShiftOp::Rotr => w.atoms[(i + mm - k % mm) % mm],
                })
                .collect();
            Word { bits: m, atoms }
        } else {
            let a = w.atoms[0];
            let km = (k % m as u64) as u32;
            let r = match op {
                ShiftOp::Shl | ShiftOp::Shr if k >= m as u64 => self.emit(inst, Op::Const(0), m, span)?,
                ShiftOp::Sar if self.opts.slicing == Slicing::H => {
                    let kk = k.min(m as u64) as u32;
                    let perm: Vec<u32> = (0..m).map(|j| if j < kk { 0 } else { j - kk }).collect();
                    self.emit(inst, Op::Shuffle(a, perm), m, span)?
                }
                ShiftOp::Sar => {
                    let kk = k.min(m as u64 - 1) as u32;
                    if kk == 0 { a } else { self.emit(inst, Op::Sar(a, kk), m, span)? }
                }
                _ if k == 0 || ((op == ShiftOp::Rotl || op == ShiftOp::Rotr) && km == 0) => a,
                ShiftOp::Shl => self.emit(inst, Op::Shl(a, k as u32), m, span)?,
                ShiftOp::Shr => self.emit(inst, Op::Shr(a, k as u32), m, span)?,
                ShiftOp::Rotl => self.emit(inst, Op::Rotl(a, km), m, span)?,
                ShiftOp::Rotr => self.emit(inst, Op::Rotr(a, km), m, span)?,
            };
            Word { bits: m, atoms: vec![r] }
        };
        Ok(Val { words: vec![nw], shape: v.shape })
    }

    // --------------------------------------------------------------------------------------
    // Calls

    fn call(&mut self, inst: &mut Inst, f: &ast::Ident, idx: Option<&Expr>, args: &[Expr], span: Span, decl_idx: usize) -> R<Val> {
        let Some(&callee) = self.decl_index.get(f.name.as_str()) else {
            let d = if inst.vars.contains_key(&f.name) {
                Diagnostic::error(f.span, format!("`{}` is a variable, not a node", f.name)).label("not callable")
            } else {
                Diagnostic::error(f.span, format!("unknown node `{}`", f.name)).label("not declared").help("nodes, tables and perms must be declared before their use")
            };
            self.err(inst, d);
            return Err(());
        };
        if callee >= decl_idx {
            self.err(
                inst,
                Diagnostic::error(f.span, format!("`{}` is used before its declaration", f.name))
                    .label("declared later")
                    .with_secondary(self.ast.decls[callee].name.span, "declared here")
                    .help("declarations must come before their use (recursion is not allowed)"),
            );
            return Err(());
        }
        let d: &'a ast::Decl = &self.ast.decls[callee];
        let n_defs = match &d.kind {
            DeclKind::Node(b) => b.len(),
            DeclKind::Table(l) | DeclKind::Perm(l) => l.len(),
        };
        let arr = match (d.is_array, idx) {
            (true, Some(i)) => {
                let k = self.eval_nat(inst, i)?;
                if k < 0 || k as usize >= n_defs {
                    self.err(inst, Diagnostic::error(i.span, format!("index {} is out of bounds: `{}` has {} definitions", k, f.name, n_defs)).label("out of bounds"));
                    return Err(());
                }
                k as usize
            }
            (true, None) => {
                self.err(inst, Diagnostic::error(f.span, format!("`{}` is an array of definitions; call it as `{}<i>(...)`", f.name, f.name)).label("index missing"));
                return Err(());
            }
            (false, Some(i)) => {
                self.err(inst, Diagnostic::error(i.span, format!("`{}` is not an array; remove `<...>`", f.name)).label("unexpected index"));
                return Err(());
            }
            (false, None) => 0,
        };
        // Split nat and word parameters; arguments flatten.
        let nat_params: Vec<usize> = d.inputs.iter().enumerate().filter(|(_, p)| p.ty.base == BaseType::Nat).map(|(i, _)| i).collect();
        let mut nats = Vec::new();
        let mut word_args: Vec<&Expr> = Vec::new();
        if !nat_params.is_empty() {
            if args.len() != d.inputs.len() {
                self.err(inst, Diagnostic::error(span, format!("`{}` takes {} arguments, {} given", f.name, d.inputs.len(), args.len())).label("wrong number of arguments"));
                return Err(());
            }
            for (i, a) in args.iter().enumerate() {
                if nat_params.contains(&i) {
                    nats.push(self.eval_nat(inst, a)?);
                } else {
                    word_args.push(a);
                }
            }
        } else {
            word_args = args.iter().collect();
        }
        // Evaluate arguments (constants take the parameter types when those are known).
        let mut arg_words: Vec<Word> = Vec::new();
        for a in &word_args {
            let has_static = self.is_static(inst, a) || matches!(&a.kind, ExprKind::Tuple(items) if items.iter().any(|i| self.is_static(inst, i)));
            if has_static {
                // Typed by the callee's remaining parameters, if concrete.
                let mut widths = Vec::new();
                let consumed: usize = arg_words.len();
                let mut seen = 0usize;
                for p in d.inputs.iter().filter(|p| p.ty.base != BaseType::Nat) {
                    if let BaseType::Word { size: SizeSpec::Known(m), count, .. } = &p.ty.base {
                        let mut n = count.unwrap_or(1) as usize;
                        for dim in &p.ty.dims {
                            n *= self.eval_nat_quiet(inst, dim).unwrap_or(1).max(1) as usize;
                        }
                        for _ in 0..n {
                            if seen >= consumed {
                                widths.push(*m);
                            }
                            seen += 1;
                        }
                    }
                    if !widths.is_empty() {
                        break;
                    }
                }
                let v = self.eval(inst, a, if widths.is_empty() { None } else { Some(&widths) }, decl_idx)?;
                arg_words.extend(v.words);
            } else {
                let v = self.eval(inst, a, None, decl_idx)?;
                arg_words.extend(v.words);
            }
        }
        let sizes = self.unify(inst, d, &nats, &arg_words, span)?;
        let id = self.instantiate(callee, arr, sizes, nats, span, false)?;
        let cnode = &self.nodes[id.0 as usize];
        let c_in: Vec<u32> = cnode.flat_inputs().iter().map(|a| cnode.bits(*a)).collect();
        let outs: Vec<(u32, usize, Vec<usize>)> = cnode
            .outputs
            .iter()
            .map(|p| {
                let shape: Vec<usize> = if self.opts.slicing == Slicing::B && p.word_bits > 1 { p.c_dims[..p.c_dims.len() - 1].to_vec() } else { p.c_dims.clone() };
                (p.word_bits, p.atoms.len(), shape)
            })
            .collect();
        let args_atoms: Vec<VarId> = arg_words.iter().flat_map(|w| w.atoms.iter().copied()).collect();
        if args_atoms.len() != c_in.len() || args_atoms.iter().zip(&c_in).any(|(a, b)| inst.node.bits(*a) != *b) {
            self.err(inst, Diagnostic::error(span, format!("arguments do not match the parameters of `{}`", f.name)).label("argument mismatch"));
            return Err(());
        }
        self.count_op(span)?;
        let mut dsts = Vec::new();
        let mut words = Vec::new();
        let mut shape_single = None;
        for (bits, n_atoms, shape) in &outs {
            let apw = if self.opts.slicing == Slicing::B { *bits as usize } else { 1 };
            let ab = inst.atom_bits(*bits);
            let mut atoms = Vec::new();
            for _ in 0..*n_atoms {
                let t = inst.temp(ab);
                atoms.push(t);
                dsts.push(t);
            }
            for c in atoms.chunks(apw) {
                words.push(Word { bits: *bits, atoms: c.to_vec() });
            }
            shape_single = Some(shape.clone());
        }
        inst.instrs.push((Instr::Call { dsts, callee: id, args: args_atoms }, span));
        let n = words.len();
        let shape = if outs.len() == 1 { shape_single.unwrap() } else { vec![n] };
        Ok(Val { words, shape })
    }

    /// Finds the callee's polymorphic word sizes from the arguments' words.
    fn unify(&mut self, inst: &mut Inst, d: &ast::Decl, nats: &[i64], args: &[Word], span: Span) -> R<BTreeMap<String, u32>> {
        // Each word parameter: (size spec, number of words).
        let mut tmp = Inst::new(String::new(), self.opts.slicing, None);
        let nat_names: Vec<&String> = d.inputs.iter().filter(|p| p.ty.base == BaseType::Nat).map(|p| &p.name.name).collect();
        for (n, v) in nat_names.iter().zip(nats) {
            tmp.nats.insert((*n).clone(), *v);
        }
        let mut params = Vec::new();
        for p in d.inputs.iter().filter(|p| p.ty.base != BaseType::Nat) {
            if let BaseType::Word { size, count, .. } = &p.ty.base {
                let mut n = count.unwrap_or(1) as usize;
                for dim in &p.ty.dims {
                    let k = self.eval_nat(&mut tmp, dim)?;
                    n = n.saturating_mul(k.max(0) as usize);
                }
                params.push((size.clone(), n));
            }
        }
        let mut sizes = BTreeMap::new();
        let n_param_words: usize = params.iter().map(|p| p.1).sum();
        let fail = |cx: &mut Ctx, inst: &Inst, msg: String| {
            cx.err(inst, Diagnostic::error(span, msg).label("in this call").with_secondary(d.name.span, "parameters declared here"));
        };
        if n_param_words == args.len() {
            let mut i = 0;
            let mut ok = true;
            for (size, n) in &params {
                for _ in 0..*n {
                    let a = args[i].bits;
                    i += 1;
                    match size {
                        SizeSpec::Known(m) if *m == a => {}
                        SizeSpec::Known(_) => ok = false,
                        SizeSpec::Poly(v) => match sizes.get(v) {
                            Some(&m) if m != a => ok = false,
                            _ => {
                                sizes.insert(v.clone(), a);
                            }
                        },
                    }
                }
            }
            if ok {
                return Ok(sizes);
            }
            if self.opts.slicing != Slicing::B {
                fail(self, inst, format!("argument word sizes do not match the parameters of `{}`", d.name.name));
                return Err(());
            }
            sizes.clear();
        }
        if self.opts.slicing == Slicing::B {
            // Bit-level matching: u<B>32 and b32 are both 32 bits.
            let total: usize = args.iter().map(|w| w.bits as usize).sum();
            let known: usize = params.iter().filter_map(|(s, n)| if let SizeSpec::Known(m) = s { Some(*m as usize * n) } else { None }).sum();
            let poly: Vec<&String> = params.iter().filter_map(|(s, _)| if let SizeSpec::Poly(v) = s { Some(v) } else { None }).collect();
            let poly_words: usize = params.iter().filter(|(s, _)| matches!(s, SizeSpec::Poly(_))).map(|p| p.1).sum();
            if poly_words == 0 {
                if known == total {
                    return Ok(sizes);
                }
            } else if total > known && (total - known) % poly_words == 0 && poly.iter().all(|v| *v == poly[0]) {
                let m = (total - known) / poly_words;
                if m <= 64 {
                    sizes.insert(poly[0].clone(), m as u32);
                    return Ok(sizes);
                }
            }
            fail(self, inst, format!("`{}` expects {} argument bits, {} given", d.name.name, if poly_words == 0 { known.to_string() } else { "a different number of".into() }, total));
            return Err(());
        }
        fail(self, inst, format!("`{}` takes {} argument words, {} given", d.name.name, n_param_words, args.len()));
        Err(())
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
    decl.outputs.iter().map(|p| p.name.name.clone()).find(|n| c_ident(n) == c_name).unwrap_or_else(|| c_name.to_string())
}
