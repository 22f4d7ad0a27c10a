//! Database of known S-boxes (tables from the primitives' specifications) and
//! compact circuits for them, written in a tiny straight-line language:
//! `name = a OP b` with OP in `^ & | #` (`#` = XNOR), `name = ~a`,
//! `name = ~a & b` (ANDN) or `name = a`; statements end with `;` or a newline.
//! Inputs are named by the entry, outputs listed by name (MSB first).

use super::builder::Builder;
use super::Circuit;
use super::Wire;
use crate::fxhash::FxHashMap as HashMap;
use std::sync::OnceLock;

/// One database entry.
pub struct Entry {
    pub name: &'static str,
    pub n_in: usize,
    pub n_out: usize,
    pub table: Vec<u64>,
    /// Input names (MSB first), program, output names (MSB first).
    pub inputs: &'static [&'static str],
    pub program: &'static str,
    pub outputs: &'static [&'static str],
    pub provenance: &'static str,
}

/// Parses a circuit program into a circuit (panics on a malformed program:
/// the database is fixed and fully tested).
pub fn parse(n_in: usize, inputs: &[&str], program: &str, outputs: &[&str]) -> Circuit {
    let mut b = Builder::new(n_in);
    let mut env: HashMap<String, Wire> = HashMap::default();
    for (i, name) in inputs.iter().enumerate() {
        env.insert(name.to_string(), Wire::Input(i));
    }
    let get = |env: &HashMap<String, Wire>, t: &str| -> Wire {
        match t {
            "0" => Wire::Const(false),
            "1" => Wire::Const(true),
            _ => *env
                .get(t)
                .unwrap_or_else(|| panic!("sbox db: unknown wire {t}")),
        }
    };
    for stmt in program.split([';', '\n']) {
        let toks: Vec<&str> = stmt.split_whitespace().collect();
        if toks.is_empty() {
            continue;
        }
        assert!(
            toks.len() >= 3 && toks[1] == "=",
            "sbox db: bad statement {stmt}"
        );
        let rhs = &toks[2..];
        let w = match rhs {
            [a] => {
                if let Some(x) = a.strip_prefix('~') {
                    let x = get(&env, x);
                    b.not(x)
                } else {
                    get(&env, a)
                }
            }
            [a, op, c] => {
                let neg = a.starts_with('~');
                let x = get(&env, a.trim_start_matches('~'));
                let y = get(&env, c);
                match (*op, neg) {
                    ("^", false) => b.xor(x, y),
                    ("&", false) => b.and(x, y),
                    ("|", false) => b.or(x, y),
                    ("#", false) => {
                        let t = b.xor(x, y);
                        b.not(t)
                    }
                    ("&", true) => b.andn(x, y),
                    _ => panic!("sbox db: bad statement {stmt}"),
                }
            }
            _ => panic!("sbox db: bad statement {stmt}"),
        };
        env.insert(toks[0].to_string(), w);
    }
    let outs = outputs.iter().map(|o| get(&env, o)).collect();
    b.finish(outs)
}

impl Entry {
    pub fn circuit(&self) -> Circuit {
        parse(self.n_in, self.inputs, self.program, self.outputs)
    }
}

/// The circuit for `table` if it is a known S-box (the smallest where there are several).
pub fn lookup(n_in: usize, n_out: usize, table: &[u64]) -> Option<Circuit> {
    lookup_for(n_in, n_out, table, super::CircuitGoal::Small)
}

/// The circuit for `table` if it is a known S-box; among several, the one `goal` prefers
/// (fewest gates then least depth, or least depth then fewest gates; then the first listed).
pub fn lookup_for(
    n_in: usize,
    n_out: usize,
    table: &[u64],
    goal: super::CircuitGoal,
) -> Option<Circuit> {
    let mut best: Option<(usize, usize, Circuit)> = None;
    for e in entries()
        .iter()
        .filter(|e| e.n_in == n_in && e.n_out == n_out && e.table == table)
    {
        let c = e.circuit();
        let (g, d) = (c.gates.len(), super::depth(&c));
        let key = match goal {
            super::CircuitGoal::Small => (g, d),
            super::CircuitGoal::Shallow => (d, g),
        };
        if best.as_ref().is_none_or(|b| key < (b.0, b.1)) {
            best = Some((key.0, key.1, c));
        }
    }
    best.map(|b| b.2)
}

