//! methodic's runtime: executes a plan on a file or block device. So far
//! it holds the arithmetic every executor needs first: where on the target
//! a step works ([`region`]). Engines, executors, statistics and the
//! manifest follow (issue "[2/7] Runtime").

pub mod region;
