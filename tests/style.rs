//! The sources are formatted as `cargo fmt` formats them (a commit once went in unformatted
//! and every test still passed). Skipped, with a `skipped:` line, where rustfmt is not
//! installed.

use std::process::Command;

#[test]
fn sources_are_formatted() {
    let root = env!("CARGO_MANIFEST_DIR");
    let have = Command::new("cargo")
        .args(["fmt", "--version"])
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        println!("skipped: rustfmt is not installed (`rustup component add rustfmt`)");
        return;
    }
    let out = Command::new("cargo")
        .args(["fmt", "--all", "--", "--check", "-l"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "files not formatted as `cargo fmt` would (run `cargo fmt --all`):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
