//! What a step's numbers say beyond their averages: the flash page size
//! from a page probe, the cache cliff of a sustained write, and whether the
//! first of repeated runs stands apart from the rest (the page-cache trap).

pub mod cliff;
pub mod pages;
pub mod repeats;