// ---------------------------------------------------------------- tables

/// AES S-box (FIPS-197 §5.1.1): multiplicative inverse in GF(2^8) modulo
/// x^8+x^4+x^3+x+1 (0 maps to 0), then the affine map b ^ rotl(b,1..4) ^ 0x63.
pub fn aes_table() -> Vec<u64> {
    fn mul(mut a: u8, mut b: u8) -> u8 {
        let mut r = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                r ^= a;
            }
            let hi = a & 0x80;
            a <<= 1;
            if hi != 0 {
                a ^= 0x1b;
            }
            b >>= 1;
        }
        r
    }
    (0..256u32)
        .map(|x| {
            let x = x as u8;
            // x^254 = x^-1
            let mut inv = 1u8;
            for _ in 0..254 {
                inv = mul(inv, x);
            }
            let s = inv
                ^ inv.rotate_left(1)
                ^ inv.rotate_left(2)
                ^ inv.rotate_left(3)
                ^ inv.rotate_left(4)
                ^ 0x63;
            s as u64
        })
        .collect()
}

/// SKINNY-128 8-bit S-box from its construction (SKINNY paper, §2.2): four
/// layers of `x4 ^= ~(x7|x6); x0 ^= ~(x3|x2)`, the first three followed by the
/// bit permutation (x7..x0) -> (x2,x1,x7,x6,x4,x0,x3,x5), the last by a swap
/// of x1 and x2.
pub fn skinny8_table() -> Vec<u64> {
    (0..256u64)
        .map(|x| {
            let mut b: [u64; 8] = std::array::from_fn(|i| (x >> i) & 1);
            for r in 0..4 {
                b[4] ^= !(b[7] | b[6]) & 1;
                b[0] ^= !(b[3] | b[2]) & 1;
                if r < 3 {
                    b = [b[5], b[3], b[0], b[4], b[6], b[7], b[1], b[2]];
                } else {
                    b.swap(1, 2);
                }
            }
            (0..8).map(|i| b[i] << i).sum()
        })
        .collect()
}

/// DES S-boxes S1..S8 in FIPS 46-3 layout: row (b0 b5) then column (b1..b4).
pub const DES_FIPS: [[[u8; 16]; 4]; 8] = [
    [
        [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7],
        [0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8],
        [4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0],
        [15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13],
    ],
    [
        [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10],
        [3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5],
        [0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15],
        [13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9],
    ],
    [
        [10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8],
        [13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1],
        [13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7],
        [1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12],
    ],
    [
        [7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15],
        [13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9],
        [10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4],
        [3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14],
    ],
    [
        [2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9],
        [14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6],
        [4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14],
        [11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3],
    ],
    [
        [12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11],
        [10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8],
        [9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6],
        [4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13],
    ],
    [
        [4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1],
        [13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6],
        [1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2],
        [6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12],
    ],
    [
        [13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7],
        [1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2],
        [7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8],
        [2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11],
    ],
];

/// DES S-box `k` (0-based) indexed by the plain 6-bit input b0..b5 (MSB first).
pub fn des_table(k: usize) -> Vec<u64> {
    (0..64usize)
        .map(|x| {
            let row = ((x >> 4) & 2) | (x & 1);
            let col = (x >> 1) & 15;
            DES_FIPS[k][row][col] as u64
        })
        .collect()
}

