fn main() {
    std::process::exit(nakiri::cli::main());
}
