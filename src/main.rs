//! The `offlux` binary: the allocator, then `cli::main`, which parses the command line, runs the
//! verb and maps its result to the exit code.

fn main() -> std::process::ExitCode {
    // First: the setting applies only to pages touched after it.
    offlux::platform::memory::keep_off_huge_pages();
    offlux::cli::main()
}

#[global_allocator]
static GLOBAL: offlux::allocator::Mimalloc = offlux::allocator::Mimalloc;
