//! Being told to stop: SIGINT (Ctrl-C) and SIGTERM on Unix, each reported with its number so the
//! command can end with the shell's status for it (128 + the number: 130, 143). The signal handler
//! only writes the number to a pipe (async-signal-safe); a thread reads it and calls the caller's
//! function, which may lock and notify as it likes. Elsewhere: the console's Ctrl-C (through
//! `ctrlc`), reported as SIGINT.

/// Calls `on_signal` with the signal's number each time SIGINT or SIGTERM arrives, from a
/// thread of its own. Installs once per process: `false` when handlers were installed before
/// (the earlier function stays) or cannot be.
pub fn on_interrupt(on_signal: impl Fn(i32) + Send + 'static) -> bool {
    static INSTALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if INSTALLED.swap(true, std::sync::atomic::Ordering::AcqRel) {
        return false;
    }
    install(Box::new(on_signal))
}

#[cfg(unix)]
mod unix {
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The pipe's write end, for the handler; -1 until installed.
    pub(super) static WRITE_END: AtomicI32 = AtomicI32::new(-1);

    pub(super) extern "C" fn handler(signal: libc::c_int) {
        let fd = WRITE_END.load(Ordering::Relaxed);
        if fd >= 0 {
            let byte = signal as u8;
            // SAFETY: write(2) is async-signal-safe; the buffer is a live local byte. A full pipe
            // (signals faster than the thread reads) drops the byte: the run is stopping anyway.
            unsafe {
                libc::write(fd, std::ptr::from_ref(&byte).cast(), 1);
            }
        }
    }
}

/// Ends the process as `signal` ends it when nothing catches it (the shell sees 128 + its
/// number), for a process that caught it to clean up first. Where signals cannot be re-raised
/// (Windows) this returns and the caller goes on as for any other signal.
pub fn end_as_by_default(signal: i32) {
    #[cfg(unix)]
    // SAFETY: restoring the default disposition and raising the signal touch no memory of ours.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(signal, &action, std::ptr::null_mut()) == 0 {
            libc::raise(signal);
        }
    }
    #[cfg(not(unix))]
    let _ = signal;
}

#[cfg(unix)]
fn install(on_signal: Box<dyn Fn(i32) + Send>) -> bool {
    use std::sync::atomic::Ordering;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return false;
    }
    let [read_end, write_end] = fds;
    for fd in fds {
        // SAFETY: fcntl on descriptors this function just made.
        unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
    // SAFETY: setting O_NONBLOCK on the write end this function made: the handler never blocks.
    unsafe {
        let flags = libc::fcntl(write_end, libc::F_GETFL);
        libc::fcntl(write_end, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    unix::WRITE_END.store(write_end, Ordering::Relaxed);
    let spawned = std::thread::Builder::new()
        .name("offlux-signals".to_owned())
        .spawn(move || loop {
            let mut byte = 0u8;
            // SAFETY: reading one byte into a live local from the pipe's read end.
            let n = unsafe { libc::read(read_end, std::ptr::from_mut(&mut byte).cast(), 1) };
            match n {
                1 => on_signal(i32::from(byte)),
                0 => return,
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                _ => return,
            }
        });
    if spawned.is_err() {
        return false;
    }
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with a handler that only calls write(2); SA_RESTART so
        // system calls elsewhere are not cut short by the signal.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = unix::handler as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return false;
            }
        }
    }
    true
}

#[cfg(not(unix))]
fn install(on_signal: Box<dyn Fn(i32) + Send>) -> bool {
    // SIGINT's number: Ctrl-C is the one signal a console sends.
    ctrlc::set_handler(move || on_signal(2)).is_ok()
}
