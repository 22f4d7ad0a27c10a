//! Reads the text form written by `ir::print` back into a [`Program`] (for text-in/text-out
//! tests of passes). `parse(&print(p)) == p` for every valid program.

use super::*;
use std::collections::HashMap;

fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, String> {
    Err(format!("line {}: {}", line + 1, msg.into()))
}

struct NodeBuilder {
    node: Node,
    ids: HashMap<String, VarId>,
}

impl NodeBuilder {
    fn var(&mut self, name: &str, bits: u32) -> VarId {
        if let Some(&v) = self.ids.get(name) {
            return v;
        }
        let v = self.node.new_var(name.to_string(), bits);
        self.ids.insert(name.to_string(), v);
        v
    }
    fn get(&self, line: usize, name: &str) -> Result<VarId, String> {
        match self.ids.get(name) {
            Some(&v) => Ok(v),
            None => err(line, format!("unknown atom `{}`", name)),
        }
    }
}

/// `name:bits`
fn typed(line: usize, s: &str) -> Result<(String, u32), String> {
    let Some((n, b)) = s.trim().rsplit_once(':') else {
        return err(line, format!("expected name:bits, got `{}`", s));
    };
    let bits = b
        .parse()
        .map_err(|_| format!("line {}: bad width `{}`", line + 1, b))?;
    Ok((n.to_string(), bits))
}

