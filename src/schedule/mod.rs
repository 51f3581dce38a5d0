//! The fixpoint scheduler: a bounded worker pool running node bodies until nothing can change. Imports nothing else of ours.
