//! methodic's methodology language. Source text goes in through [`parse`]
//! and comes out as a typed [`ast::Methodology`] with spans; [`format`](fn@format)
//! prints it back in canonical form with its comments kept. Units are types
//! ([`units`]) and every problem is a [`Diagnostic`] with a code.
//!
//! The language is described for users in docs/LANGUAGE.md.

pub mod ast;
pub mod diagnostic;
mod fmt;
mod names;
mod parse;
pub mod units;

pub use diagnostic::{Code, Diagnostic, Diagnostics, Severity, did_you_mean};
pub use fmt::format;
pub use names::ident;
pub use parse::{is_reserved, parse};
