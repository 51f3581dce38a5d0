//! What a run's results say, as text for people and programs: verdict rows (`verdicts`), the
//! comparison of two runs (`diff`), the images a render applies (`images`), tables and the few
//! terminal styles. Everything here returns text; the command line decides where it goes.

pub mod diff;
pub mod images;
pub mod paint;
pub mod table;
pub mod verdicts;

/// `text` prefixed with the cluster it is about.
pub fn named(cluster: &str, text: &str) -> String {
    format!("[{cluster}] {text}")
}

/// `text` naming `cluster`, when there is one to name.
pub fn named_opt(cluster: Option<&str>, text: &str) -> String {
    match cluster {
        Some(cluster) => named(cluster, text),
        None => text.to_owned(),
    }
}
