//! IR-level checks over the construct corpus and the cipher library:
//! - the text form prints and parses back (print ∘ parse ∘ print = print), and the parsed
//!   program verifies and computes the same outputs;
//! - translation validation of the optimisation pipeline: the program before and after each
//!   pass verifies and gives the same outputs as the interpreter on random inputs.

mod common;

use common::Rng;
use nakiri::driver::{self, Config};
use nakiri::ir::{self, Program, Slicing};

fn random_inputs(prog: &Program, rng: &mut Rng, n: usize) -> Vec<common::Instance> {
    (0..n)
        .map(|_| {
            prog.entry()
                .inputs
                .iter()
                .map(|p| {
                    (0..nakiri::interp::param_words(prog.slicing, p))
                        .map(|_| rng.bits(p.word_bits))
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn programs() -> Vec<(String, Slicing)> {
    let mut v = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(common::root().join("tests/in"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ua"))
        .collect();
    files.sort();
    for p in files {
        let src = std::fs::read_to_string(&p).unwrap();
        let rel = p
            .strip_prefix(common::root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let first = src.lines().next().unwrap_or("");
        let sl: Vec<Slicing> = match first.strip_prefix("# slicings:") {
            Some(r) => r
                .split_whitespace()
                .map(|s| match s {
                    "V" => Slicing::V,
                    "H" => Slicing::H,
                    _ => Slicing::B,
                })
                .collect(),
            None => vec![Slicing::V, Slicing::B],
        };
        for s in sl {
            v.push((rel.clone(), s));
        }
    }
    for (f, s) in [
        ("ciphers/des/des.ua", Slicing::B),
        ("ciphers/rectangle/rectangle.ua", Slicing::V),
        ("ciphers/chacha20/chacha20.ua", Slicing::V),
        ("ciphers/gimli/gimli.ua", Slicing::B),
    ] {
        if common::root().join(f).exists() {
            v.push((f.to_string(), s));
        }
    }
    v
}

#[test]
fn text_form_round_trips() {
    let mut rng = Rng(7);
    for (file, s) in programs() {
        let prog = common::lower_file(&file, s);
        let text = ir::print::to_string(&prog);
        let back = ir::parse::parse(&text).unwrap_or_else(|e| panic!("{} -{}: {}", file, s, e));
        ir::verify(&back)
            .unwrap_or_else(|e| panic!("{} -{}: parsed IR does not verify: {}", file, s, e));
        assert_eq!(
            ir::print::to_string(&back),
            text,
            "{} -{}: print(parse(print(p))) != print(p)",
            file,
            s
        );
        let inputs = random_inputs(&prog, &mut rng, 20);
        assert_eq!(
            common::run_interp(&prog, &inputs),
            common::run_interp(&back, &inputs),
            "{} -{}: parsed program computes differently",
            file,
            s
        );
    }
}

#[test]
fn optimisation_passes_preserve_meaning() {
    let mut rng = Rng(8);
    for (file, s) in programs() {
        let src = std::fs::read_to_string(common::root().join(&file)).unwrap();
        let cfg = Config {
            slicing: s,
            ..Config::default()
        };
        let front = driver::check(&file, &src, &cfg, &common::Fs);
        let checked = front.checked.unwrap_or_else(|| panic!("{}", file));
        let (before, hints) = (checked.ir, checked.loop_hints);
        ir::verify(&before).unwrap();
        let inputs = random_inputs(&before, &mut rng, 50);
        let expect = common::run_interp(&before, &inputs);
        for policy in [
            nakiri::opt::InlinePolicy::Default,
            nakiri::opt::InlinePolicy::All,
            nakiri::opt::InlinePolicy::Marked,
        ] {
            let mut inlined = before.clone();
            nakiri::opt::inline::run(&mut inlined, policy, &[]);
            ir::verify(&inlined).unwrap_or_else(|e| {
                panic!(
                    "{} -{}: inlining ({:?}) broke the IR: {}",
                    file, s, policy, e
                )
            });
            assert_eq!(
                common::run_interp(&inlined, &inputs),
                expect,
                "{} -{}: inlining ({:?}) changed the meaning",
                file,
                s,
                policy
            );
            if policy == nakiri::opt::InlinePolicy::All {
                let n = inlined.nodes.len();
                assert!(
                    inlined.nodes[..n - 1]
                        .iter()
                        .all(|nd| nd.inline == Some(false)),
                    "{}: -inline-all leaves only the entry and `_no_inline` nodes",
                    file
                );
            }
        }
        let mut after = before.clone();
        nakiri::opt::copy_prop::run(&mut after);
        ir::verify(&after)
            .unwrap_or_else(|e| panic!("{} -{}: copy_prop broke the IR: {}", file, s, e));
        assert_eq!(
            common::run_interp(&after, &inputs),
            expect,
            "{} -{}: copy_prop changed the meaning",
            file,
            s
        );
        // Loop outlining, on the program as sema made it (the hints are its body positions).
        let mut outlined = before.clone();
        let ostats = nakiri::opt::outline::run(&mut outlined, &hints, true);
        ir::verify(&outlined)
            .unwrap_or_else(|e| panic!("{} -{}: outline broke the IR: {}", file, s, e));
        assert_eq!(
            common::run_interp(&outlined, &inputs),
            expect,
            "{} -{}: outline changed the meaning",
            file,
            s
        );
        assert_eq!(
            outlined.nodes.len(),
            before.nodes.len() + ostats.outlined,
            "{}: one node per outlined loop",
            file
        );
        // Loop re-rolling, on the fully optimised program.
        let mut unrolled = before.clone();
        let mut opt = nakiri::opt::OptConfig {
            loops: nakiri::opt::LoopPolicy::Unroll,
            ..Default::default()
        };
        nakiri::opt::optimize(&mut unrolled, &hints, &opt).unwrap();
        let mut rolled = unrolled.clone();
        let stats = nakiri::opt::reroll::run(&mut rolled, true);
        ir::verify(&rolled)
            .unwrap_or_else(|e| panic!("{} -{}: reroll broke the IR: {}", file, s, e));
        assert_eq!(
            common::run_interp(&rolled, &inputs),
            expect,
            "{} -{}: reroll changed the meaning",
            file,
            s
        );
        let loops = rolled
            .nodes
            .iter()
            .flat_map(|n| &n.body)
            .filter(|i| matches!(i, ir::Instr::Loop { .. }))
            .count();
        assert_eq!(loops, stats.loops, "{}: reroll stats", file);
        opt.loops = nakiri::opt::LoopPolicy::All;
        let mut pipeline = before.clone();
        nakiri::opt::optimize(&mut pipeline, &hints, &opt).unwrap();
        ir::verify(&pipeline)
            .unwrap_or_else(|e| panic!("{} -{}: the pipeline broke the IR: {}", file, s, e));
        assert_eq!(
            common::run_interp(&pipeline, &inputs),
            expect,
            "{} -{}: the pipeline changed the meaning",
            file,
            s
        );
        let n_before: usize = before.nodes.iter().map(|n| n.body.len()).sum();
        let n_after: usize = after.nodes.iter().map(|n| n.body.len()).sum();
        assert!(n_after <= n_before, "{}: copy_prop grew the program", file);
    }
}

/// A bitsliced configuration for `arch` that keeps every round loop (`--loops chains`).
fn b_chains(arch: nakiri::codegen::Arch) -> Config {
    let mut cfg = Config {
        slicing: Slicing::B,
        arch,
        ..Config::default()
    };
    cfg.opt.loops = nakiri::opt::LoopPolicy::Chains;
    cfg
}

fn lower_with(path: &str, s: Slicing, loops: nakiri::opt::LoopPolicy) -> Program {
    lower_without(path, s, loops, &[])
}

/// [`lower_with`] with the passes `off` switched off.
fn lower_without(
    path: &str,
    s: Slicing,
    loops: nakiri::opt::LoopPolicy,
    off: &[nakiri::opt::PassId],
) -> Program {
    let mut cfg = Config {
        slicing: s,
        ..Config::default()
    };
    cfg.opt.loops = loops;
    cfg.opt.disabled.extend_from_slice(off);
    common::lower_file_cfg(path, &cfg)
}

/// (callee, count) of the entry's kept loops, sorted (the schedulers may reorder independent
/// loops); outlined bodies (`<node>__loopN`) by node name.
/// How many kept loops (`Instr::Loop`) the entry's body holds.
fn entry_loops(prog: &Program) -> usize {
    prog.entry()
        .body
        .iter()
        .filter(|i| matches!(i, ir::Instr::Loop { .. }))
        .count()
}

fn kept_loops(prog: &Program) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = prog
        .entry()
        .body
        .iter()
        .filter_map(|i| match i {
            ir::Instr::Loop { callee, count, .. } => Some((
                prog.node(*callee)
                    .name
                    .split("__loop")
                    .next()
                    .unwrap()
                    .to_string(),
                *count,
            )),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

fn pairs(v: &[(&str, u32)]) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = v.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    v.sort();
    v
}

/// Which loops `opt::outline` + `opt::reroll` keep in `tests/in/loops.ua`, per policy
/// (`loop-fuse` off; with it, the map of `mix` and the 4-round chain, both of 4 iterations and
/// independent, become one loop in vslice and hslice).
#[test]
fn loops_kept_where_iterations_agree() {
    use nakiri::opt::LoopPolicy;
    for s in [Slicing::V, Slicing::B, Slicing::H] {
        let fused = lower_with("tests/in/loops.ua", s, LoopPolicy::All);
        let expect: &[(&str, u32)] = if s == Slicing::B {
            &[("round", 6), ("mix", 4), ("round", 4), ("loops", 5)]
        } else {
            &[("round", 6), ("mix__fused", 4), ("loops", 5)]
        };
        assert_eq!(
            kept_loops(&fused),
            pairs(expect),
            "-{}: kept loops (all, fused)",
            s
        );
        let prog = lower_without(
            "tests/in/loops.ua",
            s,
            LoopPolicy::All,
            &[nakiri::opt::PassId::LoopFuse],
        );
        let entry = prog.entry();
        assert_eq!(
            kept_loops(&prog),
            pairs(&[("round", 6), ("mix", 4), ("round", 4), ("loops", 5)]),
            "-{}: kept loops (all)",
            s
        );
        // the loop whose index is a `nat` argument stays four calls of four instances
        let tweaks = entry.body.iter().filter(|i| matches!(i, ir::Instr::Call { callee, .. } if prog.node(*callee).name.starts_with("tweak"))).count();
        assert_eq!(tweaks, 4, "-{}: unrolled loop", s);
        // the rotation by the index and the `_unroll` loop stay unrolled: no other call
        let calls = entry
            .body
            .iter()
            .filter(|i| matches!(i, ir::Instr::Call { .. }))
            .count();
        assert_eq!(calls, 4, "-{}: only the four tweak calls remain", s);
        // the round chain passes one key a turn, and keeps every value of the state read after it (`st[3][0]`)
        let ir::Instr::Loop {
            args,
            state,
            results,
            ..
        } = entry
            .body
            .iter()
            .find(|i| matches!(i, ir::Instr::Loop { count: 6, .. }))
            .unwrap()
        else {
            unreachable!()
        };
        assert_eq!(state.len(), if s == Slicing::B { 32 } else { 2 });
        assert!(args
            .iter()
            .any(|a| matches!(a, ir::LoopArg::Each(v) if v.len() == 6)));
        assert!(results
            .iter()
            .any(|r| matches!(r, ir::LoopResult::State { each, .. } if each.len() == 5)));
        // the last chain passes the same key every turn
        let last_round = entry.body.iter().find(|i| matches!(i, ir::Instr::Loop { count: 4, callee, .. } if prog.node(*callee).name.starts_with("round"))).unwrap();
        let ir::Instr::Loop { args, .. } = last_round else {
            unreachable!()
        };
        assert!(args.iter().any(|a| matches!(a, ir::LoopArg::Same(_))));
        // chains: the map of independent `mix` calls is unrolled
        let chains = lower_with("tests/in/loops.ua", s, LoopPolicy::Chains);
        assert_eq!(
            kept_loops(&chains),
            pairs(&[("round", 6), ("round", 4), ("loops", 5)]),
            "-{}: kept loops (chains)",
            s
        );
        // auto: chains in every slicing; unroll: nothing
        let auto = lower_with("tests/in/loops.ua", s, LoopPolicy::Auto);
        assert_eq!(kept_loops(&auto), kept_loops(&chains), "-{}: auto", s);
        let unrolled = lower_with("tests/in/loops.ua", s, LoopPolicy::Unroll);
        assert!(
            !unrolled
                .nodes
                .iter()
                .flat_map(|n| &n.body)
                .any(|i| matches!(i, ir::Instr::Loop { .. })),
            "-{}: -unroll",
            s
        );
    }
}

/// Every loop policy computes the same thing natively (on every target this CPU runs) as the
/// unrolled program in the interpreter: the construct corpus runs with the default policy, so
/// this covers kept loops in bitslice and loops of independent iterations.
#[test]
fn kept_loops_run_natively() {
    use nakiri::opt::LoopPolicy;
    let mut rng = Rng(9);
    for (file, s) in [
        ("tests/in/loops.ua", Slicing::V),
        ("tests/in/loops.ua", Slicing::B),
        ("tests/in/loops.ua", Slicing::H),
        ("tests/in/memloops.ua", Slicing::B),
        ("tests/in/memloops.ua", Slicing::V),
        ("ciphers/gimli/gimli.ua", Slicing::B),
        ("ciphers/aes/aes.ua", Slicing::B),
        ("ciphers/des/des.ua", Slicing::B),
    ] {
        let reference = lower_with(file, s, LoopPolicy::Unroll);
        let inputs = random_inputs(&reference, &mut rng, 300);
        let expect = common::run_interp(&reference, &inputs);
        let all = lower_with(file, s, LoopPolicy::All);
        assert!(
            !kept_loops(&all).is_empty(),
            "{} -{}: no loop kept",
            file,
            s
        );
        let got = common::run_everywhere(&format!("{} -{} --loops all", file, s), &all, &inputs);
        assert_eq!(
            got, expect,
            "{} -{}: kept loops compute differently",
            file, s
        );
    }
}

/// Kept loops whose state outgrows the registers keep it in memory (`codegen/memloop.rs`):
/// one buffer overwritten in place, a double buffer, or a ring of generations where states are passed on unchanged (a
/// Feistel half: 3 buffers; a chain of two passes: 4), round keys read in place at a
/// constant stride, through an index table (from the key array, or from a pool of the
/// distinct values when they repeat), or gathered once, iteration-major. `kept_loops_run_natively` runs these
/// programs against the interpreter; here the C has the expected form, and `--no-mem-loops`
/// gives the old one.
#[test]
fn kept_loops_with_big_states_live_in_memory() {
    use nakiri::opt::LoopPolicy;
    let gen = |file: &str, arch: nakiri::codegen::Arch, mem_loops: bool| {
        let prog = lower_with(file, Slicing::B, LoopPolicy::Chains);
        let cfg = nakiri::codegen::CodegenConfig {
            arch,
            header_name: "m.h".into(),
            banner: String::new(),
            spill: nakiri::codegen::SPILL_DEFAULT,
            mem_loops,
            loop_regs: None,
            opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
            uarch: nakiri::target::Uarch::host(),
            state_loads: None,
            loop_align: None,
        };
        nakiri::codegen::generate(&prog, &cfg).unwrap().c
    };
    for arch in [
        nakiri::codegen::Arch::Std,
        nakiri::codegen::Arch::Avx2,
        nakiri::codegen::Arch::Avx512,
    ] {
        let c = gen("tests/in/memloops.ua", arch, true);
        assert_eq!(
            c.matches("its state in memory").count(),
            4,
            "{}: four loops in the memory form",
            arch
        );
        // Feistel: 32 computed bits, the other half read from the generation before
        assert!(
            c.contains("_st[3][32] NK_ALIGN64;"),
            "{}: Feistel ring",
            arch
        );
        assert!(
            c.contains("(const DATATYPE *)key + nk_i * 32"),
            "{}: round keys read in place",
            arch
        );
        // a chain of two passes: 4 generations of the one computed state
        assert!(
            c.contains("_st[4][32] NK_ALIGN64;"),
            "{}: chain of passes",
            arch
        );
        // the swap (a cycle of copies) stores one of its halves: 64 of 96 bits
        assert!(c.contains("_st[3][64] NK_ALIGN64;"), "{}: swap cycle", arch);
        // the mixer (u' = v ^ (u & k), v' = u ^ (v <<< 5) ^ k) overwrites its one buffer in
        // place: every slot is read by two outputs, so some stores wait for the last read of
        // their slot (`memloop::single_buffer`); `kept_loops_run_natively` runs it
        assert!(
            c.contains("_st[1][64] NK_ALIGN64;"),
            "{}: single buffer",
            arch
        );
        assert!(
            c.contains("void mixer(DATATYPE *v_nk_st, const DATATYPE *restrict"),
            "{}: one state pointer, not restrict",
            arch
        );
        // key[7 - i] through an index table, rc[i] from a table of bits, the computed keys
        // gathered once, iteration-major
        assert!(
            c.contains("static const uint16_t nk_l") && c.contains("_ix[6][32] = {"),
            "{}: indexed keys",
            arch
        );
        assert!(
            c.contains("static const uint64_t nk_l") && c.contains("_kb[6][32] = {"),
            "{}: constant bits",
            arch
        );
        assert!(
            c.contains("_x[5][32] NK_ALIGN64 = {"),
            "{}: gathered keys",
            arch
        );
        // the rotating key register: 52 distinct values of 6 x 32 round-key bits, pooled
        assert!(
            c.contains("_u[52] NK_ALIGN64 = {") && c.contains("_ix[6][32] = {"),
            "{}: pooled keys",
            arch
        );
        assert!(
            !c.contains("const DATATYPE nk_a"),
            "{}: no per-iteration argument arrays",
            arch
        );
        let old = gen("tests/in/memloops.ua", arch, false);
        assert!(
            !old.contains("its state in memory") && old.contains("const DATATYPE nk_a"),
            "{}: --no-mem-loops",
            arch
        );
        // one buffer whatever it holds back where two would exceed 32 KB (Gimli's 384 atoms
        // on AVX-512: 2 x 24 KB); Spongent's 160 (2 x 10 KB on AVX-512) hold back too many
        // (optimised for the target, as the compiler does: the schedule decides what is held)
        let gen_for = |file: &str| {
            let mut cfg = Config {
                slicing: Slicing::B,
                arch,
                ..Config::default()
            };
            cfg.opt.loops = LoopPolicy::Chains;
            let prog = common::lower_file_cfg(file, &cfg);
            let ccfg = nakiri::codegen::CodegenConfig {
                arch,
                header_name: "m.h".into(),
                banner: String::new(),
                spill: nakiri::codegen::SPILL_DEFAULT,
                mem_loops: true,
                loop_regs: None,
                opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                uarch: nakiri::target::Uarch::host(),
                state_loads: None,
                loop_align: None,
            };
            nakiri::codegen::generate(&prog, &ccfg).unwrap().c
        };
        let (gimli, spongent) = (
            gen_for("ciphers/gimli/gimli.ua"),
            gen_for("ciphers/spongent160/spongent160.ua"),
        );
        // (a permutation's state lives in its output array: `_st_buf` is the fallback buffer,
        // `state_in_output_array_handles_aliasing`)
        let bufs = |c: &str, n: usize, atoms: usize| {
            c.contains(&format!("_st[{}][{}] NK_ALIGN64;", n, atoms))
                || c.contains(&format!("_st_buf[{}][{}] NK_ALIGN64;", n, atoms))
        };
        if arch == nakiri::codegen::Arch::Avx512 {
            assert!(bufs(&gimli, 1, 384), "{}: Gimli, one buffer", arch);
        } else if arch == nakiri::codegen::Arch::Avx2 {
            assert!(bufs(&gimli, 2, 384), "{}: Gimli, two buffers", arch);
        }
        assert!(bufs(&spongent, 2, 160), "{}: Spongent", arch);
        // DES: the Feistel rounds keep 32 bits per generation
        assert!(
            gen("ciphers/des/des.ua", arch, true).contains("_st[3][32] NK_ALIGN64;"),
            "{}: DES",
            arch
        );
    }
    // vslice ChaCha20 (16 rows on 16 registers) keeps its state in registers
    let prog = lower_with(
        "ciphers/chacha20/chacha20.ua",
        Slicing::V,
        LoopPolicy::Chains,
    );
    let cfg = nakiri::codegen::CodegenConfig {
        arch: nakiri::codegen::Arch::Avx2,
        header_name: "m.h".into(),
        banner: String::new(),
        spill: nakiri::codegen::SPILL_DEFAULT,
        mem_loops: true,
        loop_regs: None,
        opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
        uarch: nakiri::target::Uarch::host(),
        state_loads: None,
        loop_align: None,
    };
    assert!(!nakiri::codegen::generate(&prog, &cfg)
        .unwrap()
        .c
        .contains("its state in memory"));
}

/// `sched-bits`' third candidate order, `schedule_cones` (one output at a time, the one with
/// the smallest unscheduled cone first): PHOTON's memory-form round, 64 S-boxes then
/// MixColumnSerial per column of cells, is computed column by column, each column's eight
/// S-boxes just before it. Its estimated memory traffic is under both ready-list
/// heuristics' (which start every S-box first), the pass keeps it, and the reordered program
/// computes what the original does.
#[test]
fn sched_bits_cones_finish_photon_column_by_column() {
    use nakiri::codegen::Arch;
    use nakiri::opt::sched_bits::{schedule, schedule_cones, Heuristic};
    let file = "ciphers/photon256/photon256.ua";
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512] {
        let cfg = b_chains(arch);
        let regs = nakiri::target::Target::new(arch).n_regs as usize;
        let mut off = cfg.clone();
        off.opt.disable(nakiri::opt::PassId::SchedBits);
        let prog = common::lower_file_cfg(file, &off);
        let mem = nakiri::opt::sched_bits::memory_form_bodies(&prog, regs, true);
        let at = mem
            .iter()
            .position(|m| *m)
            .expect("the round is a memory-form body");
        let body = &prog.nodes[at];
        let est = |order: &[usize]| {
            let mut n = body.clone();
            nakiri::opt::apply_order(&mut n, order);
            nakiri::opt::cost::spill_estimate_stored(&n, regs)
        };
        let cones = schedule_cones(body).expect("small enough");
        let mut sorted = cones.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..body.body.len()).collect::<Vec<_>>(),
            "a permutation"
        );
        let c = est(&cones);
        let ready = [Heuristic::Pressure, Heuristic::Frees]
            .into_iter()
            .flat_map(|h| [true, false].map(|m| est(&schedule(body, h, m))))
            .min()
            .unwrap();
        // (avx512 3 825 -> 2 971, sse 3 074 -> 2 829)
        assert!(
            c < ready,
            "{arch}: cones {c} against the ready-list heuristics' best {ready}"
        );
        let mut re = prog.clone();
        nakiri::opt::apply_order(&mut re.nodes[at], &cones);
        nakiri::ir::verify::verify(&re).expect("dependences kept");
        let mut rng = common::Rng(0x9407_0256);
        let insts = common::random_instances(&prog, 8, &mut rng);
        assert_eq!(
            common::run_interp(&prog, &insts),
            common::run_interp(&re, &insts),
            "{arch}: the same outputs"
        );
        // the pass keeps it
        let on = common::lower_file_cfg(file, &cfg);
        assert_eq!(
            nakiri::opt::cost::spill_estimate_stored(&on.nodes[at], regs),
            c,
            "{arch}: sched-bits picks the cone order"
        );
    }
}

/// `sched-bits` schedules the body of a memory-form kept loop (`codegen::memloop`) for
/// inputs read where used and outputs stored as computed. RECTANGLE's round is 64 round-key
/// XORs and 16 S-box columns of 4 bits: scheduled as if its inputs sat in registers, it did
/// every XOR first (each frees two inputs) and spilled their results, 68 stack references
/// per round on avx512; now each column's 4 XORs come right before its S-box.
#[test]
fn sched_bits_orders_memory_form_bodies_column_by_column() {
    use nakiri::codegen::Arch;
    // (On `std` the S-box stays a call, a node of its own, and the round's order is the
    // calls' order.)
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512] {
        let cfg = b_chains(arch);
        let prog = common::lower_file_cfg("ciphers/rectangle/rectangle.ua", &cfg);
        let regs = nakiri::target::Target::new(arch).n_regs as usize;
        let mem = nakiri::opt::sched_bits::memory_form_bodies(&prog, regs, true);
        assert_eq!(
            mem.iter().filter(|m| **m).count(),
            1,
            "{}: the round is the one memory-form body",
            arch
        );
        let body = &prog.nodes[mem.iter().position(|m| *m).unwrap()];
        let inputs: std::collections::HashSet<_> = body.flat_inputs().into_iter().collect();
        // instructions before the first one that reads a computed value (the S-box's first)
        let lead = body
            .body
            .iter()
            .take_while(|i| i.uses().iter().all(|u| inputs.contains(u)))
            .count();
        assert!(
            lead <= 4,
            "{}: {} instructions on inputs only before the first S-box instruction",
            arch,
            lead
        );
        // its estimated memory traffic is the 128 input loads (64 state, 64 key bits): no spills
        let e = nakiri::opt::cost::spill_estimate_stored(body, regs);
        assert_eq!(e, 128, "{}: estimated loads and stores", arch);
        // scheduled by the ready-list heuristic as if its inputs sat in registers, it does
        // every key XOR first, which in the memory form would spill
        let mut body = body.clone();
        let order = nakiri::opt::sched_bits::schedule(
            &body,
            nakiri::opt::sched_bits::Heuristic::Pressure,
            false,
        );
        nakiri::opt::apply_order(&mut body, &order);
        let body = &body;
        let inputs: std::collections::HashSet<_> = body.flat_inputs().into_iter().collect();
        let lead = body
            .body
            .iter()
            .take_while(|i| i.uses().iter().all(|u| inputs.contains(u)))
            .count();
        assert!(
            lead >= 16,
            "{} registers model: {} leading key XORs",
            arch,
            lead
        );
        assert!(
            nakiri::opt::cost::spill_estimate_stored(body, regs) > 128 + 32,
            "{} registers model: spills",
            arch
        );
    }
}

/// `--loops auto` in bitslice on avx512 unrolls the round loops whose body passes no
/// state on unchanged (`opt::auto_unrolled`, measured faster there) and keeps DES's Feistel
/// rounds, and so in hslice and vslice; on avx2 it keeps them all (`chains`). In bitslice a
/// single round loop that reads only its state and whose state fits in
/// `opt::AMD_B_KEPT_STATE_MAX_BYTES` stays a loop (permutations: Ascon, PHOTON, Subterranean,
/// Spongent, Xoodoo, Gimli), and in bitslice and hslice a round loop fed a `const` input stays a loop
/// (RECTANGLE). These are the rules measured on AMD (`--uarch amd`); Intel's are the next test.
#[test]
fn auto_loops_on_avx512_unroll_all_but_feistel_rounds() {
    use nakiri::codegen::Arch;
    let loops_s = |file: &str, slicing: Slicing, arch: Arch| {
        let mut cfg = Config {
            slicing,
            arch,
            ..Config::default()
        };
        cfg.opt.uarch = nakiri::target::Uarch::Amd;
        entry_loops(&common::lower_file_cfg(file, &cfg))
    };
    let loops = |file: &str, arch: Arch| loops_s(file, Slicing::B, arch);
    assert_eq!(
        loops("ciphers/des/des.ua", Arch::Avx512),
        1,
        "DES keeps its rounds"
    );
    for file in ["ciphers/aes/aes.ua", "ciphers/gift/gift.ua"] {
        assert_eq!(loops(file, Arch::Avx512), 0, "{}: unrolled on avx512", file);
        assert!(loops(file, Arch::Avx2) >= 1, "{}: kept on avx2", file);
    }
    // A single round loop reading only its state, whose state fits
    // `opt::AMD_B_KEPT_STATE_MAX_BYTES` (Ascon 320 atoms, PHOTON 256, Subterranean 257,
    // Spongent 160, Xoodoo and Gimli 384), stays a loop on avx512; a bigger state (ChaCha20
    // 512) or rounds reading round keys, even from a pool (SKINNY, Clyde), are unrolled.
    for file in [
        "ciphers/ascon/ascon.ua",
        "ciphers/photon256/photon256.ua",
        "ciphers/subterranean/subterranean.ua",
        "ciphers/spongent160/spongent160.ua",
        "ciphers/xoodoo/xoodoo.ua",
        "ciphers/gimli/gimli.ua",
    ] {
        assert_eq!(loops(file, Arch::Avx512), 1, "{}: kept on avx512", file);
    }
    for file in [
        "ciphers/chacha20/chacha20.ua",
        "ciphers/skinny128_256/skinny128_256.ua",
        "ciphers/clyde128/clyde128.ua",
    ] {
        assert_eq!(loops(file, Arch::Avx512), 0, "{}: unrolled on avx512", file);
    }
    // hslice and vslice on avx512 follow the same rule, but in hslice a round loop fed a
    // `const` input stays a loop, as in bitslice (RECTANGLE's round keys)
    assert_eq!(
        loops_s("ciphers/aes/aes_planes.ua", Slicing::H, Arch::Avx512),
        0,
        "AES planes -H unrolled on avx512"
    );
    assert_eq!(
        loops_s("ciphers/rectangle/rectangle.ua", Slicing::H, Arch::Avx512),
        1,
        "RECTANGLE -H (const-fed rounds) kept on avx512"
    );
    assert!(
        loops_s("ciphers/rectangle/rectangle.ua", Slicing::H, Arch::Avx2) >= 1,
        "RECTANGLE -H kept on avx2"
    );
    assert_eq!(
        loops_s("ciphers/rectangle/rectangle.ua", Slicing::V, Arch::Avx512),
        0,
        "RECTANGLE -V unrolled on avx512"
    );
    assert!(
        loops_s("ciphers/rectangle/rectangle.ua", Slicing::V, Arch::Avx2) >= 1,
        "RECTANGLE -V kept on avx2"
    );
    assert_eq!(
        loops_s("ciphers/des/des.ua", Slicing::V, Arch::Avx512),
        1,
        "DES -V keeps its rounds on avx512"
    );
    // an explicit policy is obeyed on avx512 too
    let mut cfg = Config {
        slicing: Slicing::B,
        arch: Arch::Avx512,
        ..Config::default()
    };
    cfg.opt.loops = nakiri::opt::LoopPolicy::Chains;
    let prog = common::lower_file_cfg("ciphers/ascon/ascon.ua", &cfg);
    assert!(
        prog.entry()
            .body
            .iter()
            .any(|i| matches!(i, ir::Instr::Loop { .. })),
        "--loops chains keeps Ascon's rounds"
    );
}

/// On Intel (`--uarch intel`) in bitslice on avx512, `--loops auto` keeps the round loops of a
/// program whose rounds all do little work per state atom (`opt::INTEL_B_UNROLL_MIN_WORK_PER_ATOM`:
/// Ascon, GIFT, Gimli, Spongent, measured faster kept there). A program with a heavy round keeps
/// its loops too when no kept loop would gather per-iteration inputs (`opt::loop_would_gather`:
/// AES's and Pyjamask's rounds read the key-schedule loop's outputs in place, Clyde's tweakeys
/// come from a pool), and is unrolled otherwise (Pyjamask with its key schedule written out as
/// equations, whose rounds would copy its round keys). DES keeps its Feistel rounds, and hslice/vslice follow the AMD rule.
#[test]
fn auto_loops_on_avx512_intel_keep_light_bitsliced_rounds() {
    use nakiri::codegen::Arch;
    use nakiri::target::Uarch;
    let loops_u = |file: &str, slicing: Slicing, uarch: Uarch| {
        let mut cfg = Config {
            slicing,
            arch: Arch::Avx512,
            ..Config::default()
        };
        cfg.opt.uarch = uarch;
        entry_loops(&common::lower_file_cfg(file, &cfg))
    };
    for (file, amd) in [
        ("ciphers/ascon/ascon.ua", 1),
        ("ciphers/gift/gift.ua", 0),
        ("ciphers/gimli/gimli.ua", 1),
        ("ciphers/spongent160/spongent160.ua", 1),
    ] {
        assert_eq!(
            loops_u(file, Slicing::B, Uarch::Intel),
            1,
            "{}: kept on Intel",
            file
        );
        assert_eq!(
            loops_u(file, Slicing::B, Uarch::Amd),
            amd,
            "{}: on AMD (kept when a single loop reads only its state, small enough)",
            file
        );
    }
    assert_eq!(
        loops_u(
            "tests/data/pyjamask128_ks_unrolled.ua",
            Slicing::B,
            Uarch::Intel
        ),
        0,
        "Pyjamask with its key schedule written out: unrolled on Intel"
    );
    for (file, n) in [
        ("ciphers/aes/aes.ua", 2),
        ("ciphers/aes/aes_planes.ua", 2),
        ("ciphers/clyde128/clyde128.ua", 1),
        ("ciphers/pyjamask128/pyjamask128.ua", 2),
    ] {
        assert_eq!(
            loops_u(file, Slicing::B, Uarch::Intel),
            n,
            "{}: heavy rounds kept on Intel (nothing gathered)",
            file
        );
        assert_eq!(
            loops_u(file, Slicing::B, Uarch::Amd),
            0,
            "{}: unrolled on AMD",
            file
        );
    }
    assert_eq!(
        loops_u("ciphers/des/des.ua", Slicing::B, Uarch::Intel),
        1,
        "DES keeps its rounds"
    );
    // Light rounds fed a `const` input (RECTANGLE's round keys) are unrolled for the raw
    // entry, and kept in the program behind `E__with_consts`; heavy ones (AES const rk) stay
    // loops in both.
    let const_fed = |file: &str, keep: bool| {
        let mut cfg = Config {
            slicing: Slicing::B,
            arch: Arch::Avx512,
            ..Config::default()
        };
        cfg.opt.uarch = Uarch::Intel;
        cfg.opt.keep_const_fed_loops = keep;
        let prog = common::lower_file_cfg(file, &cfg);
        let n = entry_loops(&prog);
        (prog, cfg, n)
    };
    let rect = "ciphers/rectangle/rectangle.ua";
    assert_eq!(const_fed(rect, false).2, 0, "RECTANGLE raw: unrolled");
    assert_eq!(const_fed(rect, true).2, 1, "RECTANGLE with_consts: kept");
    assert_eq!(
        const_fed("ciphers/aes/aes_rk.ua", false).2,
        1,
        "AES const rk: kept"
    );
    // The driver optimises the program behind `E__with_consts` apart only where that differs.
    for (file, apart) in [(rect, true), ("ciphers/aes/aes_rk.ua", false)] {
        let (prog, cfg, _) = const_fed(file, false);
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        let front = nakiri::driver::check(file, &src, &cfg, &common::Fs);
        let checked = front.checked.as_ref().expect("checked");
        let wc = nakiri::driver::packed_consts_program(
            &checked.ir,
            &checked.loop_hints,
            &prog,
            None,
            &cfg,
        );
        assert_eq!(
            wc.is_some(),
            apart,
            "{file}: E__with_consts from its own program"
        );
        if let Some(wc) = wc {
            assert!(wc
                .entry()
                .body
                .iter()
                .any(|i| matches!(i, ir::Instr::Loop { .. })));
        }
    }
    assert_eq!(
        loops_u("ciphers/rectangle/rectangle.ua", Slicing::V, Uarch::Intel),
        0,
        "RECTANGLE -V unrolled on Intel as on AMD"
    );
    assert_eq!(
        loops_u("ciphers/ascon/ascon.ua", Slicing::V, Uarch::Intel),
        loops_u("ciphers/ascon/ascon.ua", Slicing::V, Uarch::Amd),
        "vslice: one rule"
    );
}

/// On Intel in vslice on SSE/AVX2, `--loops auto` unrolls round loops and inlines every node
/// as on AVX-512 (`opt::vslice_simd_unrolls`), except where every round is light and moves
/// more state atoms than the 16 registers (PRESENT), where the unrolled rounds would pass
/// `opt::VSLICE_SIMD_UNROLL_MAX_INSNS` (PHOTON, whose rounds stay calls), and DES's Feistel
/// rounds; on AMD they stay
/// loops (the previous test); an explicit policy is obeyed.
#[test]
fn auto_loops_in_vslice_on_intel_sse_avx2() {
    use nakiri::codegen::Arch;
    use nakiri::target::Uarch;
    let lower = |file: &str, arch: Arch, uarch: Uarch, loops: Option<nakiri::opt::LoopPolicy>| {
        let mut cfg = Config {
            slicing: Slicing::V,
            arch,
            ..Config::default()
        };
        cfg.opt.uarch = uarch;
        if let Some(l) = loops {
            cfg.opt.loops = l;
        }
        common::lower_file_cfg(file, &cfg)
    };
    let count = |p: &ir::Program| {
        let loops = entry_loops(p);
        let calls = p
            .entry()
            .body
            .iter()
            .filter(|i| matches!(i, ir::Instr::Call { .. }))
            .count();
        (loops, calls)
    };
    for arch in [Arch::Sse, Arch::Avx2] {
        for file in [
            "ciphers/rectangle/rectangle.ua",
            "ciphers/blake2s/blake2s.ua",
            "ciphers/chacha20/chacha20.ua",
        ] {
            assert_eq!(
                count(&lower(file, arch, Uarch::Intel, None)),
                (0, 0),
                "{file} -V {arch}: unrolled and inlined on Intel"
            );
            assert!(
                count(&lower(file, arch, Uarch::Amd, None)).0 >= 1,
                "{file} -V {arch}: kept on AMD"
            );
            assert!(
                count(&lower(
                    file,
                    arch,
                    Uarch::Intel,
                    Some(nakiri::opt::LoopPolicy::Chains)
                ))
                .0 >= 1,
                "{file} -V {arch}: --loops chains keeps it"
            );
        }
        for (file, why) in [
            (
                "ciphers/present/present.ua",
                "light rounds over 64 state atoms",
            ),
            (
                "ciphers/photon256/photon256.ua",
                "64 000 unrolled instructions",
            ),
            ("ciphers/des/des.ua", "Feistel rounds"),
        ] {
            // kept: a loop, or (PHOTON: `reroll` finds no run to roll) the round calls
            let (loops, calls) = count(&lower(file, arch, Uarch::Intel, None));
            assert!(
                loops + calls >= 1,
                "{file} -V {arch}: not unrolled on Intel ({why})"
            );
        }
    }
}

/// The C of a kept loop is a `for` loop with a compile-time bound (and the program still has
/// the same meaning: `tests/corpus.rs` runs `loops.ua` natively).
#[test]
fn kept_loops_are_c_for_loops() {
    let prog = common::lower_file("ciphers/chacha20/chacha20.ua", Slicing::V);
    let out = nakiri::codegen::generate(
        &prog,
        &nakiri::codegen::CodegenConfig {
            arch: nakiri::codegen::Arch::Std,
            header_name: "c.h".into(),
            banner: String::new(),
            spill: nakiri::codegen::SPILL_DEFAULT,
            mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
            loop_regs: None,
            opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
            uarch: nakiri::target::Uarch::host(),
            state_loads: None,
            loop_align: None,
        },
    )
    .unwrap();
    assert!(
        out.c.contains("for (int nk_i = 0; nk_i < 10; nk_i++) {"),
        "the 10 double rounds are one loop"
    );
    assert_eq!(
        out.c.matches("double_round(").count(),
        2,
        "one definition and one call of double_round"
    );
    // warning-free C in every slicing and policy (no unused loop results)
    let dir = common::scratch_dir("loops_warnings");
    for s in [Slicing::V, Slicing::B, Slicing::H] {
        for (file, loops) in [
            ("tests/in/loops.ua", nakiri::opt::LoopPolicy::All),
            ("tests/in/loops.ua", nakiri::opt::LoopPolicy::Chains),
            ("tests/in/loops.ua", nakiri::opt::LoopPolicy::Unroll),
            ("tests/in/memloops.ua", nakiri::opt::LoopPolicy::Chains),
        ] {
            if s == Slicing::H && file.contains("memloops") {
                continue;
            }
            let prog = lower_with(file, s, loops);
            let out = nakiri::codegen::generate(
                &prog,
                &nakiri::codegen::CodegenConfig {
                    arch: nakiri::codegen::Arch::Std,
                    header_name: "l.h".into(),
                    banner: String::new(),
                    spill: nakiri::codegen::SPILL_DEFAULT,
                    mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
                    loop_regs: None,
                    opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                    uarch: nakiri::target::Uarch::host(),
                    state_loads: None,
                    loop_align: None,
                },
            )
            .unwrap();
            let c = dir.join("l.c");
            std::fs::write(&c, &out.c).unwrap();
            std::fs::write(dir.join("l.h"), &out.h).unwrap();
            let r = std::process::Command::new(common::cc())
                .args([
                    "-O1",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-c",
                    c.to_str().unwrap(),
                    "-o",
                    dir.join("l.o").to_str().unwrap(),
                ])
                .output()
                .unwrap();
            assert!(
                r.status.success(),
                "-{} {:?}: {}",
                s,
                loops,
                String::from_utf8_lossy(&r.stderr)
            );
        }
    }
}

/// The whole pipeline with each pass switched off in turn, and for AVX-512 (where `ternlog`
/// fires) under the AMD and the Intel rules, verified after every pass and checked against the
/// interpreter.
#[test]
fn pipeline_with_each_pass_off() {
    use nakiri::opt::OptConfig;
    use nakiri::target::Arch;
    let mut rng = Rng(12);
    for (file, s) in programs() {
        let src = std::fs::read_to_string(common::root().join(&file)).unwrap();
        let front = driver::check(
            &file,
            &src,
            &Config {
                slicing: s,
                ..Config::default()
            },
            &common::Fs,
        );
        let checked = front.checked.unwrap_or_else(|| panic!("{}", file));
        let inputs = random_inputs(&checked.ir, &mut rng, 30);
        let expect = common::run_interp(&checked.ir, &inputs);
        let mut configs: Vec<(String, OptConfig)> = Vec::new();
        // AVX-512 under both families' rules whatever the host: they differ in kept loops and
        // in `ternlog-order` (latest operand first on AMD in vslice and hslice).
        for (arch, uarch) in [
            (Arch::Std, nakiri::target::Uarch::host()),
            (Arch::Avx512, nakiri::target::Uarch::Amd),
            (Arch::Avx512, nakiri::target::Uarch::Intel),
        ] {
            configs.push((
                format!("all passes, {}, {} rules", arch, uarch.name()),
                OptConfig {
                    arch,
                    uarch,
                    verify_each: true,
                    ..Default::default()
                },
            ));
        }
        configs.extend(each_pass_toggled(&[]));
        for (what, cfg) in configs {
            let mut prog = checked.ir.clone();
            nakiri::opt::optimize(&mut prog, &checked.loop_hints, &cfg)
                .unwrap_or_else(|e| panic!("{} -{} ({}): {}", file, s, what, e));
            assert_eq!(
                common::run_interp(&prog, &inputs),
                expect,
                "{} -{} ({}): the pipeline changed the meaning",
                file,
                s,
                what
            );
        }
    }
}

/// Ternlogs made for AVX-512 are also compiled (expanded to plain logic) for the targets this
/// CPU runs, and computed there as the interpreter says: the immediates' meaning is checked
/// natively even without AVX-512.
#[test]
fn ternlog_programs_run_natively() {
    use nakiri::opt::OptConfig;
    use nakiri::target::Arch;
    let mut rng = Rng(13);
    for (file, s) in [
        ("ciphers/gimli/gimli.ua", Slicing::B),
        ("ciphers/des/des.ua", Slicing::B),
        ("ciphers/xoodoo/xoodoo.ua", Slicing::V),
        ("ciphers/rectangle/rectangle.ua", Slicing::H),
    ] {
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        let front = driver::check(
            file,
            &src,
            &Config {
                slicing: s,
                ..Config::default()
            },
            &common::Fs,
        );
        let checked = front.checked.unwrap();
        let mut prog = checked.ir.clone();
        let report = nakiri::opt::optimize(
            &mut prog,
            &checked.loop_hints,
            &OptConfig {
                arch: Arch::Avx512,
                ..Default::default()
            },
        )
        .unwrap();
        let made: usize = report
            .passes
            .iter()
            .map(|(_, _, st, _)| st.get("ternlogs"))
            .sum();
        assert!(made > 0, "{}: ternlogs made for avx512", file);
        let inputs = random_inputs(&prog, &mut rng, 200);
        let expect = common::run_interp(&checked.ir, &inputs);
        let got = common::run_everywhere(&format!("{} -{} with ternlogs", file, s), &prog, &inputs);
        assert_eq!(
            got, expect,
            "{} -{}: ternlog code computes differently",
            file, s
        );
    }
}

/// Interleaving by 2 and 3, at granularities 1 and 4: the interleaved entry computes, for each
/// copy, what the original computes on that copy's instance (`const` inputs shared), in the
/// interpreter; its parameters are usubac's (compat.md C7: each non-const one repeated).
#[test]
fn interleaving_preserves_meaning() {
    use nakiri::opt::OptConfig;
    let mut rng = Rng(14);
    let cases = [
        ("tests/in/loops.ua", Slicing::V),
        ("tests/in/loops.ua", Slicing::B),
        ("tests/in/loops.ua", Slicing::H),
        ("ciphers/rectangle/rectangle.ua", Slicing::V),
        ("ciphers/des/des.ua", Slicing::B),
        ("ciphers/aes/aes_rk.ua", Slicing::V),
    ];
    for (file, s) in cases {
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        let front = driver::check(
            file,
            &src,
            &Config {
                slicing: s,
                ..Config::default()
            },
            &common::Fs,
        );
        let checked = front.checked.unwrap();
        let orig = &checked.ir;
        for k in [2usize, 3] {
            for g in [1usize, 4] {
                let mut prog = orig.clone();
                let cfg = OptConfig {
                    interleave: k as u32,
                    interleave_granularity: g,
                    verify_each: true,
                    ..Default::default()
                };
                nakiri::opt::optimize(&mut prog, &checked.loop_hints, &cfg)
                    .unwrap_or_else(|e| panic!("{} -{} x{}: {}", file, s, k, e));
                assert_eq!(prog.interleave, k as u32);
                let e0 = orig.entry();
                let e = prog.entry();
                let n_const = e0.inputs.iter().filter(|p| p.is_const).count();
                assert_eq!(
                    e.inputs.len(),
                    (e0.inputs.len() - n_const) * k + n_const,
                    "{}: inputs repeated, const once",
                    file
                );
                assert_eq!(
                    e.outputs.len(),
                    e0.outputs.len() * k,
                    "{}: outputs repeated",
                    file
                );
                for _ in 0..10 {
                    let insts = random_inputs(orig, &mut rng, k);
                    // const inputs: copy 0's value for every copy
                    let insts: Vec<common::Instance> = insts
                        .iter()
                        .map(|inst| {
                            inst.iter()
                                .enumerate()
                                .map(|(p, w)| {
                                    if e0.inputs[p].is_const {
                                        insts[0][p].clone()
                                    } else {
                                        w.clone()
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    let mut args = Vec::new();
                    for (p, param) in e0.inputs.iter().enumerate() {
                        if param.is_const {
                            args.push(insts[0][p].clone());
                        } else {
                            for inst in &insts {
                                args.push(inst[p].clone());
                            }
                        }
                    }
                    let got = nakiri::interp::run_entry(&prog, &args);
                    for (c, inst) in insts.iter().enumerate() {
                        let want = nakiri::interp::run_entry(orig, inst);
                        for (o, w) in want.iter().enumerate() {
                            assert_eq!(
                                &got[o * k + c],
                                w,
                                "{} -{} x{} g{}: copy {} output {}",
                                file,
                                s,
                                k,
                                g,
                                c,
                                o
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The program the default flags make for a SIMD target in bitslice (everything inlined, the
/// bitslice scheduler) runs natively, on every target this CPU runs, as the interpreter says
/// the unoptimised program computes (the KATs lower for `std`, whose inlining differs).
#[test]
fn bitslice_simd_defaults_run_natively() {
    use nakiri::target::Arch;
    let mut rng = Rng(15);
    for file in [
        "ciphers/des/des.ua",
        "ciphers/rectangle/rectangle.ua",
        "ciphers/present/present.ua",
    ] {
        let reference = common::lower_file_cfg(
            file,
            &Config {
                slicing: Slicing::B,
                opt: nakiri::opt::OptConfig {
                    disabled: nakiri::opt::PassId::ALL.to_vec(),
                    ..Default::default()
                },
                ..Config::default()
            },
        );
        let prog = common::lower_file_cfg(
            file,
            &Config {
                slicing: Slicing::B,
                arch: Arch::Avx2,
                ..Config::default()
            },
        );
        // every node inlined: what remains besides the entry are kept-loop bodies (the default
        // `--loops chains`), and no call is left
        let bodies = prog.loop_bodies();
        assert!(
            prog.nodes.len() >= 2 && bodies[..prog.nodes.len() - 1].iter().all(|b| *b),
            "{}: every node inlined for avx2, only loop bodies left",
            file
        );
        assert!(
            !prog
                .nodes
                .iter()
                .flat_map(|n| &n.body)
                .any(|i| matches!(i, ir::Instr::Call { .. })),
            "{}: no call left",
            file
        );
        let inputs = random_inputs(&reference, &mut rng, 300);
        let expect = common::run_interp(&reference, &inputs);
        let got = common::run_everywhere(&format!("{} -B (avx2 defaults)", file), &prog, &inputs);
        assert_eq!(
            got, expect,
            "{}: the avx2 default program computes differently",
            file
        );
    }
}

/// Every shipped cipher in every slicing it supports (`nakiri bench ciphers`' list): the whole
/// pipeline, then each pass switched off in turn (and each off-by-default pass switched on,
/// and interleaving by 2), checked against the interpreter of the unoptimised program on random
/// inputs, with the IR verified after every pass. The KAT tests check the unoptimised meaning
/// against the published vectors, so this is "the KATs pass with each pass off".
#[test]
fn every_cipher_with_each_pass_off() {
    use nakiri::cli::bench::ciphers::CIPHERS;
    use nakiri::opt::{OptConfig, PassId};
    use nakiri::target::Arch;
    /// One cipher in one slicing: its checked IR, random inputs and the interpreter's outputs.
    struct Case {
        file: &'static str,
        s: Slicing,
        checked: nakiri::sema::elab::Checked,
        inputs: Vec<common::Instance>,
        expect: Vec<common::Instance>,
    }
    let mut rng = Rng(21);
    let mut cases = Vec::new();
    for c in CIPHERS {
        let src = std::fs::read_to_string(common::root().join(c.file)).unwrap();
        for &s in c.slicings {
            let front = driver::check(
                c.file,
                &src,
                &Config {
                    slicing: s,
                    ..Config::default()
                },
                &common::Fs,
            );
            let checked = front
                .checked
                .unwrap_or_else(|| panic!("{} -{} does not check", c.file, s));
            let inputs = random_inputs(&checked.ir, &mut rng, 3);
            let expect = common::run_interp(&checked.ir, &inputs);
            cases.push(Case {
                file: c.file,
                s,
                checked,
                inputs,
                expect,
            });
        }
    }
    // avx512: every pass fires there (inline-all in bitslice, ternlog) but `sched-pairs`;
    // std: the GP defaults.
    let mut configs: Vec<(String, OptConfig)> = vec![
        (
            "all passes, std".into(),
            OptConfig {
                arch: Arch::Std,
                verify_each: true,
                ..Default::default()
            },
        ),
        (
            "all passes, avx512".into(),
            OptConfig {
                arch: Arch::Avx512,
                verify_each: true,
                ..Default::default()
            },
        ),
        // avx2: where `sched-pairs` fires (kept loop bodies with spills on 16 registers;
        // AMD's rule keeps vsliced loops there, Intel's unrolls most).
        (
            "all passes, avx2".into(),
            OptConfig {
                arch: Arch::Avx2,
                uarch: nakiri::target::Uarch::Amd,
                verify_each: true,
                ..Default::default()
            },
        ),
        (
            "interleave 2, std".into(),
            OptConfig {
                arch: Arch::Std,
                verify_each: true,
                interleave: 2,
                ..Default::default()
            },
        ),
    ];
    // (`interleave` does nothing at factor 1: the factor-2 configuration covers it.)
    configs.extend(each_pass_toggled(&[PassId::Interleave]));
    // Every (case, configuration) pair, spread over two threads: this is the suite's longest
    // test, and run on one thread it was the tail of its binary.
    let jobs: Vec<(&Case, &(String, OptConfig))> = cases
        .iter()
        .flat_map(|case| configs.iter().map(move |cfg| (case, cfg)))
        .collect();
    let checked_cases = common::on_two_threads(&jobs, |&(case, (what, cfg))| {
        let (file, s, checked, inputs) = (case.file, case.s, &case.checked, &case.inputs);
        let mut prog = checked.ir.clone();
        let report = nakiri::opt::optimize(&mut prog, &checked.loop_hints, cfg)
            .unwrap_or_else(|e| panic!("{} -{} ({}): {}", file, s, what, e));
        if what == "all passes, avx2" && file.contains("pyjamask") && s == Slicing::V {
            // MixRows' four rows and the key schedule's first row.
            assert_eq!(
                report.count(PassId::RotSum, "trees"),
                5,
                "rot-sum fired on Pyjamask -V avx2 (so it is validated here)"
            );
        }
        if what == "all passes, avx2" && file.contains("ace") && s == Slicing::V {
            // Each of ACE's 16 steps runs three Simeck boxes as kept loops.
            assert_eq!(
                report.count(PassId::LoopFuse, "fused"),
                32,
                "loop-fuse fired on ACE -V avx2 (so it is validated here)"
            );
        }
        if what == "all passes, avx2" && file.contains("chacha20") && s == Slicing::V {
            assert!(
                prog.nodes.iter().any(|n| n.lockstep),
                "sched-pairs fired on ChaCha20 -V avx2 (so it is validated here)"
            );
        }
        let got: Vec<common::Instance> = if cfg.interleave > 1 {
            // K copies on the same instance (usubac's C7 order: each non-const input K
            // times in a row, const inputs once); every copy must give the outputs.
            let k = cfg.interleave as usize;
            let e0 = checked.ir.entry();
            inputs
                .iter()
                .map(|inst| {
                    let mut args = Vec::new();
                    for (p, param) in e0.inputs.iter().enumerate() {
                        for _ in 0..if param.is_const { 1 } else { k } {
                            args.push(inst[p].clone());
                        }
                    }
                    let o = nakiri::interp::run_entry(&prog, &args);
                    assert_eq!(
                        o.len(),
                        e0.outputs.len() * k,
                        "{} -{} ({}): outputs",
                        file,
                        s,
                        what
                    );
                    (0..e0.outputs.len())
                        .map(|j| {
                            for copy in 1..k {
                                assert_eq!(
                                    o[j * k + copy],
                                    o[j * k],
                                    "{} -{} ({}): copy {} differs",
                                    file,
                                    s,
                                    what,
                                    copy
                                );
                            }
                            o[j * k].clone()
                        })
                        .collect()
                })
                .collect()
        } else {
            common::run_interp(&prog, inputs)
        };
        assert_eq!(
            got, case.expect,
            "{} -{} ({}): the pipeline changed the meaning",
            file, s, what
        );
    })
    .len();
    assert!(
        checked_cases > 300,
        "every cipher x slicing x configuration checked ({})",
        checked_cases
    );
}

/// The avx512 pipeline (where every pass fires) with each pass in turn switched off, or, for
/// a pass off by default, switched on; `skip` = passes left out.
fn each_pass_toggled(skip: &[nakiri::opt::PassId]) -> Vec<(String, nakiri::opt::OptConfig)> {
    use nakiri::opt::{OptConfig, PassId};
    let mut configs = Vec::new();
    for p in PassId::ALL.into_iter().filter(|p| !skip.contains(p)) {
        let mut cfg = OptConfig {
            arch: nakiri::target::Arch::Avx512,
            verify_each: true,
            ..Default::default()
        };
        if cfg.enabled(p) {
            cfg.disable(p);
            configs.push((format!("without {}", p.name()), cfg));
        } else {
            cfg.enable(p);
            configs.push((format!("with {} (off by default)", p.name()), cfg));
        }
    }
    configs
}

/// A memory-form loop (one buffer, or two) whose state starts as an input array and ends as
/// the output array keeps it in the output itself (codegen `state_in_output`): the raw entry
/// copies the input there once (or, with two buffers and an odd count, fills the stack
/// buffer from it) and copies nothing out. Callers may still alias: the raw entry
/// is called natively with the output disjoint from the inputs, equal to the state's input (in
/// place), overlapping it by part (both ways), and overlapping the round keys; each must give
/// what the C without memory-form loops gives on separate buffers.
#[test]
fn state_in_output_array_handles_aliasing() {
    use nakiri::codegen::{generate, Arch, CodegenConfig};
    use nakiri::opt::LoopPolicy;
    let reg_bytes = |a: Arch| match a {
        Arch::Std => 8,
        Arch::Sse => 16,
        Arch::Avx2 => 32,
        _ => 64,
    };
    for (file, entry, ins) in [
        ("tests/in/state_io.ua", "state_io__", vec![64usize, 7 * 64]),
        ("ciphers/ascon/ascon.ua", "ascon_p12__", vec![320usize]),
        (
            "ciphers/spongent160/spongent160.ua",
            "spongent160__",
            vec![160usize],
        ),
    ] {
        let prog = lower_with(file, Slicing::B, LoopPolicy::All);
        let n_out = prog.entry().outputs[0].atoms.len();
        assert_eq!(
            n_out, ins[0],
            "{}: the state is the first input's size",
            file
        );
        for arch in common::native_archs(file) {
            let gen = |mem_loops: bool, h: &str| {
                generate(
                    &prog,
                    &CodegenConfig {
                        arch,
                        header_name: h.into(),
                        banner: String::new(),
                        spill: nakiri::codegen::SPILL_DEFAULT,
                        mem_loops,
                        loop_regs: None,
                        opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                        uarch: nakiri::target::Uarch::host(),
                        state_loads: None,
                        loop_align: None,
                    },
                )
                .unwrap()
            };
            let new = gen(true, "new.h");
            if !new.c.contains("nk_disjoint0(") {
                assert_ne!(
                    arch,
                    Arch::Avx512,
                    "{}: avx512 keeps the state in the output",
                    file
                );
                println!(
                    "skipped: {} -B {}: its loop keeps two buffers here",
                    file, arch
                );
                continue;
            }
            // the fast path: the output array holds the state (copied in with an even count)
            assert!(
                new.c.contains("_io) {") || new.c.contains("(void *)o;"),
                "{} {}: the fast path",
                file,
                arch
            );
            assert_eq!(
                new.c.contains("__builtin_memcpy("),
                !file.contains("state_io") || arch == Arch::Avx512,
                "{} {}: the input copied in only where the first generation is the output",
                file,
                arch
            );
            let old = gen(false, "ref.h");
            assert!(!old.c.contains("nk_disjoint0("), "{}: --no-mem-loops", file);
            let r = reg_bytes(arch);
            let sizes: Vec<usize> = ins.iter().map(|n| n * r).collect();
            let (sb, ob) = (sizes[0], n_out * r);
            let call = |s: &str, o: &str| common::alias_call(entry, ins.len(), s, o);
            let ksize = sizes.get(1).copied().unwrap_or(0);
            let q = ob / 4;
            let mut checks = format!(
                r#"    /* in place */
    memcpy(big, s, {sb});
    {c2}
    if (memcmp(big, want, {ob})) {{ printf("in place\n"); bad = 1; }}
    /* the output a quarter of the state after the input, then before it */
    memcpy(big, s, {sb});
    {c3}
    if (memcmp(big + {q}, want, {ob})) {{ printf("overlap after\n"); bad = 1; }}
    memcpy(big + {q}, s, {sb});
    {c4}
    if (memcmp(big, want, {ob})) {{ printf("overlap before\n"); bad = 1; }}
"#,
                c2 = call("big", "big"),
                c3 = call("big", &format!("big + {}", q)),
                c4 = call(&format!("big + {}", q), "big"),
            );
            if ksize > 0 {
                // the output over the round keys' last quarter (the loop reads them in place)
                checks.push_str(&format!(
                    r#"    memcpy(big, k, {kb});
    {entry}(s, big, big + {kb} - {q});
    if (memcmp(big + {kb} - {q}, want, {ob})) {{ printf("over the keys\n"); bad = 1; }}
"#,
                    kb = ksize,
                ));
            }
            let out = common::run_aliasing(
                &format!("state-io-{}-{}", entry, arch),
                entry,
                &new,
                &old,
                ins.len(),
                (sb, ksize, ob),
                &checks,
            );
            assert_eq!(out.trim(), "ok", "{} -B {}: {}", file, arch, out);
        }
    }
}

/// Where the loop policy unrolls every body `outline` made (Intel, bitslice on AVX-512:
/// Pyjamask's rounds, with its key schedule written out, are heavy and would gather their
/// round keys), `opt::optimize` runs the pipeline again with `outline`
/// skipped: the result is the program never outlined (the same IR as with `skip_outline` set
/// by hand), with no kept loop, computing what the program with its round loop kept
/// (`--loops chains`) computes.
#[test]
fn every_body_unrolled_means_optimised_without_outline() {
    use nakiri::target::Uarch;
    let file = "tests/data/pyjamask128_ks_unrolled.ua";
    let src = std::fs::read_to_string(common::root().join(file)).unwrap();
    let cfg = |uarch: Uarch, skip: bool| {
        let mut c = Config {
            slicing: Slicing::B,
            arch: nakiri::codegen::Arch::Avx512,
            ..Config::default()
        };
        c.opt.uarch = uarch;
        c.opt.skip_outline = skip;
        c
    };
    let insns = |p: &nakiri::ir::Program| -> usize { p.nodes.iter().map(|n| n.body.len()).sum() };
    let loops = |p: &nakiri::ir::Program| -> usize {
        p.nodes
            .iter()
            .flat_map(|n| &n.body)
            .filter(|i| matches!(i, nakiri::ir::Instr::Loop { .. }))
            .count()
    };
    let intel = common::lower_src_cfg(file, &src, &cfg(Uarch::Intel, false));
    let never = common::lower_src_cfg(file, &src, &cfg(Uarch::Intel, true));
    assert_eq!(
        loops(&intel),
        0,
        "Intel unrolls Pyjamask's rounds in bitslice"
    );
    assert_eq!(insns(&intel), insns(&never));
    assert_eq!(
        nakiri::ir::print::to_string(&intel),
        nakiri::ir::print::to_string(&never)
    );
    let mut chains = cfg(Uarch::Intel, false);
    chains.opt.loops = nakiri::opt::LoopPolicy::Chains;
    let kept = common::lower_src_cfg(file, &src, &chains);
    assert!(loops(&kept) > 0, "--loops chains keeps the round loop");
    assert!(insns(&kept) < insns(&intel));
    let mut rng = Rng(0x0a11_b0d5);
    let insts = common::random_instances(&intel, 3, &mut rng);
    assert_eq!(
        common::run_interp(&intel, &insts),
        common::run_interp(&kept, &insts),
        "{file}: unrolled without outline and kept loop compute the same"
    );
}

/// A register-form kept loop whose per-iteration inputs are elements of one array at a constant
/// stride (RECTANGLE `-H`: `key[i][j]` for round i) reads them in place, `key[0 + nk_i * 1][j]`,
/// instead of copying them into arrays of its own before the loop
/// (`codegen::strided_elements`); the C computes what the interpreter does, natively on every
/// SIMD target this CPU runs.
#[test]
fn register_form_loop_reads_strided_inputs_in_place() {
    use nakiri::codegen::Arch;
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512] {
        let mut cc = Config {
            slicing: Slicing::H,
            arch,
            ..Config::default()
        };
        cc.opt.loops = nakiri::opt::LoopPolicy::Chains;
        let prog = common::lower_file_cfg("ciphers/rectangle/rectangle.ua", &cc);
        let gen = nakiri::codegen::CodegenConfig {
            arch,
            header_name: "r.h".into(),
            banner: String::new(),
            spill: nakiri::codegen::SPILL_DEFAULT,
            mem_loops: true,
            loop_regs: None,
            opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
            uarch: nakiri::target::Uarch::host(),
            state_loads: None,
            loop_align: None,
        };
        let out = nakiri::codegen::generate(&prog, &gen).unwrap();
        assert!(
            out.c.contains("key[0 + nk_i * 1][0]"),
            "{arch}: round keys read in place"
        );
        assert!(!out.c.contains("_x4[25]"), "{arch}: no gathered copy");
        if !arch.runs_here() {
            println!("skipped: RECTANGLE -H {arch} natively (this CPU lacks it)");
            continue;
        }
        let mut rng = common::Rng(0x4ec7_a61e);
        let insts = common::random_instances(&prog, 40, &mut rng);
        assert_eq!(
            common::run_native_out(&prog, &out, arch, &insts),
            common::run_interp(&prog, &insts),
            "RECTANGLE -H {arch} with its round keys read in place"
        );
    }
}

/// A memory-form loop whose gathered per-iteration inputs are, row for row and slot for slot,
/// an earlier kept loop's per-iteration outputs reads them in that loop's `nk_l{k}_y` buffer
/// rather than copying them into an array of its own first (`codegen::y_rows`). AES-128 with
/// its key schedule inside is that case: the rounds read the key-schedule loop's round keys
/// (9 x 128 registers copied per call before). The C has the form, and computes what the
/// interpreter does, natively on every target this CPU runs.
#[test]
fn gathered_round_inputs_read_in_an_earlier_loops_outputs() {
    use nakiri::codegen::Arch;
    // (source, name, the gathered copy of the round keys there would have been, targets).
    // Pyjamask's first round reads the key itself: on SIMD targets, where every node is
    // inlined, it stays out of the round loop; on std (nodes kept as calls) `reroll` puts
    // all 14 calls of `round` in one loop, which gathers its round keys.
    let simd = [Arch::Sse, Arch::Avx2, Arch::Avx512];
    let all = [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512];
    for (file, name, copy, archs) in [
        ("ciphers/aes/aes.ua", "AES-128", "_x[9][128]", &all[..]),
        (
            "ciphers/pyjamask128/pyjamask128.ua",
            "Pyjamask-128",
            "_x[13][128]",
            &simd[..],
        ),
    ] {
        for &arch in archs {
            let prog = common::lower_file_cfg(file, &b_chains(arch));
            let mut rng = common::Rng(0xae5_4e75);
            let insts = common::random_instances(&prog, 40, &mut rng);
            let want = common::run_interp(&prog, &insts);
            let cfg = nakiri::codegen::CodegenConfig {
                arch,
                header_name: "y.h".into(),
                banner: String::new(),
                spill: nakiri::codegen::SPILL_DEFAULT,
                mem_loops: true,
                loop_regs: None,
                opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                uarch: nakiri::target::Uarch::host(),
                state_loads: None,
                loop_align: None,
            };
            let out = nakiri::codegen::generate(&prog, &cfg).unwrap();
            let c = &out.c;
            assert_eq!(
                c.matches("its state in memory").count(),
                2,
                "{name} {arch}: key schedule and rounds in the memory form"
            );
            // (the call's last argument, or the one before the state slots kept in registers)
            assert!(
                c.contains("_y[nk_i + 0]);") || c.contains("_y[nk_i + 0], &nk_l"),
                "{name} {arch}: the rounds read the key schedule's outputs in place"
            );
            assert!(
                !c.contains(copy),
                "{name} {arch}: no gathered copy of the round keys"
            );
            if !arch.runs_here() {
                println!("skipped: {name} -B {arch} natively (this CPU lacks it)");
                continue;
            }
            assert_eq!(
                common::run_native_out(&prog, &out, arch, &insts),
                want,
                "{name} -B {arch} with its round keys read in place"
            );
        }
    }
}

/// On AMD, bitslice on AVX-512 compiles the program with and without `xor-share` and keeps the
/// result without it when that is at least 2% cheaper by estimate (`opt::optimize`): PHOTON
/// unrolled (`--loops unroll`; by default it now keeps its round loop on AMD, and the trial
/// only weighs straight-line code) drops the pass (as `--disable xor-share` compiles it), and
/// so does Pyjamask since `sched-bits` has bottom-up orders (its unshared body then estimates
/// 20 864 operations and 16 007 spills against 17 210 and 22 422; measured the same speed),
/// AES keeps it, and on Intel, or on avx2, PHOTON keeps it. Both results compute the same.
#[test]
fn xor_share_off_where_the_estimate_says_so_on_amd_avx512() {
    use nakiri::codegen::Arch;
    use nakiri::opt::PassId;
    use nakiri::target::Uarch;
    let cfg = |uarch: Uarch, arch: Arch, off: bool| {
        let mut c = Config {
            slicing: Slicing::B,
            arch,
            ..Config::default()
        };
        c.opt.uarch = uarch;
        c.opt.loops = nakiri::opt::LoopPolicy::Unroll;
        if off {
            c.opt.disable(PassId::XorShare);
        }
        c
    };
    let text =
        |file: &str, c: &Config| nakiri::ir::print::to_string(&common::lower_file_cfg(file, c));
    let photon = "ciphers/photon256/photon256.ua";
    for file in [photon, "ciphers/pyjamask128/pyjamask128.ua"] {
        assert_eq!(
            text(file, &cfg(Uarch::Amd, Arch::Avx512, false)),
            text(file, &cfg(Uarch::Amd, Arch::Avx512, true)),
            "{file} on AMD avx512: compiled without xor-share"
        );
    }
    for (uarch, arch) in [(Uarch::Intel, Arch::Avx512), (Uarch::Amd, Arch::Avx2)] {
        assert_ne!(
            text(photon, &cfg(uarch, arch, false)),
            text(photon, &cfg(uarch, arch, true)),
            "PHOTON on {uarch:?} {arch:?}: xor-share runs"
        );
    }
    {
        let file = "ciphers/aes/aes.ua";
        assert_ne!(
            text(file, &cfg(Uarch::Amd, Arch::Avx512, false)),
            text(file, &cfg(Uarch::Amd, Arch::Avx512, true)),
            "{file} on AMD avx512: xor-share kept"
        );
    }
    let with = common::lower_file_cfg(photon, &cfg(Uarch::Intel, Arch::Avx512, false));
    let without = common::lower_file_cfg(photon, &cfg(Uarch::Amd, Arch::Avx512, false));
    let mut rng = Rng(0x0c5a_7e11);
    let insts = common::random_instances(&with, 3, &mut rng);
    assert_eq!(
        common::run_interp(&with, &insts),
        common::run_interp(&without, &insts),
        "PHOTON with and without xor-share compute the same"
    );
}

/// `sched-bits`' bottom-up orders (`schedule_up`): AES-128 `-B` computes its round keys in
/// a chain that the top-down ready lists run ahead of the rounds (every round key before
/// round 3: over 1 000 values live); the bottom-up order computes each round key just before
/// its round (under 600 live). Both are permutations that keep dependences and compute what
/// the source does. By default the pass keeps the top-down order here (Belady's estimate
/// prefers it, and it measured 1.07x faster on Zen 4); `--sched-bits-up` forces the other.
/// On Gimli `-B` avx512 the bottom-up order's estimate is under `UP_MAX_PER_MILLE` of the
/// top-down one's, and the default keeps it.
#[test]
fn sched_bits_up_interleaves_aes_key_expansion() {
    use nakiri::codegen::Arch;
    use nakiri::opt::sched_bits::{schedule, schedule_up, Heuristic};
    let file = "ciphers/aes/aes.ua";
    let mut cfg = Config {
        slicing: Slicing::B,
        arch: Arch::Avx512,
        ..Config::default()
    };
    let regs = nakiri::target::Target::new(Arch::Avx512).n_regs as usize;
    let mut off = cfg.clone();
    off.opt.disable(nakiri::opt::PassId::SchedBits);
    let prog = common::lower_file_cfg(file, &off);
    assert_eq!(prog.nodes.len(), 1, "one flat body");
    let body = &prog.nodes[0];
    let ordered = |order: &[usize]| {
        let mut n = body.clone();
        nakiri::opt::apply_order(&mut n, order);
        n
    };
    let down = ordered(&schedule(body, Heuristic::Pressure, false));
    let up = ordered(&schedule_up(body, Heuristic::Pressure, false));
    let (ld, lu) = (
        nakiri::opt::cost::max_live(&down),
        nakiri::opt::cost::max_live(&up),
    );
    assert!(
        ld > 1000 && lu < 600,
        "max live: top-down {ld}, bottom-up {lu}"
    );
    let mut rng = common::Rng(0xae5_0f0f);
    let insts = common::random_instances(&prog, 8, &mut rng);
    let want = common::run_interp(&prog, &insts);
    for n in [&down, &up] {
        let mut re = prog.clone();
        re.nodes[0] = n.clone();
        nakiri::ir::verify::verify(&re).expect("dependences kept");
        assert_eq!(common::run_interp(&re, &insts), want, "the same outputs");
    }
    // the default keeps a top-down order, the flag a bottom-up one
    let est = |p: &Program| nakiri::opt::cost::spill_estimate(&p.nodes[0], regs);
    let dflt = common::lower_file_cfg(file, &cfg);
    assert!(nakiri::opt::cost::max_live(&dflt.nodes[0]) > 1000);
    cfg.opt.sched_bits_up = Some(true);
    let forced = common::lower_file_cfg(file, &cfg);
    assert!(nakiri::opt::cost::max_live(&forced.nodes[0]) < 600);
    assert!(
        est(&forced) > est(&dflt),
        "Belady prefers the top-down order"
    );
    assert_eq!(common::run_interp(&forced, &insts), want);
    // Gimli on avx512: the rule takes the bottom-up order (its round's estimate is 2 664
    // against 3 771)
    let gimli = "ciphers/gimli/gimli.ua";
    let mut g = Config {
        slicing: Slicing::B,
        arch: Arch::Avx512,
        ..Config::default()
    };
    let dflt = common::lower_file_cfg(gimli, &g);
    g.opt.sched_bits_up = Some(false);
    let down = common::lower_file_cfg(gimli, &g);
    g.opt.sched_bits_up = Some(true);
    let up = common::lower_file_cfg(gimli, &g);
    assert_eq!(dflt, up, "gimli: the default keeps the bottom-up order");
    assert_ne!(dflt, down);
    let mut rng = common::Rng(0x61e1);
    let insts = common::random_instances(&dflt, 8, &mut rng);
    assert_eq!(
        common::run_interp(&dflt, &insts),
        common::run_interp(&down, &insts)
    );
}
