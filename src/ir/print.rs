//! Text form of the IR (`nakiri compile --dump ir`). Example:
//!
//! ```text
//! slicing V
//! node f
//!   input x [2] word 16 = x__0 x__1
//!   input const k [] word 16 = k
//!   output y [] word 16 = y
//!   t1:16 = xor x__0 x__1
//!   y:16 = rotl t1 3
//! end
//! ```
//! A kept loop (`Instr::Loop`) is one line:
//! `loop 10 round state s0->s0_out:8 args @0 k [r0 r1 ...] results @0 [y0:8 y1:8 ...]`
//! (`@j` = state j, a bare atom = the same in every iteration, `[..]` = one atom per iteration;
//! a result `@j+[..]` also keeps state j after every iteration but the last).
//! A node line may carry attributes: `inline` / `noinline` (`_inline` / `_no_inline`) and
//! `lockstep` (`Node::lockstep`, set by `sched-pairs`).
//! `ir::parse::parse` reads the same text back.

use super::*;
use std::fmt::Write;

fn op_text(node: &Node, op: &Op) -> String {
    use Op::*;
    let n = |v: &VarId| node.var(*v).name.clone();
    match op {
        Const(c) => format!("const {:#x}", c),
        Copy(a) => format!("copy {}", n(a)),
        Not(a) => format!("not {}", n(a)),
        And(a, b) => format!("and {} {}", n(a), n(b)),
        Or(a, b) => format!("or {} {}", n(a), n(b)),
        Xor(a, b) => format!("xor {} {}", n(a), n(b)),
        Andn(a, b) => format!("andn {} {}", n(a), n(b)),
        Add(a, b) => format!("add {} {}", n(a), n(b)),
        Sub(a, b) => format!("sub {} {}", n(a), n(b)),
        Mul(a, b) => format!("mul {} {}", n(a), n(b)),
        Shl(a, k) => format!("shl {} {}", n(a), k),
        Shr(a, k) => format!("shr {} {}", n(a), k),
        Sar(a, k) => format!("sar {} {}", n(a), k),
        Rotl(a, k) => format!("rotl {} {}", n(a), k),
        Rotr(a, k) => format!("rotr {} {}", n(a), k),
        Shuffle(a, p) => format!(
            "shuffle {} [{}]",
            n(a),
            p.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Bitmask(a, k) => format!("bitmask {} {}", n(a), k),
        Pack(a, b) => format!("pack {} {}", n(a), n(b)),
        Ternlog(a, b, c, imm) => format!("ternlog {} {} {} {:#04x}", n(a), n(b), n(c), imm),
    }
}

fn param_text(node: &Node, kind: &str, p: &Param) -> String {
    let dims: String = p.c_dims.iter().map(|d| format!("[{}]", d)).collect();
    let dims = if dims.is_empty() {
        "[]".to_string()
    } else {
        dims
    };
    let atoms: Vec<&str> = p.atoms.iter().map(|a| node.var(*a).name.as_str()).collect();
    format!(
        "  {}{} {} {} word {} = {}\n",
        kind,
        if p.is_const { " const" } else { "" },
        p.name,
        dims,
        p.word_bits,
        atoms.join(" ")
    )
}

pub fn node_to_string(prog: &Program, node: &Node) -> String {
    let mut s = String::new();
    let attr = match node.inline {
        Some(true) => " inline",
        Some(false) => " noinline",
        None => "",
    };
    let _ = writeln!(
        s,
        "node {}{}{}",
        node.name,
        attr,
        if node.lockstep { " lockstep" } else { "" }
    );
    for p in &node.inputs {
        s.push_str(&param_text(node, "input", p));
    }
    for p in &node.outputs {
        s.push_str(&param_text(node, "output", p));
    }
    for ins in &node.body {
        match ins {
            Instr::Assign { dst, op } => {
                let v = node.var(*dst);
                let _ = writeln!(s, "  {}:{} = {}", v.name, v.bits, op_text(node, op));
            }
            Instr::Call { dsts, callee, args } => {
                let d: Vec<String> = dsts
                    .iter()
                    .map(|d| format!("{}:{}", node.var(*d).name, node.bits(*d)))
                    .collect();
                let a: Vec<&str> = args.iter().map(|a| node.var(*a).name.as_str()).collect();
                let _ = writeln!(
                    s,
                    "  {} = call {}({})",
                    d.join(", "),
                    prog.node(*callee).name,
                    a.join(", ")
                );
            }
            Instr::Loop {
                callee,
                count,
                state,
                args,
                results,
            } => {
                let n = |v: &VarId| node.var(*v).name.to_string();
                let list =
                    |vs: &[VarId]| format!("[{}]", vs.iter().map(n).collect::<Vec<_>>().join(" "));
                let st: Vec<String> = state
                    .iter()
                    .map(|(a, b)| format!("{}->{}:{}", n(a), n(b), node.bits(*b)))
                    .collect();
                let ar: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        LoopArg::State(j) => format!("@{}", j),
                        LoopArg::Same(v) => n(v),
                        LoopArg::Each(vs) => list(vs),
                    })
                    .collect();
                let re: Vec<String> = results
                    .iter()
                    .map(|r| match r {
                        LoopResult::State { state: j, each } if each.is_empty() => {
                            format!("@{}", j)
                        }
                        LoopResult::State { state: j, each } => format!(
                            "@{}+[{}]",
                            j,
                            each.iter()
                                .map(|v| format!("{}:{}", n(v), node.bits(*v)))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                        LoopResult::Each(vs) => format!(
                            "[{}]",
                            vs.iter()
                                .map(|v| format!("{}:{}", n(v), node.bits(*v)))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "  loop {} {} state {} args {} results {}",
                    count,
                    prog.node(*callee).name,
                    st.join(" "),
                    ar.join(" "),
                    re.join(" ")
                );
            }
        }
    }
    s.push_str("end\n");
    s
}

pub fn to_string(prog: &Program) -> String {
    let mut s = format!("slicing {}\n", prog.slicing);
    if prog.interleave > 1 {
        s.push_str(&format!("interleave {}\n", prog.interleave));
    }
    for node in &prog.nodes {
        s.push_str(&node_to_string(prog, node));
    }
    s
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_string(self))
    }
}
