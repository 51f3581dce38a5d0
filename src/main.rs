fn main() -> std::process::ExitCode {
    offlux::cli::main()
}