pub const SERPENT: [[u8; 16]; 8] = [
    [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12],
    [15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4],
    [8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2],
    [0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14],
    [1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13],
    [15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1],
    [7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0],
    [1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6],
];
pub const RECTANGLE: [u8; 16] = [
    0x6, 0x5, 0xC, 0xA, 0x1, 0xE, 0x7, 0x9, 0xB, 0x0, 0x3, 0xD, 0x8, 0xF, 0x4, 0x2,
];
pub const PRESENT: [u8; 16] = [
    0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2,
];
pub const SPONGENT: [u8; 16] = [
    0xE, 0xD, 0xB, 0x0, 0x2, 0x1, 0x4, 0xF, 0x7, 0xA, 0x8, 0x5, 0x9, 0xC, 0x3, 0x6,
];
pub const GIFT: [u8; 16] = [
    0x1, 0xA, 0x4, 0xC, 0x6, 0xF, 0x3, 0x9, 0x2, 0xD, 0xB, 0x7, 0x5, 0x0, 0x8, 0xE,
];
pub const SKINNY4: [u8; 16] = [
    0xC, 0x6, 0x9, 0x0, 0x1, 0xA, 0x2, 0xB, 0x3, 0x8, 0x5, 0xD, 0x4, 0xE, 0x7, 0xF,
];
pub const PYJAMASK3: [u8; 8] = [1, 3, 6, 5, 2, 4, 7, 0];
pub const PYJAMASK4: [u8; 16] = [
    0x2, 0xD, 0x3, 0x9, 0x7, 0xB, 0xA, 0x6, 0xE, 0x0, 0xF, 0x4, 0x8, 0x5, 0x1, 0xC,
];
pub const CLYDE: [u8; 16] = [
    0x0, 0x8, 0x1, 0xF, 0x2, 0xA, 0x7, 0x9, 0x4, 0xD, 0x5, 0x6, 0xE, 0x3, 0xB, 0xC,
];
pub const ASCON: [u8; 32] = [
    0x04, 0x0b, 0x1f, 0x14, 0x1a, 0x15, 0x09, 0x02, 0x1b, 0x05, 0x08, 0x12, 0x1d, 0x03, 0x06, 0x1c,
    0x1e, 0x13, 0x07, 0x0e, 0x00, 0x0d, 0x11, 0x18, 0x10, 0x0c, 0x01, 0x19, 0x16, 0x0a, 0x0f, 0x17,
];

fn t(v: &[u8]) -> Vec<u64> {
    v.iter().map(|&x| x as u64).collect()
}

// -------------------------------------------------------------- circuits

