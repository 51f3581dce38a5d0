//! Links the `offlux` binary as a position-dependent executable on Linux with glibc. As a
//! position-independent one it carries ~70 000 relocations that the dynamic loader applies, and
//! pages it copies, at every start: 0.6 ms of each process's ~1.5 ms start-up, and a render of the
//! largest corpus repository 1-2 ms slower. Shared libraries stay position-independent and
//! randomised; only the executable's own addresses are fixed. Tests and benches link as usual.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "linux" && target_env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
