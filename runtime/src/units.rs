//! Sizes for people to read: the results crate's formatter, so that every
//! message names bytes as the manifest and reports do.

pub use methodic_results::units::human;