/// Boyar & Peralta, "A new combinational logic minimization technique with
/// applications to cryptology" (SEA 2010 / eprint 2009/191): the 115-gate
/// circuit (32 AND, 79 XOR, 4 XNOR; depth 28). Same structure as the
/// depth-16 circuit below (top linear layer, GF(2^4)-based inversion, bottom
/// linear layer) with 13 fewer gates. U0 and S0 are the most significant bits.
const AES_BP115: &str = "
y14 = U3 ^ U5; y13 = U0 ^ U6; y9 = U0 ^ U3; y8 = U0 ^ U5; t0 = U1 ^ U2
y1 = t0 ^ U7; y4 = y1 ^ U3; y12 = y13 ^ y14; y2 = y1 ^ U0; y5 = y1 ^ U6
y3 = y5 ^ y8; t1 = U4 ^ y12; y15 = t1 ^ U5; y20 = t1 ^ U1; y6 = y15 ^ U7
y10 = y15 ^ t0; y11 = y20 ^ y9; y7 = U7 ^ y11; y17 = y10 ^ y11; y19 = y10 ^ y8
y16 = t0 ^ y11; y21 = y13 ^ y16; y18 = U0 ^ y16
t2 = y12 & y15; t3 = y3 & y6; t4 = t3 ^ t2; t5 = y4 & U7; t6 = t5 ^ t2
t7 = y13 & y16; t8 = y5 & y1; t9 = t8 ^ t7; t10 = y2 & y7; t11 = t10 ^ t7
t12 = y9 & y11; t13 = y14 & y17; t14 = t13 ^ t12; t15 = y8 & y10; t16 = t15 ^ t12
t17 = t4 ^ t14; t18 = t6 ^ t16; t19 = t9 ^ t14; t20 = t11 ^ t16
t21 = t17 ^ y20; t22 = t18 ^ y19; t23 = t19 ^ y21; t24 = t20 ^ y18
t25 = t21 ^ t22; t26 = t21 & t23; t27 = t24 ^ t26; t28 = t25 & t27; t29 = t28 ^ t22
t30 = t23 ^ t24; t31 = t22 ^ t26; t32 = t31 & t30; t33 = t32 ^ t24; t34 = t23 ^ t33
t35 = t27 ^ t33; t36 = t24 & t35; t37 = t36 ^ t34; t38 = t27 ^ t36; t39 = t29 & t38
t40 = t25 ^ t39; t41 = t40 ^ t37; t42 = t29 ^ t33; t43 = t29 ^ t40; t44 = t33 ^ t37
t45 = t42 ^ t41
z0 = t44 & y15; z1 = t37 & y6; z2 = t33 & U7; z3 = t43 & y16; z4 = t40 & y1
z5 = t29 & y7; z6 = t42 & y11; z7 = t45 & y17; z8 = t41 & y10; z9 = t44 & y12
z10 = t37 & y3; z11 = t33 & y4; z12 = t43 & y13; z13 = t40 & y5; z14 = t29 & y2
z15 = t42 & y9; z16 = t45 & y14; z17 = t41 & y8
t46 = z15 ^ z16; t47 = z10 ^ z11; t48 = z5 ^ z13; t49 = z9 ^ z10; t50 = z2 ^ z12
t51 = z2 ^ z5; t52 = z7 ^ z8; t53 = z0 ^ z3; t54 = z6 ^ z7; t55 = z16 ^ z17
t56 = z12 ^ t48; t57 = t50 ^ t53; t58 = z4 ^ t46; t59 = z3 ^ t54; t60 = t46 ^ t57
t61 = z14 ^ t57; t62 = t52 ^ t58; t63 = t49 ^ t58; t64 = z4 ^ t59; t65 = t61 ^ t62
t66 = z1 ^ t63; S0 = t59 ^ t63; S6 = t56 # t62; S7 = t48 # t60; t67 = t64 ^ t65
S3 = t53 ^ t66; S4 = t51 ^ t66; S5 = t47 ^ t65; S1 = t64 # S3; S2 = t55 # t67
";

