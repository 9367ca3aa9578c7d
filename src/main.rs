//! The `racefuzz` binary; see `racefuzz --help`.

fn main() -> std::process::ExitCode {
    racefuzz::cli::main()
}
