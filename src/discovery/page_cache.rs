//! Reading a file only when the kernel holds it in memory already. A run reads a thousand small
//! files; one whose pages were evicted costs a disk round trip, and waited for one at a time those
//! round trips held the parsing threads up. Files not in memory are asked for at once and read
//! after the rest, by when their data has mostly arrived.

use std::fs::File;

/// Reads the start of `file` into the spare capacity of `buffer` if its data is in the page cache,
/// and returns true; the caller reads the rest as usual. When nothing is cached, asks the kernel
/// to read ahead the file's first `read_ahead` bytes (no more than the caller will read: a huge
/// file in an untrusted repository is not pulled in whole) and returns false; the file's position
/// is unchanged. Where the system cannot tell, reads nothing and returns true.
#[cfg(target_os = "linux")]
pub fn read_start_if_cached(file: &File, buffer: &mut Vec<u8>, read_ahead: u64) -> bool {
    use std::os::fd::AsRawFd;
    let spare = buffer.spare_capacity_mut();
    if spare.is_empty() {
        return true;
    }
    let vector = libc::iovec {
        iov_base: spare.as_mut_ptr().cast(),
        iov_len: spare.len(),
    };
    // SAFETY: the single iovec describes `spare`, memory `buffer` owns and does not use yet; the
    // kernel writes at most `iov_len` bytes into it. Offset -1 reads at the file's position.
    let read = unsafe { libc::preadv2(file.as_raw_fd(), &vector, 1, -1, libc::RWF_NOWAIT) };
    match usize::try_from(read) {
        Ok(count) => {
            // SAFETY: the kernel initialised `count` bytes of the spare capacity.
            unsafe { buffer.set_len(buffer.len() + count) };
            true
        }
        Err(_) if std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN) => {
            // Zero would mean the whole file; at least one byte is always asked for.
            let length = libc::off_t::try_from(read_ahead.max(1)).unwrap_or(libc::off_t::MAX);
            // SAFETY: plain integer arguments; advice only, so its result does not matter.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, length, libc::POSIX_FADV_WILLNEED) };
            false
        }
        // Not supported here (an old kernel, another file system): the caller reads as usual.
        Err(_) => true,
    }
}

#[cfg(not(target_os = "linux"))]
pub fn read_start_if_cached(_file: &File, _buffer: &mut Vec<u8>, _read_ahead: u64) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    #[cfg(target_os = "linux")]
    #[test]
    fn an_evicted_file_is_not_read_and_its_position_stays_at_the_start() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("evicted.yaml");
        let text = "kind: ConfigMap\n".repeat(500);
        std::fs::write(&path, &text).unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        file.sync_all().unwrap();
        // SAFETY: plain integer arguments on a descriptor the test owns.
        let advised =
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(advised, 0);
        let mut buffer = Vec::with_capacity(64);
        if super::read_start_if_cached(&file, &mut buffer, 1 << 20) {
            // A file system that keeps files in memory (tmpfs) cannot evict them.
            eprintln!("note: the file stayed in memory; nothing to check");
            return;
        }
        assert!(buffer.is_empty());
        file.read_to_end(&mut buffer).unwrap();
        assert_eq!(buffer, text.as_bytes());
    }

    #[test]
    fn a_cached_file_is_read_whole_across_the_two_reads() {
        let mut file = tempfile::tempfile().unwrap();
        let text = "kind: ConfigMap\n".repeat(2000);
        file.write_all(text.as_bytes()).unwrap();
        file.flush().unwrap();
        let mut reader = file.try_clone().unwrap();
        std::io::Seek::rewind(&mut reader).unwrap();
        // A file just written is in the page cache.
        let mut buffer = Vec::with_capacity(100);
        assert!(super::read_start_if_cached(&reader, &mut buffer, 1 << 20));
        if cfg!(target_os = "linux") {
            assert_eq!(buffer.len(), 100, "the first read fills the spare capacity");
        }
        reader.read_to_end(&mut buffer).unwrap();
        assert_eq!(buffer, text.as_bytes());
    }
}