/// Boyar & Peralta, "A depth-16 circuit for the AES S-box" (SEC 2012 /
/// eprint 2011/332): top linear layer, GF(2^4)-based inversion, bottom
/// linear layer. U0 and S0 are the most significant bits.
const AES_BP: &str = "
T1 = U0 ^ U3; T2 = U0 ^ U5; T3 = U0 ^ U6; T4 = U3 ^ U5; T5 = U4 ^ U6; T6 = T1 ^ T5
T7 = U1 ^ U2; T8 = U7 ^ T6; T9 = U7 ^ T7; T10 = T6 ^ T7; T11 = U1 ^ U5; T12 = U2 ^ U5
T13 = T3 ^ T4; T14 = T6 ^ T11; T15 = T5 ^ T11; T16 = T5 ^ T12; T17 = T9 ^ T16
T18 = U3 ^ U7; T19 = T7 ^ T18; T20 = T1 ^ T19; T21 = U6 ^ U7; T22 = T7 ^ T21
T23 = T2 ^ T22; T24 = T2 ^ T10; T25 = T20 ^ T17; T26 = T3 ^ T16; T27 = T1 ^ T12
M1 = T13 & T6; M2 = T23 & T8; M3 = T14 ^ M1; M4 = T19 & U7; M5 = M4 ^ M1
M6 = T3 & T16; M7 = T22 & T9; M8 = T26 ^ M6; M9 = T20 & T17; M10 = M9 ^ M6
M11 = T1 & T15; M12 = T4 & T27; M13 = M12 ^ M11; M14 = T2 & T10; M15 = M14 ^ M11
M16 = M3 ^ M2; M17 = M5 ^ T24; M18 = M8 ^ M7; M19 = M10 ^ M15; M20 = M16 ^ M13
M21 = M17 ^ M15; M22 = M18 ^ M13; M23 = M19 ^ T25; M24 = M22 ^ M23; M25 = M22 & M20
M26 = M21 ^ M25; M27 = M20 ^ M21; M28 = M23 ^ M25; M29 = M28 & M27; M30 = M26 & M24
M31 = M20 & M23; M32 = M27 & M31; M33 = M27 ^ M25; M34 = M21 & M22; M35 = M24 & M34
M36 = M24 ^ M25; M37 = M21 ^ M29; M38 = M32 ^ M33; M39 = M23 ^ M30; M40 = M35 ^ M36
M41 = M38 ^ M40; M42 = M37 ^ M39; M43 = M37 ^ M38; M44 = M39 ^ M40; M45 = M42 ^ M41
M46 = M44 & T6; M47 = M40 & T8; M48 = M39 & U7; M49 = M43 & T16; M50 = M38 & T9
M51 = M37 & T17; M52 = M42 & T15; M53 = M45 & T27; M54 = M41 & T10; M55 = M44 & T13
M56 = M40 & T23; M57 = M39 & T19; M58 = M43 & T3; M59 = M38 & T22; M60 = M37 & T20
M61 = M42 & T1; M62 = M45 & T4; M63 = M41 & T2
L0 = M61 ^ M62; L1 = M50 ^ M56; L2 = M46 ^ M48; L3 = M47 ^ M55; L4 = M54 ^ M58
L5 = M49 ^ M61; L6 = M62 ^ L5; L7 = M46 ^ L3; L8 = M51 ^ M59; L9 = M52 ^ M53
L10 = M53 ^ L4; L11 = M60 ^ L2; L12 = M48 ^ M51; L13 = M50 ^ L0; L14 = M52 ^ M61
L15 = M55 ^ L1; L16 = M56 ^ L0; L17 = M57 ^ L1; L18 = M58 ^ L8; L19 = M63 ^ L4
L20 = L0 ^ L1; L21 = L1 ^ L7; L22 = L3 ^ L12; L23 = L18 ^ L2; L24 = L15 ^ L9
L25 = L6 ^ L10; L26 = L7 ^ L9; L27 = L8 ^ L10; L28 = L11 ^ L14; L29 = L11 ^ L17
S0 = L6 ^ L24; S1 = L16 # L26; S2 = L19 # L28; S3 = L6 ^ L21
S4 = L20 ^ L22; S5 = L25 ^ L29; S6 = L13 # L27; S7 = L6 # L23
";

/// SKINNY-128 S8 straight from its definition (NOR/XOR layers; bit
/// permutations are free renamings). Names are bit numbers (x7 = MSB).
/// SKINNY-128 S8 straight from its definition: four layers of two
/// `x ^= ~(a|b)` (XNOR with an OR); the bit permutations are free renamings.
/// Names: input bits x7 (MSB) .. x0; outputs c0 b4 b0 e4 d4 c4 d0 e0 (MSB first).
const SKINNY8_DEF: &str = "
p = x7 | x6; b4 = x4 # p; q = x3 | x2; b0 = x0 # q
r = x2 | x1; c4 = x6 # r; s = b4 | b0; c0 = x5 # s
u = b0 | x3; d4 = x1 # u; v = c4 | c0; d0 = x7 # v
w = c0 | b4; e4 = x3 # w; z = d4 | d0; e0 = x2 # z
";

