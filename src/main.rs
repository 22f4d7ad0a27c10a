// The compiler allocates many small objects (atoms, names, instruction lists); mimalloc halves
// the front end's time on big bitsliced programs compared with the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(nakiri::cli::main());
}
