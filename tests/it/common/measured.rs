//! Running the `offlux` binary on a hostile fixture and measuring what it cost: exit code,
//! output, wall time, CPU time and peak memory of the child alone (reaped with `wait4`, not
//! `Child::wait`), with the bounds every hostile case must hold (issue 35: within 10 s of CPU
//! time and 1 GB; CPU time rather than wall time because the machines that run these tests are
//! shared, and a wall-clock bound three times as wide).

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

pub const TEN_SECONDS: Duration = Duration::from_secs(10);
pub const WALL_CLOCK: Duration = Duration::from_secs(30);
/// 1 GB, in the kilobytes `getrusage` reports.
pub const ONE_GB_KB: i64 = 1 << 20;

/// What a run of offlux did: its exit code, output, wall time and peak memory.
pub struct Measured {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// User and system CPU time of the child.
    pub cpu: Duration,
    /// Peak resident memory of the child, in kilobytes.
    pub max_rss_kb: i64,
}

impl Measured {
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// Within 10 s of CPU time and 1 GB.
    pub fn assert_cpu_and_memory(&self) {
        assert!(self.cpu < TEN_SECONDS, "took {:?} of CPU", self.cpu);
        assert!(
            self.max_rss_kb < ONE_GB_KB,
            "peak memory {} MB",
            self.max_rss_kb >> 10
        );
    }

    /// Within 10 s of CPU time, 30 s of wall time and 1 GB.
    pub fn assert_bounded(&self) {
        self.assert_cpu_and_memory();
        assert!(self.elapsed < WALL_CLOCK, "took {:?}", self.elapsed);
    }

    /// Ended by itself within the bounds, failing, with `message` in its output.
    pub fn assert_bounded_failure(&self, message: &str) {
        let all = self.all();
        assert_eq!(self.code, Some(1), "{all}");
        assert!(all.contains(message), "expected `{message}` in:\n{all}");
        self.assert_bounded();
    }

    /// The cost, for a test's output (`--nocapture`) and reports.
    pub fn cost(&self) -> String {
        format!(
            "{:.2} s CPU, {:.2} s wall, {} MB peak",
            self.cpu.as_secs_f64(),
            self.elapsed.as_secs_f64(),
            self.max_rss_kb >> 10
        )
    }
}

/// Runs offlux with `args`, killed after 60 s, and measures it.
pub fn offlux(args: &[&std::ffi::OsStr]) -> Measured {
    measure(args, None)
}

/// [`offlux`] with `TMPDIR` set to `tmp` (to see what the run leaves there).
pub fn offlux_in_tmp(args: &[&std::ffi::OsStr], tmp: &Path) -> Measured {
    measure(args, Some(tmp))
}

#[allow(clippy::zombie_processes)]
fn measure(args: &[&std::ffi::OsStr], tmp: Option<&Path>) -> Measured {
    // A cache of its own: a release the user's cache (or an earlier run of the suite with this
    // build) holds rendered would skip the very render whose budget is measured.
    let cache = tempfile::tempdir().expect("a cache directory");
    let started = Instant::now();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_offlux"));
    command
        .args(args)
        .env("XDG_CACHE_HOME", cache.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(tmp) = tmp {
        command.env("TMPDIR", tmp);
    }
    let mut child = command.spawn().expect("offlux starts");
    fn reader(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    }
    let stdout = reader(child.stdout.take().expect("stdout"));
    let stderr = reader(child.stderr.take().expect("stderr"));
    let pid = child.id();
    let killer = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
            // SAFETY: signal 0 only asks whether the process exists.
            if unsafe { libc::kill(pid as i32, 0) } != 0 {
                return;
            }
        }
        // SAFETY: the child is ours and not yet reaped (wait4 below reaps it).
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let peak = PeakSampler::start(pid);
    let (code, cpu, max_rss_kb) = wait_measured(pid);
    let max_rss_kb = peak.own_peak(max_rss_kb, cpu);
    let elapsed = started.elapsed();
    let _ = killer.join();
    Measured {
        code,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        elapsed,
        cpu,
        max_rss_kb,
    }
}

/// The child's own peak memory. Linux reports a child's peak (`ru_maxrss`) as at least its
/// parent's peak when it was started (exec keeps the old address space's high-water mark, and a
/// spawned child's old address space is the parent's), and this test process grows past 1 GB
/// while the corpus tests run in it. So the child's `VmHWM` (its own address space's high-water
/// mark, which only grows) is read every millisecond while it runs, and used when `ru_maxrss` is
/// not above this process's own peak (when it is, `ru_maxrss` is the child's own); a child gone
/// before the first look is bounded by what its CPU time could have touched. Elsewhere
/// `ru_maxrss` is used as it is.
struct PeakSampler {
    #[cfg(target_os = "linux")]
    sampled: std::sync::Arc<std::sync::atomic::AtomicI64>,
    #[cfg(target_os = "linux")]
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

#[cfg(target_os = "linux")]
fn high_water_kb(status: &str) -> Option<i64> {
    std::fs::read_to_string(status)
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

impl PeakSampler {
    #[cfg(target_os = "linux")]
    fn start(pid: u32) -> PeakSampler {
        use std::sync::atomic::Ordering;
        let sampled = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (into, stop) = (sampled.clone(), done.clone());
        std::thread::spawn(move || {
            let status = format!("/proc/{pid}/status");
            while !stop.load(Ordering::Relaxed) {
                match high_water_kb(&status) {
                    Some(kb) => {
                        into.fetch_max(kb, Ordering::Relaxed);
                    }
                    // Exited (a zombie has no memory left to report).
                    None => return,
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        PeakSampler { sampled, done }
    }

    #[cfg(not(target_os = "linux"))]
    fn start(_pid: u32) -> PeakSampler {
        PeakSampler {}
    }

    /// The child's own peak, given what `wait4` reported and the CPU time it used.
    #[cfg(target_os = "linux")]
    fn own_peak(self, reported_kb: i64, cpu: Duration) -> i64 {
        use std::sync::atomic::Ordering;
        self.done.store(true, Ordering::Relaxed);
        let ours = high_water_kb("/proc/self/status").unwrap_or(i64::MAX);
        let sampled = self.sampled.load(Ordering::Relaxed);
        if reported_kb > ours {
            return reported_kb;
        }
        if sampled > 0 {
            return sampled;
        }
        // Never read: a child gone before the sampler's first look (a busy machine can keep that
        // thread waiting longer than a short run lasts). Each page a process touches is zeroed by
        // the kernel on its CPU time, far below 16 GiB per second, so that bounds what it held.
        const TOUCHABLE_KB_PER_SECOND: f64 = 16.0 * 1024.0 * 1024.0;
        let touchable = (cpu.as_secs_f64() * TOUCHABLE_KB_PER_SECOND) as i64;
        reported_kb.min(touchable.max(1))
    }

    #[cfg(not(target_os = "linux"))]
    fn own_peak(self, reported_kb: i64, _cpu: Duration) -> i64 {
        reported_kb
    }
}

/// Reaps `pid` and returns its exit code, CPU time and peak resident memory (kilobytes, as Linux
/// reports it).
pub fn wait_measured(pid: u32) -> (Option<i32>, Duration, i64) {
    let mut status = 0;
    // SAFETY: zeroed `rusage` is a valid value; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child; the pointers are valid for the call.
    let reaped = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid as i32, "wait4");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    (
        code,
        time(usage.ru_utime) + time(usage.ru_stime),
        usage.ru_maxrss,
    )
}
