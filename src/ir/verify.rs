//! The IR verifier: checks the invariants listed in `ir/mod.rs`. Run after every pass in tests;
//! codegen accepts only verified IR. A failure is a compiler bug, not a user error.

use super::*;

/// A broken IR invariant (a compiler bug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError(pub String);

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "internal error: invalid IR: {}", self.0)
    }
}

pub fn verify(prog: &Program) -> Result<(), VerifyError> {
    if prog.nodes.is_empty() {
        return Err(VerifyError("program has no nodes".into()));
    }
    for (idx, node) in prog.nodes.iter().enumerate() {
        verify_node(prog, idx, node)
            .map_err(|e| VerifyError(format!("node `{}`: {}", node.name, e)))?;
    }
    Ok(())
}

fn verify_node(prog: &Program, idx: usize, node: &Node) -> Result<(), String> {
    let n = node.vars.len();
    let mut defined = vec![false; n];
    let check_id = |v: VarId| -> Result<(), String> {
        if (v.0 as usize) < n {
            Ok(())
        } else {
            Err(format!("atom %{} out of range", v.0))
        }
    };
    for v in &node.vars {
        if v.bits == 0 || v.bits > 64 {
            return Err(format!("atom `{}` has {} bits", v.name, v.bits));
        }
        if prog.slicing == Slicing::B && v.bits != 1 {
            return Err(format!("bitsliced atom `{}` has {} bits", v.name, v.bits));
        }
    }
    for p in &node.inputs {
        for &a in &p.atoms {
            check_id(a)?;
            if defined[a.0 as usize] {
                return Err(format!("input atom `{}` defined twice", node.var(a).name));
            }
            defined[a.0 as usize] = true;
        }
    }
    for p in node.inputs.iter().chain(&node.outputs) {
        let expect: usize = p.c_dims.iter().product();
        if expect != p.atoms.len() {
            return Err(format!(
                "parameter `{}` has dims {:?} but {} atoms",
                p.name,
                p.c_dims,
                p.atoms.len()
            ));
        }
    }
    // One buffer for every instruction's atoms (`Instr::uses_into`/`defs_into`).
    let mut buf: Vec<VarId> = Vec::new();
    for (i, ins) in node.body.iter().enumerate() {
        ins.uses_into(&mut buf);
        for &u in &buf {
            check_id(u)?;
            if !defined[u.0 as usize] {
                return Err(format!(
                    "instruction {} reads `{}` before its definition",
                    i,
                    node.var(u).name
                ));
            }
        }
        match ins {
            Instr::Assign { dst, op } => {
                check_id(*dst)?;
                check_op(prog, node, *dst, op).map_err(|e| format!("instruction {}: {}", i, e))?;
            }
            Instr::Call { dsts, callee, args } => {
                if callee.0 as usize >= idx {
                    return Err(format!("instruction {} calls a later node (or itself)", i));
                }
                let c = prog.node(*callee);
                let ci = c.flat_inputs();
                let co = c.flat_outputs();
                if ci.len() != args.len() || co.len() != dsts.len() {
                    return Err(format!(
                        "call to `{}` has {} args/{} results, expected {}/{}",
                        c.name,
                        args.len(),
                        dsts.len(),
                        ci.len(),
                        co.len()
                    ));
                }
                for (a, p) in args.iter().zip(&ci) {
                    if node.bits(*a) != c.bits(*p) {
                        return Err(format!("call to `{}`: argument width mismatch", c.name));
                    }
                }
                for (d, p) in dsts.iter().zip(&co) {
                    check_id(*d)?;
                    if node.bits(*d) != c.bits(*p) {
                        return Err(format!("call to `{}`: result width mismatch", c.name));
                    }
                }
            }
            Instr::Loop {
                callee,
                count,
                state,
                args,
                results,
            } => {
                if callee.0 as usize >= idx {
                    return Err(format!("instruction {} calls a later node (or itself)", i));
                }
                check_loop(prog, node, *callee, *count, state, args, results)
                    .map_err(|e| format!("instruction {}: {}", i, e))?;
            }
        }
        ins.defs_into(&mut buf);
        for &d in &buf {
            check_id(d)?;
            if defined[d.0 as usize] {
                return Err(format!("atom `{}` defined twice", node.var(d).name));
            }
            defined[d.0 as usize] = true;
        }
    }
    for p in &node.outputs {
        for &a in &p.atoms {
            check_id(a)?;
            if !defined[a.0 as usize] {
                return Err(format!(
                    "output atom `{}` is never defined",
                    node.var(a).name
                ));
            }
        }
    }
    Ok(())
}