pub fn parse(text: &str) -> Result<Program, String> {
    let mut slicing = None;
    let mut interleave = 1u32;
    let mut nodes: Vec<Node> = Vec::new();
    let mut node_ids: HashMap<String, NodeId> = HashMap::new();
    let mut cur: Option<NodeBuilder> = None;
    for (ln, raw) in text.lines().enumerate() {
        let line = raw.trim();
        // `;` starts a comment line (test files put their header and expectations there).
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "interleave" => {
                interleave = match words.get(1).and_then(|w| w.parse().ok()) {
                    Some(k) if k >= 1 => k,
                    _ => return err(ln, "expected `interleave K` with K >= 1"),
                };
            }
            "slicing" => {
                slicing = Some(match words.get(1).copied() {
                    Some("V") => Slicing::V,
                    Some("H") => Slicing::H,
                    Some("B") => Slicing::B,
                    _ => return err(ln, "expected slicing V, H or B"),
                })
            }
            "node" => {
                let Some(name) = words.get(1) else {
                    return err(ln, "node needs a name");
                };
                let attrs = &words[2.min(words.len())..];
                let inline = if attrs.contains(&"inline") {
                    Some(true)
                } else if attrs.contains(&"noinline") {
                    Some(false)
                } else {
                    None
                };
                let lockstep = attrs.contains(&"lockstep");
                cur = Some(NodeBuilder {
                    node: Node {
                        name: name.to_string(),
                        inputs: vec![],
                        outputs: vec![],
                        vars: vec![],
                        body: vec![],
                        inline,
                        lockstep,
                    },
                    ids: HashMap::new(),
                });
            }
            "end" => {
                let Some(b) = cur.take() else {
                    return err(ln, "`end` outside a node");
                };
                node_ids.insert(b.node.name.clone(), NodeId(nodes.len() as u32));
                nodes.push(b.node);
            }
            "input" | "output" => {
                let Some(b) = cur.as_mut() else {
                    return err(ln, "parameter outside a node");
                };
                let Some(s) = slicing else {
                    return err(ln, "missing `slicing` line");
                };
                // input [const] NAME DIMS word W = atoms...
                let mut i = 1;
                let is_const = words.get(1) == Some(&"const");
                if is_const {
                    i += 1;
                }
                let (Some(name), Some(dims)) = (words.get(i), words.get(i + 1)) else {
                    return err(ln, "bad parameter");
                };
                let c_dims: Vec<usize> = if *dims == "[]" {
                    vec![]
                } else {
                    dims.trim_start_matches('[')
                        .trim_end_matches(']')
                        .split("][")
                        .map(|d| d.parse().map_err(|_| format!("line {}: bad dims", ln + 1)))
                        .collect::<Result<_, _>>()?
                };
                if words.get(i + 2) != Some(&"word") || words.get(i + 4) != Some(&"=") {
                    return err(ln, "expected `word W = atoms`");
                }
                let word_bits: u32 = words[i + 3]
                    .parse()
                    .map_err(|_| format!("line {}: bad word size", ln + 1))?;
                let atom_bits = if s == Slicing::B { 1 } else { word_bits };
                let atoms: Vec<VarId> = if words[0] == "input" {
                    words[i + 5..].iter().map(|a| b.var(a, atom_bits)).collect()
                } else {
                    // outputs refer to atoms defined in the body, which comes later: declare now
                    words[i + 5..].iter().map(|a| b.var(a, atom_bits)).collect()
                };
                let p = Param {
                    name: name.to_string(),
                    c_dims,
                    word_bits,
                    atoms,
                    is_const,
                };
                if words[0] == "input" {
                    b.node.inputs.push(p);
                } else {
                    b.node.outputs.push(p);
                }
            }
            "loop" => {
                let Some(b) = cur.as_mut() else {
                    return err(ln, "instruction outside a node");
                };
                let ins = parse_loop(ln, line, b, &node_ids)?;
                b.node.body.push(ins);
            }
            _ => {
                let Some(b) = cur.as_mut() else {
                    return err(ln, "instruction outside a node");
                };
                let Some((lhs, rhs)) = line.split_once(" = ") else {
                    return err(ln, "expected `dst = op`");
                };
                let rhs = rhs.trim();
                if let Some(call) = rhs.strip_prefix("call ") {
                    let Some((callee, args)) = call.split_once('(') else {
                        return err(ln, "bad call");
                    };
                    let Some(&cid) = node_ids.get(callee.trim()) else {
                        return err(ln, format!("unknown node `{}`", callee));
                    };
                    let args = args.trim_end_matches(')');
                    let args: Vec<VarId> = args
                        .split(',')
                        .map(|a| a.trim())
                        .filter(|a| !a.is_empty())
                        .map(|a| b.get(ln, a))
                        .collect::<Result<_, _>>()?;
                    let mut dsts = Vec::new();
                    for d in lhs.split(',') {
                        let (n, bits) = typed(ln, d)?;
                        dsts.push(b.var(&n, bits));
                    }
                    b.node.body.push(Instr::Call {
                        dsts,
                        callee: cid,
                        args,
                    });
                    continue;
                }
                let (n, bits) = typed(ln, lhs)?;
                let ops: Vec<&str> = rhs.split_whitespace().collect();
                let a = |k: usize| -> Result<VarId, String> {
                    match ops.get(k) {
                        Some(x) => b.get(ln, x),
                        None => err(ln, "missing operand"),
                    }
                };
                let num = |k: usize| -> Result<u32, String> {
                    ops.get(k)
                        .and_then(|x| x.parse().ok())
                        .ok_or(format!("line {}: bad number", ln + 1))
                };
                let op = match ops.first().copied() {
                    Some("const") => {
                        let t = ops.get(1).copied().unwrap_or("");
                        let v = u64::from_str_radix(t.trim_start_matches("0x"), 16)
                            .map_err(|_| format!("line {}: bad constant", ln + 1))?;
                        Op::Const(v)
                    }
                    Some("copy") => Op::Copy(a(1)?),
                    Some("not") => Op::Not(a(1)?),
                    Some("and") => Op::And(a(1)?, a(2)?),
                    Some("or") => Op::Or(a(1)?, a(2)?),
                    Some("xor") => Op::Xor(a(1)?, a(2)?),
                    Some("andn") => Op::Andn(a(1)?, a(2)?),
                    Some("add") => Op::Add(a(1)?, a(2)?),
                    Some("sub") => Op::Sub(a(1)?, a(2)?),
                    Some("mul") => Op::Mul(a(1)?, a(2)?),
                    Some("shl") => Op::Shl(a(1)?, num(2)?),
                    Some("shr") => Op::Shr(a(1)?, num(2)?),
                    Some("sar") => Op::Sar(a(1)?, num(2)?),
                    Some("rotl") => Op::Rotl(a(1)?, num(2)?),
                    Some("rotr") => Op::Rotr(a(1)?, num(2)?),
                    Some("bitmask") => Op::Bitmask(a(1)?, num(2)?),
                    Some("pack") => Op::Pack(a(1)?, a(2)?),
                    Some("ternlog") => {
                        let t = ops.get(4).copied().unwrap_or("");
                        let imm = u8::from_str_radix(t.trim_start_matches("0x"), 16)
                            .map_err(|_| format!("line {}: bad ternlog immediate", ln + 1))?;
                        Op::Ternlog(a(1)?, a(2)?, a(3)?, imm)
                    }
                    Some("shuffle") => {
                        let inner = rhs
                            .split_once('[')
                            .map(|x| x.1.trim_end_matches(']'))
                            .unwrap_or("");
                        let p: Vec<u32> = inner
                            .split_whitespace()
                            .map(|x| {
                                x.parse()
                                    .map_err(|_| format!("line {}: bad shuffle", ln + 1))
                            })
                            .collect::<Result<_, _>>()?;
                        Op::Shuffle(a(1)?, p)
                    }
                    other => return err(ln, format!("unknown op `{}`", other.unwrap_or(""))),
                };
                let dst = b.var(&n, bits);
                b.node.body.push(Instr::Assign { dst, op });
            }
        }
    }
    if cur.is_some() {
        return Err("missing `end`".into());
    }
    let Some(slicing) = slicing else {
        return Err("missing `slicing` line".into());
    };
    Ok(Program {
        slicing,
        nodes,
        interleave,
    })
}

