//! Go text/template with Sprig and Helm functions. Knows nothing of Helm charts or Kubernetes.

pub mod funcs;
mod value;

pub use value::Value;