/// Ascon S-box, the bitsliced description of the Ascon specification
/// (x0 = MSB): input and output XOR layers around the chi map.
const ASCON_SPEC: &str = "
a0 = x0 ^ x4; a4 = x4 ^ x3; a2 = x2 ^ x1
t0 = ~a0 & x1; t1 = ~x1 & a2; t2 = ~a2 & x3; t3 = ~x3 & a4; t4 = ~a4 & a0
b0 = a0 ^ t1; b1 = x1 ^ t2; b2 = a2 ^ t3; b3 = x3 ^ t4; b4 = a4 ^ t0
y1 = b1 ^ b0; y0 = b0 ^ b4; y3 = b3 ^ b2; y2 = ~b2; y4 = b4
";

/// RECTANGLE specification, §"bit-slice implementation" (12 operations);
/// a3 is the MSB of the nibble, b3 of the result.
const RECTANGLE_SPEC: &str = "
T1 = ~a1; T2 = a0 & T1; T3 = a2 ^ a3; b0 = T2 ^ T3; T5 = a3 | T1; T6 = a0 ^ T5
b1 = a2 ^ T6; T8 = a1 ^ a2; T9 = T3 & T6; b3 = T8 ^ T9; T11 = b0 | T8; b2 = T6 ^ T11
";

/// Clyde-128 S-box, bitsliced definition of the Spook specification
/// (x3 = MSB of the nibble, y3 = MSB of the result).
const CLYDE_SPEC: &str = "
t = x0 & x1; y1 = t ^ x2; u = x3 & x0; y0 = u ^ x1; v = y1 & x3; y3 = v ^ x0; w = y0 & y1; y2 = w ^ x3
";

include!("db_search.rs");

pub fn entries() -> &'static [Entry] {
    static E: OnceLock<Vec<Entry>> = OnceLock::new();
    E.get_or_init(build_entries)
}

fn build_entries() -> Vec<Entry> {
    let mut v = vec![
        Entry {
            name: "AES",
            n_in: 8,
            n_out: 8,
            table: aes_table(),
            inputs: &["U0", "U1", "U2", "U3", "U4", "U5", "U6", "U7"],
            program: AES_BP,
            outputs: &["S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"],
            provenance: "Boyar-Peralta depth-16 circuit (published in the paper)",
        },
        Entry {
            name: "AES (115 gates)",
            n_in: 8,
            n_out: 8,
            table: aes_table(),
            inputs: &["U0", "U1", "U2", "U3", "U4", "U5", "U6", "U7"],
            program: AES_BP115,
            outputs: &["S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"],
            provenance: "Boyar-Peralta 115-gate circuit (published in the paper)",
        },
        Entry {
            name: "SKINNY-128 S8",
            n_in: 8,
            n_out: 8,
            table: skinny8_table(),
            inputs: &["x7", "x6", "x5", "x4", "x3", "x2", "x1", "x0"],
            program: SKINNY8_DEF,
            outputs: &["c0", "b4", "b0", "e4", "d4", "c4", "d0", "e0"],
            provenance: "the S-box definition of the SKINNY specification",
        },
        Entry {
            name: "Ascon",
            n_in: 5,
            n_out: 5,
            table: t(&ASCON),
            inputs: &["x0", "x1", "x2", "x3", "x4"],
            program: ASCON_SPEC,
            outputs: &["y0", "y1", "y2", "y3", "y4"],
            provenance: "bitsliced S-box of the Ascon specification",
        },
        Entry {
            name: "RECTANGLE",
            n_in: 4,
            n_out: 4,
            table: t(&RECTANGLE),
            inputs: &["a3", "a2", "a1", "a0"],
            program: RECTANGLE_SPEC,
            outputs: &["b3", "b2", "b1", "b0"],
            provenance: "bit-slice S-box of the RECTANGLE specification",
        },
        Entry {
            name: "Clyde-128",
            n_in: 4,
            n_out: 4,
            table: t(&CLYDE),
            inputs: &["x3", "x2", "x1", "x0"],
            program: CLYDE_SPEC,
            outputs: &["y3", "y2", "y1", "y0"],
            provenance: "bitsliced S-box of the Spook specification",
        },
    ];
    v.extend(searched_entries());
    v
}