/// `loop COUNT CALLEE state a->b:W .. args ITEM.. results ITEM..` (see `ir::print`).
fn parse_loop(
    ln: usize,
    line: &str,
    b: &mut NodeBuilder,
    node_ids: &HashMap<String, NodeId>,
) -> Result<Instr, String> {
    let spaced = line.replace('[', " [ ").replace(']', " ] ");
    let toks: Vec<&str> = spaced.split_whitespace().collect();
    let (Some(count), Some(callee), Some(&"state")) = (toks.get(1), toks.get(2), toks.get(3))
    else {
        return err(ln, "expected `loop COUNT NODE state ...`");
    };
    let count: u32 = count
        .parse()
        .map_err(|_| format!("line {}: bad loop count", ln + 1))?;
    let Some(&cid) = node_ids.get(*callee) else {
        return err(ln, format!("unknown node `{}`", callee));
    };
    let mut k = 4;
    let mut state = Vec::new();
    while k < toks.len() && toks[k] != "args" {
        let Some((a, rest)) = toks[k].split_once("->") else {
            return err(ln, "expected `init->last:bits`");
        };
        let (last, bits) = typed(ln, rest)?;
        let a = b.get(ln, a)?;
        state.push((a, b.var(&last, bits)));
        k += 1;
    }
    k += 1;
    // items: `@j`, `name` / `name:bits` (bare), or `[ ... ]` (one per iteration)
    enum Item<'t> {
        Bare(&'t str),
        List(Vec<&'t str>),
    }
    let mut items: Vec<Item> = Vec::new();
    let mut arg_items: Option<Vec<Item>> = None;
    while k < toks.len() {
        match toks[k] {
            "results" if arg_items.is_none() => arg_items = Some(std::mem::take(&mut items)),
            "[" => {
                let start = k + 1;
                while k < toks.len() && toks[k] != "]" {
                    k += 1;
                }
                if k == toks.len() {
                    return err(ln, "unclosed `[`");
                }
                items.push(Item::List(toks[start..k].to_vec()));
            }
            t => items.push(Item::Bare(t)),
        }
        k += 1;
    }
    let Some(arg_items) = arg_items else {
        return err(ln, "expected `results`");
    };
    let state_index = |t: &str| -> Result<u32, String> {
        t[1..]
            .parse()
            .map_err(|_| format!("line {}: bad state index", ln + 1))
    };
    let mut args = Vec::new();
    for it in &arg_items {
        args.push(match it {
            Item::Bare(t) if t.starts_with('@') => LoopArg::State(state_index(t)?),
            Item::Bare(t) => LoopArg::Same(b.get(ln, t)?),
            Item::List(ts) => {
                LoopArg::Each(ts.iter().map(|a| b.get(ln, a)).collect::<Result<_, _>>()?)
            }
        });
    }
    let mut results = Vec::new();
    let mut typed_list = |ts: &[&str]| -> Result<Vec<VarId>, String> {
        let mut vs = Vec::new();
        for d in ts {
            let (n, bits) = typed(ln, d)?;
            vs.push(b.var(&n, bits));
        }
        Ok(vs)
    };
    let mut it = items.iter();
    while let Some(item) = it.next() {
        results.push(match item {
            Item::Bare(t) if t.starts_with('@') && t.ends_with('+') => {
                let Some(Item::List(ts)) = it.next() else {
                    return err(ln, "expected `[atoms]` after `@j+`");
                };
                LoopResult::State {
                    state: state_index(&t[..t.len() - 1])?,
                    each: typed_list(ts)?,
                }
            }
            Item::Bare(t) if t.starts_with('@') => LoopResult::State {
                state: state_index(t)?,
                each: vec![],
            },
            Item::Bare(_) => return err(ln, "a loop result is `@j`, `@j+[atoms]` or `[atoms]`"),
            Item::List(ts) => LoopResult::Each(typed_list(ts)?),
        });
    }
    Ok(Instr::Loop {
        callee: cid,
        count,
        state: state.into(),
        args: args.into(),
        results: results.into(),
    })
}
