//! The Store: immutable Flux and data objects, their statuses, and the events their changes emit.
//!
//! It is the single source of truth while reconciling: objects are shared as `Arc` and replaced, never
//! mutated in place; each id has a status ([`Status`]) and the ids of the root causes that block it.
//! Writers that change something (a new object, an object whose content changed, a status that turned
//! terminal) emit an [`Event`] to every subscriber, after every lock is released.
//!
//! ```
//! use offlux::store::{Change, Event, Status, Store};
//!
//! let store: Store<String, String> = Store::new();
//! let (_subscription, events) = store.subscribe_channel();
//! assert_eq!(store.insert("cm".into(), "data".to_owned()), Change::Added);
//! assert_eq!(store.insert("cm".into(), "data".to_owned()), Change::Unchanged);
//! store.set("cm".into(), Status::ready());
//! let seen: Vec<_> = events.try_iter().collect();
//! assert_eq!(seen, [Event::Added("cm".into()), Event::Terminal("cm".into())]);
//! ```
//!
//! Not for: scheduling (the controllers glue the Store to `schedule`, which this module never names),
//! nor knowing what an object means: the id and object types are parameters.

mod status;
mod table;

pub use status::{Ready, Status, StatusRecord};
pub use table::{Change, Event, Store, Subscription};

#[cfg(test)]
mod tests;
