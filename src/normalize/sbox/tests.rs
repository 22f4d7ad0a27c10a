use super::*;

/// xorshift64* — a small deterministic PRNG for the tests.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn check(c: &Circuit, n_in: usize, n_out: usize, table: &[u64]) {
    assert_eq!(c.n_inputs, n_in);
    assert_eq!(c.outputs.len(), n_out);
    // Well-formed: gates only read earlier gates and existing inputs.
    let ok = |w: &Wire, i: usize| match *w {
        Wire::Input(k) => k < n_in,
        Wire::Gate(k) => k < i,
        Wire::Const(_) => true,
    };
    for (i, g) in c.gates.iter().enumerate() {
        match g {
            Gate::And(a, b) | Gate::Or(a, b) | Gate::Xor(a, b) | Gate::Andn(a, b) => {
                assert!(ok(a, i) && ok(b, i), "gate {i} reads a later wire")
            }
            Gate::Not(a) => assert!(ok(a, i)),
        }
    }
    for w in &c.outputs {
        assert!(ok(w, c.gates.len()));
    }
    for (x, &e) in table.iter().enumerate() {
        assert_eq!(eval(c, x as u64), e, "input {x:#x}");
    }
}

fn random_table(rng: &mut Rng, n_in: usize, n_out: usize) -> Vec<u64> {
    (0..1u64 << n_in).map(|_| rng.next() & ((1 << n_out) - 1)).collect()
}

#[test]
fn generic_random_tables() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for n_in in 1..=8 {
        for n_out in [1, 2, 3, 4, 5, 8] {
            let reps = if n_in <= 5 { 6 } else { 2 };
            let mut total = 0;
            for _ in 0..reps {
                let t = random_table(&mut rng, n_in, n_out);
                let c = table_circuit(n_in, n_out, &t);
                check(&c, n_in, n_out, &t);
                let g = generic_circuit(n_in, n_out, &t);
                check(&g, n_in, n_out, &t);
                total += c.gates.len();
            }
            eprintln!("random {n_in}->{n_out}: avg {} gates", total / reps);
        }
    }
}

#[test]
fn generic_each_construction() {
    let mut rng = Rng(42);
    for n_in in 1..=6 {
        let t = random_table(&mut rng, n_in, 3);
        check(&anf::anf_circuit(n_in, 3, &t), n_in, 3, &t);
        let order: Vec<usize> = (0..n_in).rev().collect();
        for how in [anf::Decomp::Shannon, anf::Decomp::Davio] {
            check(&anf::dd_circuit(n_in, 3, &t, &order, how), n_in, 3, &t);
        }
    }
}

#[test]
fn special_tables() {
    // Constants, identity, complement, projections, a linear map.
    for n in 1..=6 {
        let size = 1u64 << n;
        let all = size - 1;
        let tables: Vec<(usize, Vec<u64>)> = vec![
            (n, (0..size).collect()),
            (n, (0..size).map(|x| x ^ all).collect()),
            (n, vec![0; size as usize]),
            (n, vec![all; size as usize]),
            (1, (0..size).map(|x| (x.count_ones() & 1) as u64).collect()),
            (n, (0..size).map(|x| (x ^ (x >> 1)) & all).collect()),
        ];
        for (n_out, t) in tables {
            let c = table_circuit(n, n_out, &t);
            check(&c, n, n_out, &t);
        }
        // Identity and complement cost no/one gate per bit.
        assert_eq!(table_circuit(n, n, &(0..size).collect::<Vec<_>>()).gates.len(), 0);
        assert!(table_circuit(n, n, &(0..size).map(|x| x ^ all).collect::<Vec<_>>()).gates.len() <= n);
    }
}

#[test]
fn large_tables_work() {
    let mut rng = Rng(7);
    for n_in in [10, 12] {
        let t = random_table(&mut rng, n_in, 4);
        let c = table_circuit(n_in, 4, &t);
        check(&c, n_in, 4, &t);
        eprintln!("random {n_in}->4: {} gates", c.gates.len());
    }
}

#[test]
fn deterministic() {
    let mut rng = Rng(99);
    for n_in in [3, 4, 6, 8] {
        let t = random_table(&mut rng, n_in, n_in);
        assert_eq!(table_circuit(n_in, n_in, &t), table_circuit(n_in, n_in, &t));
    }
}

#[test]
fn malformed_tables_do_not_panic() {
    let c = table_circuit(3, 2, &[1, 2, 3]);
    for x in 0..8 {
        assert_eq!(eval(&c, x), [1, 2, 3, 0, 0, 0, 0, 0][x as usize]);
    }
    let c = table_circuit(2, 1, &[0xff, 0, 1, 3, 9, 9]);
    for x in 0..4 {
        assert_eq!(eval(&c, x), [1, 0, 1, 1][x as usize]);
    }
}
