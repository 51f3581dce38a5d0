//! The Store: immutable Flux and data objects, their statuses, and the events their changes emit.