fn check_loop(
    prog: &Program,
    node: &Node,
    callee: NodeId,
    count: u32,
    state: &[(VarId, VarId)],
    args: &[LoopArg],
    results: &[LoopResult],
) -> Result<(), String> {
    let c = prog.node(callee);
    let ci = c.flat_inputs();
    let co = c.flat_outputs();
    if ci.len() != args.len() || co.len() != results.len() {
        return Err(format!(
            "loop over `{}` has {} args/{} results, expected {}/{}",
            c.name,
            args.len(),
            results.len(),
            ci.len(),
            co.len()
        ));
    }
    if count == 0 {
        return Err("loop with no iteration".into());
    }
    let n = node.vars.len();
    let in_range = |v: VarId| (v.0 as usize) < n;
    for &(a, b) in state {
        if !in_range(a) || !in_range(b) || node.bits(a) != node.bits(b) {
            return Err("loop state atoms out of range or of different widths".into());
        }
    }
    let state_bits = |j: u32| -> Result<u32, String> {
        state
            .get(j as usize)
            .map(|s| node.bits(s.0))
            .ok_or(format!("loop state {} does not exist", j))
    };
    for (a, p) in args.iter().zip(&ci) {
        let w = c.bits(*p);
        match a {
            LoopArg::State(j) => {
                if state_bits(*j)? != w {
                    return Err(format!(
                        "loop over `{}`: state {} width mismatch",
                        c.name, j
                    ));
                }
            }
            LoopArg::Same(v) => {
                if !in_range(*v) || node.bits(*v) != w {
                    return Err(format!("loop over `{}`: argument width mismatch", c.name));
                }
            }
            LoopArg::Each(vs) => {
                if vs.len() != count as usize
                    || vs.iter().any(|v| !in_range(*v) || node.bits(*v) != w)
                {
                    return Err(format!(
                        "loop over `{}`: per-iteration argument needs {} atoms of {} bits",
                        c.name, count, w
                    ));
                }
            }
        }
    }
    let mut next = vec![0usize; state.len()];
    for (r, p) in results.iter().zip(&co) {
        let w = c.bits(*p);
        match r {
            LoopResult::State { state: j, each } => {
                if state_bits(*j)? != w {
                    return Err(format!(
                        "loop over `{}`: state {} width mismatch",
                        c.name, j
                    ));
                }
                if !each.is_empty()
                    && (each.len() != count as usize - 1
                        || each.iter().any(|v| !in_range(*v) || node.bits(*v) != w))
                {
                    return Err(format!(
                        "loop over `{}`: state {} per-iteration values need {} atoms of {} bits",
                        c.name,
                        j,
                        count - 1,
                        w
                    ));
                }
                next[*j as usize] += 1;
            }
            LoopResult::Each(vs) => {
                if vs.len() != count as usize
                    || vs.iter().any(|v| !in_range(*v) || node.bits(*v) != w)
                {
                    return Err(format!(
                        "loop over `{}`: per-iteration result needs {} atoms of {} bits",
                        c.name, count, w
                    ));
                }
            }
        }
    }
    if next.iter().any(|&k| k != 1) {
        return Err(format!(
            "loop over `{}`: every state needs exactly one result",
            c.name
        ));
    }
    Ok(())
}

fn check_op(prog: &Program, node: &Node, dst: VarId, op: &Op) -> Result<(), String> {
    use Op::*;
    let m = node.bits(dst);
    let same = |a: VarId| -> Result<(), String> {
        if node.bits(a) == m {
            Ok(())
        } else {
            Err(format!(
                "operand `{}` has {} bits, result `{}` has {}",
                node.var(a).name,
                node.bits(a),
                node.var(dst).name,
                m
            ))
        }
    };
    let bitslice_forbidden = matches!(
        op,
        Add(..)
            | Sub(..)
            | Mul(..)
            | Shl(..)
            | Shr(..)
            | Sar(..)
            | Rotl(..)
            | Rotr(..)
            | Shuffle(..)
            | Bitmask(..)
            | Pack(..)
    );
    if prog.slicing == Slicing::B && bitslice_forbidden {
        return Err(format!("op {:?} not allowed in bitslice", op));
    }
    match op {
        Const(c) => {
            if *c & !mask(m) != 0 {
                return Err(format!("constant {:#x} does not fit {} bits", c, m));
            }
        }
        Copy(a) | Not(a) => same(*a)?,
        And(a, b) | Or(a, b) | Xor(a, b) | Andn(a, b) | Add(a, b) | Sub(a, b) | Mul(a, b) => {
            same(*a)?;
            same(*b)?
        }
        Shl(a, k) | Shr(a, k) | Sar(a, k) | Rotl(a, k) | Rotr(a, k) => {
            same(*a)?;
            if *k >= m {
                return Err(format!("shift amount {} >= {}", k, m));
            }
        }
        Shuffle(a, p) => {
            same(*a)?;
            if p.len() != m as usize || p.iter().any(|&i| i >= m) {
                return Err("bad shuffle pattern".into());
            }
        }
        Bitmask(a, k) => {
            same(*a)?;
            if *k >= m {
                return Err("bitmask index out of range".into());
            }
        }
        Ternlog(a, b, c, _) => {
            same(*a)?;
            same(*b)?;
            same(*c)?
        }
        Pack(a, b) => {
            let h = node.bits(*a);
            if node.bits(*b) != h || 2 * h != m {
                return Err("pack widths".into());
            }
        }
    }
    Ok(())
}
