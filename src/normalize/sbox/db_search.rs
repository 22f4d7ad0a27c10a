// Circuits found by this module's own search (`search::search_circuit`,
// best of lookahead 1..=3, work budget 10^9 per output order), precomputed
// and pasted here. Regenerate the lines with
// `NAKIRI_SBOX_GEN=3,1000000000 cargo test --lib normalize::sbox::tests::generate_db -- --nocapture`
// (lines starting with GEN: name|n_in|n_out|gates|program|outputs).

const IN_NAMES: [&str; 6] = ["i0", "i1", "i2", "i3", "i4", "i5"];

fn searched_entries() -> Vec<Entry> {
    let mut v = Vec::new();
    let mut add = |name, n_in: usize, n_out, table, program, outputs| {
        v.push(Entry {
            name,
            n_in,
            n_out,
            table,
            inputs: &IN_NAMES[..n_in],
            program,
            outputs,
            provenance: "own heuristic search (search.rs)",
        });
    };
    // DES S1: 66 gates
    add(
        "DES S1",
        6,
        4,
        des_table(0),
        "
g0 = ~i1;
g1 = i5 ^ g0;
g2 = i4 ^ g1;
g3 = i4 & i5;
g4 = i3 & g3;
g5 = g2 ^ g4;
g6 = i3 & g2;
g7 = g0 ^ g6;
g8 = i2 & g7;
g9 = g5 ^ g8;
g10 = i4 | g1;
g11 = i3 & g10;
g12 = g2 ^ g11;
g13 = ~i4;
g14 = ~g12 & i5;
g15 = i1 & g14;
g16 = g13 ^ g15;
g17 = ~i2 & g16;
g18 = g12 ^ g17;
g19 = ~i0 & g9;
g20 = i0 & g18;
g21 = g19 | g20;
g22 = i2 & g9;
g23 = g2 ^ g22;
g24 = g2 | g13;
g25 = i0 & g24;
g26 = g23 ^ g25;
g27 = ~g2 & g17;
g28 = i1 & g27;
g29 = g26 | g28;
g30 = i5 | g26;
g31 = i0 & g30;
g32 = g9 ^ g31;
g33 = ~g8 & i5;
g34 = g32 | g33;
g35 = i3 & g34;
g36 = g29 ^ g35;
g37 = g24 ^ g31;
g38 = g14 ^ g16;
g39 = ~i5 & g10;
g40 = i0 & g39;
g41 = g38 ^ g40;
g42 = i2 & g41;
g43 = g37 ^ g42;
g44 = i2 ^ g18;
g45 = i1 & g2;
g46 = g44 ^ g45;
g47 = i4 ^ g22;
g48 = i1 & g3;
g49 = g47 ^ g48;
g50 = ~i0 & g49;
g51 = g46 ^ g50;
g52 = ~i3 & g51;
g53 = g43 ^ g52;
g54 = ~g14 & i0;
g55 = g44 ^ g54;
g56 = i3 ^ g20;
g57 = i4 | g56;
g58 = g55 & g57;
g59 = g13 | g52;
g60 = ~g22 & i0;
g61 = g18 ^ g60;
g62 = ~g61 & i5;
g63 = ~g62 & g59;
g64 = i1 & g63;
g65 = g58 ^ g64;
",
        &["g21", "g53", "g36", "g65"],
    );
    // DES S2: 59 gates
    add(
        "DES S2",
        6,
        4,
        des_table(1),
        "
g0 = i2 ^ i5;
g1 = i1 & i3;
g2 = g0 ^ g1;
g3 = i2 | i5;
g4 = i1 & g3;
g5 = ~g4;
g6 = ~i0 & g5;
g7 = g2 ^ g6;
g8 = ~i3;
g9 = g1 ^ g8;
g10 = i1 ^ g0;
g11 = i0 & g10;
g12 = g9 ^ g11;
g13 = ~i5 & i0;
g14 = g12 | g13;
g15 = i4 & g14;
g16 = g7 ^ g15;
g17 = g4 ^ g9;
g18 = i0 ^ g17;
g19 = g0 ^ g9;
g20 = i0 & g18;
g21 = g19 ^ g20;
g22 = i5 & g21;
g23 = g18 ^ g22;
g24 = i2 & g10;
g25 = g22 ^ g24;
g26 = ~i1 & g3;
g27 = i0 & g26;
g28 = g25 ^ g27;
g29 = ~g7 & i1;
g30 = g28 | g29;
g31 = ~i4 & g30;
g32 = g23 ^ g31;
g33 = i1 ^ g18;
g34 = g10 ^ g29;
g35 = i5 & g34;
g36 = g33 ^ g35;
g37 = ~g30 & i1;
g38 = i0 & g37;
g39 = ~g38;
g40 = ~i2 & i5;
g41 = i3 & g40;
g42 = g39 ^ g41;
g43 = i4 & g42;
g44 = g36 ^ g43;
g45 = i4 ^ g24;
g46 = ~g43 & g14;
g47 = i0 & g46;
g48 = g45 ^ g47;
g49 = i5 | g46;
g50 = i0 & g49;
g51 = g32 ^ g50;
g52 = ~i3 & g51;
g53 = g48 ^ g52;
g54 = g13 | g15;
g55 = ~i3 & g54;
g56 = g5 | g55;
g57 = i1 & g56;
g58 = g53 ^ g57;
",
        &["g16", "g44", "g58", "g32"],
    );
    // DES S3: 60 gates
    add(
        "DES S3",
        6,
        4,
        des_table(2),
        "
g0 = i2 ^ i5;
g1 = i1 ^ g0;
g2 = i3 | i5;
g3 = i0 & g2;
g4 = g1 ^ g3;
g5 = i2 ^ i3;
g6 = ~g5;
g7 = i1 & g1;
g8 = g6 ^ g7;
g9 = i0 & g8;
g10 = g5 ^ g9;
g11 = ~i4 & g10;
g12 = g4 ^ g11;
g13 = ~i3 & g9;
g14 = i2 & g13;
g15 = g12 | g14;
g16 = i4 ^ g1;
g17 = i3 ^ g16;
g18 = i5 | g11;
g19 = i2 & g18;
g20 = ~g19;
g21 = ~i1 & g20;
g22 = g17 ^ g21;
g23 = i1 ^ g18;
g24 = ~i3 & g12;
g25 = i2 & g24;
g26 = g23 ^ g25;
g27 = i1 & i3;
g28 = g26 | g27;
g29 = ~i0 & g28;
g30 = g22 ^ g29;
g31 = g17 ^ g27;
g32 = i0 ^ g31;
g33 = i3 & g16;
g34 = ~i5 & g33;
g35 = g32 ^ g34;
g36 = g2 ^ g16;
g37 = i4 | i5;
g38 = i3 ^ g37;
g39 = i1 & g38;
g40 = g36 ^ g39;
g41 = ~g38 & i0;
g42 = ~g41 & g40;
g43 = ~i2 & g42;
g44 = g35 ^ g43;
g45 = ~g17;
g46 = i0 & g39;
g47 = g45 ^ g46;
g48 = g5 ^ g42;
g49 = ~i4 & g48;
g50 = g47 ^ g49;
g51 = ~g21;
g52 = i4 | g32;
g53 = i0 & g52;
g54 = g51 ^ g53;
g55 = g32 ^ g44;
g56 = ~g55 & i4;
g57 = ~g56 & g54;
g58 = ~i5 & g57;
g59 = g50 ^ g58;
",
        &["g30", "g44", "g59", "g15"],
    );
    // DES S4: 50 gates
    add(
        "DES S4",
        6,
        4,
        des_table(3),
        "
g0 = ~i4;
g1 = i2 ^ g0;
g2 = i1 & i2;
g3 = g1 ^ g2;
g4 = i4 | g1;
g5 = i0 & g4;
g6 = g3 ^ g5;
g7 = i1 | g0;
g8 = i1 & g1;
g9 = i0 & g8;
g10 = g7 ^ g9;
g11 = ~i3 & g10;
g12 = g6 ^ g11;
g13 = i3 & i4;
g14 = i2 ^ g13;
g15 = g0 ^ g12;
g16 = i1 & g15;
g17 = g14 ^ g16;
g18 = ~g13 & g15;
g19 = i3 & g4;
g20 = i1 & g19;
g21 = g18 ^ g20;
g22 = ~i0 & g21;
g23 = g17 ^ g22;
g24 = ~i5 & g23;
g25 = g12 ^ g24;
g26 = i1 & g17;
g27 = g4 ^ g26;
g28 = i2 | g7;
g29 = i0 & g28;
g30 = g27 ^ g29;
g31 = i4 ^ g8;
g32 = i3 & g31;
g33 = g30 ^ g32;
g34 = i3 ^ g25;
g35 = ~g12 & g33;
g36 = i0 & g35;
g37 = g34 ^ g36;
g38 = ~g33 & g12;
g39 = i4 & g38;
g40 = g37 ^ g39;
g41 = ~i5 & g40;
g42 = g33 ^ g41;
g43 = ~g12;
g44 = ~g23;
g45 = ~g23 & i5;
g46 = g43 ^ g45;
g47 = g40 ^ g44;
g48 = i5 & g47;
g49 = g33 ^ g48;
",
        &["g42", "g49", "g25", "g46"],
    );
    // DES S5: 68 gates
    add(
        "DES S5",
        6,
        4,
        des_table(4),
        "
g0 = ~i5;
g1 = i3 ^ g0;
g2 = i2 ^ g1;
g3 = ~i3 & i5;
g4 = i2 & g3;
g5 = i3 ^ g4;
g6 = i1 & g5;
g7 = g2 ^ g6;
g8 = ~g4;
g9 = ~i4 & g8;
g10 = g7 ^ g9;
g11 = i2 | g9;
g12 = i4 & g2;
g13 = ~g7;
g14 = ~g7 & i1;
g15 = g12 ^ g14;
g16 = ~i3 & g15;
g17 = g11 ^ g16;
g18 = i0 & g17;
g19 = g10 ^ g18;
g20 = g8 ^ g17;
g21 = i0 & g19;
g22 = g20 ^ g21;
g23 = i3 ^ g17;
g24 = i1 ^ g23;
g25 = g13 ^ g15;
g26 = i0 & g25;
g27 = g24 ^ g26;
g28 = ~i5 & g27;
g29 = g22 ^ g28;
g30 = g0 ^ g10;
g31 = i3 ^ g19;
g32 = i0 & g31;
g33 = g30 ^ g32;
g34 = i0 ^ g31;
g35 = i2 & g34;
g36 = g33 | g35;
g37 = ~i4 & g36;
g38 = g29 ^ g37;
g39 = ~g23 & g25;
g40 = i2 ^ g36;
g41 = i1 & g40;
g42 = g39 ^ g41;
g43 = g25 ^ g38;
g44 = ~i5 & g43;
g45 = g42 ^ g44;
g46 = g25 ^ g35;
g47 = ~g43 & g34;
g48 = ~i1 & g46;
g49 = i1 & g47;
g50 = g48 | g49;
g51 = i0 & g50;
g52 = g45 ^ g51;
g53 = ~g10 & g38;
g54 = i2 & g53;
g55 = g6 ^ g54;
g56 = g1 ^ g38;
g57 = i2 & i4;
g58 = g56 ^ g57;
g59 = ~i1 & g58;
g60 = g55 | g59;
g61 = ~i3 & g22;
g62 = g35 ^ g61;
g63 = g9 | g20;
g64 = i1 & g63;
g65 = g62 | g64;
g66 = i0 & g65;
g67 = g60 ^ g66;
",
        &["g38", "g19", "g67", "g52"],
    );
    // DES S6: 62 gates
    add(
        "DES S6",
        6,
        4,
        des_table(5),
        "
g0 = i1 ^ i5;
g1 = ~i2;
g2 = ~i2 & i0;
g3 = g0 ^ g2;
g4 = i1 & g0;
g5 = g1 ^ g4;
g6 = i2 & i5;
g7 = i1 & g6;
g8 = g3 ^ g7;
g9 = i0 & g8;
g10 = g5 ^ g9;
g11 = i3 & g10;
g12 = g3 ^ g11;
g13 = g1 | g9;
g14 = i1 & i5;
g15 = i2 ^ g14;
g16 = i0 & g3;
g17 = g15 ^ g16;
g18 = i3 & g17;
g19 = g13 ^ g18;
g20 = ~i4 & g19;
g21 = g12 ^ g20;
g22 = i3 ^ g0;
g23 = i0 ^ g22;
g24 = i1 ^ g9;
g25 = ~i2 & g24;
g26 = g23 ^ g25;
g27 = i3 & i5;
g28 = i2 ^ g27;
g29 = i3 ^ g19;
g30 = i0 & g29;
g31 = g28 ^ g30;
g32 = g13 ^ g22;
g33 = i1 & g32;
g34 = g31 ^ g33;
g35 = i4 & g34;
g36 = g26 ^ g35;
g37 = i0 | g28;
g38 = i2 & g37;
g39 = i1 & g38;
g40 = g23 ^ g39;
g41 = g7 | g11;
g42 = i0 & g41;
g43 = i2 ^ g42;
g44 = g3 ^ g32;
g45 = ~i5 & g44;
g46 = g43 | g45;
g47 = ~i4 & g46;
g48 = g40 ^ g47;
g49 = ~i1 & i2;
g50 = i4 ^ g49;
g51 = ~g10;
g52 = i2 & i4;
g53 = g51 ^ g52;
g54 = i0 & g53;
g55 = g50 ^ g54;
g56 = ~g48;
g57 = g20 ^ g48;
g58 = i5 & g57;
g59 = g56 ^ g58;
g60 = i3 & g59;
g61 = g55 ^ g60;
",
        &["g48", "g21", "g36", "g61"],
    );
    // DES S7: 59 gates
    add(
        "DES S7",
        6,
        4,
        des_table(6),
        "
g0 = i2 ^ i5;
g1 = i4 ^ g0;
g2 = i3 & i4;
g3 = i2 & g2;
g4 = g1 | g3;
g5 = i2 & g0;
g6 = i3 | g5;
g7 = i1 & g6;
g8 = g4 ^ g7;
g9 = i3 ^ g5;
g10 = i1 ^ g9;
g11 = i3 | i5;
g12 = i2 ^ i3;
g13 = ~i1 & g12;
g14 = g11 ^ g13;
g15 = i4 & g14;
g16 = g10 ^ g15;
g17 = ~i0 & g8;
g18 = i0 & g16;
g19 = g17 | g18;
g20 = i3 ^ g1;
g21 = i0 ^ g20;
g22 = g2 ^ g10;
g23 = ~i2 & g22;
g24 = g21 ^ g23;
g25 = ~g22 & i1;
g26 = ~g20 & g22;
g27 = i0 & g26;
g28 = g25 ^ g27;
g29 = i5 & g28;
g30 = g24 ^ g29;
g31 = ~i0 & g10;
g32 = ~g19 & i3;
g33 = i2 & g32;
g34 = g31 ^ g33;
g35 = g14 ^ g19;
g36 = ~g22 & i3;
g37 = ~g36 & g35;
g38 = ~i5 & g37;
g39 = g34 ^ g38;
g40 = ~g1 & g14;
g41 = ~i3 & g35;
g42 = g40 ^ g41;
g43 = i0 & g42;
g44 = g39 | g43;
g45 = g0 | g12;
g46 = i1 & g45;
g47 = g4 ^ g46;
g48 = ~i5;
g49 = i3 ^ g48;
g50 = ~g2 & i2;
g51 = g49 ^ g50;
g52 = ~g29;
g53 = i2 & g10;
g54 = g52 ^ g53;
g55 = i1 & g54;
g56 = g51 ^ g55;
g57 = ~i0 & g56;
g58 = g47 ^ g57;
",
        &["g19", "g58", "g44", "g30"],
    );
    // DES S8: 53 gates
    add(
        "DES S8",
        6,
        4,
        des_table(7),
        "
g0 = ~i4 & i2;
g1 = i3 ^ g0;
g2 = i1 ^ g1;
g3 = i2 ^ i4;
g4 = i3 | i4;
g5 = i2 ^ g4;
g6 = i1 & g5;
g7 = g3 ^ g6;
g8 = ~i0 & g7;
g9 = g2 ^ g8;
g10 = g1 ^ g3;
g11 = i0 & g10;
g12 = ~g11;
g13 = ~i1 & i2;
g14 = g12 | g13;
g15 = ~i5 & g14;
g16 = g9 ^ g15;
g17 = ~g7;
g18 = i1 | i3;
g19 = i2 & g18;
g20 = g17 ^ g19;
g21 = g4 ^ g14;
g22 = i0 & g21;
g23 = g20 ^ g22;
g24 = i3 ^ g17;
g25 = i1 & g24;
g26 = g5 ^ g25;
g27 = i4 | g7;
g28 = i0 & g27;
g29 = g26 ^ g28;
g30 = ~i5 & g23;
g31 = i5 & g29;
g32 = g30 | g31;
g33 = ~g2;
g34 = ~g7 & i0;
g35 = g33 ^ g34;
g36 = ~g28 & g21;
g37 = g35 ^ g36;
g38 = ~g10 & g9;
g39 = g10 | g13;
g40 = i0 & g39;
g41 = g38 ^ g40;
g42 = i5 & g41;
g43 = g37 ^ g42;
g44 = ~g29;
g45 = i3 | g0;
g46 = i0 & g36;
g47 = g45 ^ g46;
g48 = ~g22 & g3;
g49 = ~i1 & g48;
g50 = g47 ^ g49;
g51 = i5 & g50;
g52 = g44 ^ g51;
",
        &["g32", "g16", "g43", "g52"],
    );
    // Serpent S0: 17 gates
    add(
        "Serpent S0",
        4,
        4,
        t(&SERPENT[0]),
        "
g0 = i0 ^ i3;
g1 = i2 ^ g0;
g2 = i2 & g0;
g3 = i3 ^ g2;
g4 = ~i1 & g3;
g5 = g1 ^ g4;
g6 = i1 ^ g1;
g7 = i0 & i3;
g8 = g6 ^ g7;
g9 = ~g4;
g10 = ~g7 & g9;
g11 = i1 ^ i3;
g12 = i2 & g11;
g13 = g10 ^ g12;
g14 = i0 ^ i1;
g15 = ~i2 & g14;
g16 = g10 ^ g15;
",
        &["g8", "g5", "g13", "g16"],
    );
    // Serpent S1: 18 gates
    add(
        "Serpent S1",
        4,
        4,
        t(&SERPENT[1]),
        "
g0 = ~i3 & i2;
g1 = ~g0;
g2 = i1 ^ g1;
g3 = i0 ^ g2;
g4 = i2 ^ g3;
g5 = i0 & i2;
g6 = g4 | g5;
g7 = i0 | g2;
g8 = i3 & g7;
g9 = g6 ^ g8;
g10 = g4 ^ g9;
g11 = ~i3;
g12 = i2 ^ g11;
g13 = ~i0 & g12;
g14 = g10 ^ g13;
g15 = g2 | g13;
g16 = i3 & g4;
g17 = g15 ^ g16;
",
        &["g14", "g3", "g9", "g17"],
    );
    // Serpent S2: 17 gates
    add(
        "Serpent S2",
        4,
        4,
        t(&SERPENT[2]),
        "
g0 = ~i3 & i1;
g1 = i2 ^ g0;
g2 = i0 ^ g1;
g3 = ~i1 & i2;
g4 = i3 ^ g3;
g5 = i3 | g2;
g6 = i0 & g5;
g7 = g4 ^ g6;
g8 = ~g4;
g9 = i1 & g5;
g10 = g8 ^ g9;
g11 = i0 & g1;
g12 = g10 ^ g11;
g13 = g3 ^ g10;
g14 = g7 | g8;
g15 = ~i2 & g14;
g16 = g13 ^ g15;
",
        &["g12", "g7", "g16", "g2"],
    );
    // Serpent S3: 18 gates
    add(
        "Serpent S3",
        4,
        4,
        t(&SERPENT[3]),
        "
g0 = ~i1 & i3;
g1 = i2 ^ g0;
g2 = i3 & g1;
g3 = i1 ^ g2;
g4 = i0 & g3;
g5 = g1 ^ g4;
g6 = g0 | g3;
g7 = i0 ^ g6;
g8 = ~i3 & g5;
g9 = g7 ^ g8;
g10 = i0 & g7;
g11 = i3 ^ g10;
g12 = i0 ^ g9;
g13 = i2 & g12;
g14 = g11 ^ g13;
g15 = g1 ^ g11;
g16 = ~i0 & g9;
g17 = g15 ^ g16;
",
        &["g9", "g17", "g5", "g14"],
    );
    // Serpent S4: 18 gates
    add(
        "Serpent S4",
        4,
        4,
        t(&SERPENT[4]),
        "
g0 = i0 | i3;
g1 = i2 & g0;
g2 = i3 ^ g1;
g3 = ~i0;
g4 = i3 ^ g3;
g5 = i2 & g4;
g6 = g3 ^ g5;
g7 = i1 & g6;
g8 = g2 ^ g7;
g9 = i1 ^ g6;
g10 = i0 & i3;
g11 = g9 ^ g10;
g12 = ~i2 & g11;
g13 = g4 ^ g12;
g14 = i2 ^ g10;
g15 = i0 | g13;
g16 = ~i1 & g15;
g17 = g14 ^ g16;
",
        &["g13", "g8", "g17", "g11"],
    );
    // Serpent S5: 17 gates
    add(
        "Serpent S5",
        4,
        4,
        t(&SERPENT[5]),
        "
g0 = i2 ^ i3;
g1 = i2 & g0;
g2 = ~g1;
g3 = i1 ^ g2;
g4 = ~i0 & g3;
g5 = g0 ^ g4;
g6 = i0 ^ g3;
g7 = ~g5;
g8 = i1 | g7;
g9 = i3 & g8;
g10 = g6 ^ g9;
g11 = i0 & g8;
g12 = g7 ^ g11;
g13 = ~i3 & g6;
g14 = g12 ^ g13;
g15 = ~g5 & i0;
g16 = g3 ^ g15;
",
        &["g10", "g14", "g5", "g16"],
    );
    // Serpent S6: 18 gates
    add(
        "Serpent S6",
        4,
        4,
        t(&SERPENT[6]),
        "
g0 = ~i2;
g1 = i1 ^ g0;
g2 = i0 & i3;
g3 = g1 ^ g2;
g4 = i0 ^ g1;
g5 = ~i1 & i3;
g6 = g4 | g5;
g7 = i3 ^ g0;
g8 = i0 | g7;
g9 = g6 & g8;
g10 = g2 ^ g8;
g11 = i2 | g9;
g12 = ~i1 & g11;
g13 = g10 ^ g12;
g14 = g7 & g13;
g15 = i1 | g11;
g16 = ~i0 & g15;
g17 = g14 ^ g16;
",
        &["g13", "g17", "g3", "g9"],
    );
    // Serpent S7: 20 gates
    add(
        "Serpent S7",
        4,
        4,
        t(&SERPENT[7]),
        "
g0 = i1 ^ i2;
g1 = ~i2 & i3;
g2 = ~g1 & g0;
g3 = ~i0 & i3;
g4 = g2 ^ g3;
g5 = i0 ^ g0;
g6 = ~g3 & g5;
g7 = i2 ^ i3;
g8 = ~i1 & g7;
g9 = g6 | g8;
g10 = i1 & i2;
g11 = g6 ^ g10;
g12 = i0 & i3;
g13 = g11 ^ g12;
g14 = i2 & i3;
g15 = ~g14;
g16 = i1 ^ g15;
g17 = i1 | g7;
g18 = i0 & g17;
g19 = g16 ^ g18;
",
        &["g4", "g9", "g13", "g19"],
    );
    // PRESENT: 18 gates
    add(
        "PRESENT",
        4,
        4,
        t(&PRESENT),
        "
g0 = ~i1 & i2;
g1 = i0 ^ g0;
g2 = i1 & i2;
g3 = i1 ^ i2;
g4 = i0 & g3;
g5 = g2 ^ g4;
g6 = ~i3 & g5;
g7 = g1 ^ g6;
g8 = ~g1;
g9 = ~g5 & i3;
g10 = g8 ^ g9;
g11 = ~g3;
g12 = i0 & i1;
g13 = g11 ^ g12;
g14 = ~i3 & g7;
g15 = g13 ^ g14;
g16 = g1 ^ g3;
g17 = i3 ^ g16;
",
        &["g10", "g15", "g7", "g17"],
    );
    // Spongent: 15 gates
    add(
        "Spongent",
        4,
        4,
        t(&SPONGENT),
        "
g0 = i0 ^ i3;
g1 = ~i1 & i2;
g2 = g0 ^ g1;
g3 = ~i2;
g4 = i1 ^ g3;
g5 = i1 ^ g2;
g6 = ~i0 & g5;
g7 = g4 ^ g6;
g8 = i1 | g0;
g9 = i0 & g8;
g10 = g4 ^ g9;
g11 = i2 & g6;
g12 = g10 ^ g11;
g13 = ~i0 & g7;
g14 = g5 ^ g13;
",
        &["g12", "g14", "g7", "g2"],
    );
    // GIFT: 13 gates
    add(
        "GIFT",
        4,
        4,
        t(&GIFT),
        "
g0 = i1 & i3;
g1 = i2 ^ g0;
g2 = i0 & g1;
g3 = i3 ^ g2;
g4 = i2 | i3;
g5 = i1 ^ g4;
g6 = ~i0;
g7 = g5 ^ g6;
g8 = g1 ^ g5;
g9 = i0 ^ g8;
g10 = ~g2 & g5;
g11 = i3 & g9;
g12 = g10 ^ g11;
",
        &["g3", "g12", "g9", "g7"],
    );
    // SKINNY-64 S4: 10 gates
    add(
        "SKINNY-64 S4",
        4,
        4,
        t(&SKINNY4),
        "
g0 = ~i1;
g1 = ~i0 & g0;
g2 = i3 ^ g1;
g3 = ~i2 & g0;
g4 = i0 ^ g3;
g5 = ~g2;
g6 = ~i2 & g5;
g7 = i1 ^ g6;
g8 = ~g4 & g5;
g9 = i2 ^ g8;
",
        &["g2", "g4", "g7", "g9"],
    );
    // Pyjamask S3: 7 gates
    add(
        "Pyjamask S3",
        3,
        3,
        t(&PYJAMASK3),
        "
g0 = i0 & i2;
g1 = i1 ^ g0;
g2 = i0 | i1;
g3 = i2 ^ g2;
g4 = i1 & g3;
g5 = ~g4;
g6 = i0 ^ g5;
",
        &["g1", "g3", "g6"],
    );
    // Pyjamask S4: 13 gates
    add(
        "Pyjamask S4",
        4,
        4,
        t(&PYJAMASK4),
        "
g0 = i1 & i2;
g1 = i3 ^ g0;
g2 = i0 ^ g1;
g3 = ~i0;
g4 = ~i1 & g2;
g5 = g3 ^ g4;
g6 = i1 ^ g2;
g7 = ~g5 & i2;
g8 = g6 ^ g7;
g9 = g2 | g3;
g10 = i1 ^ g9;
g11 = ~i2 & g5;
g12 = g10 ^ g11;
",
        &["g2", "g8", "g5", "g12"],
    );
    v
}
