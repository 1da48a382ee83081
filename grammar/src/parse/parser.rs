//! The parser pest derives from `methodology.pest`: [`MethodologyParser`]
//! and its [`Rule`]s, one a grammar rule. Also the one limit the grammar
//! does not say, how deep blocks nest ([`MAX_DEPTH`]), which building
//! enforces and the messages name.

#[derive(pest_derive::Parser)]
#[grammar = "methodology.pest"]
pub struct MethodologyParser;

/// How deep blocks may nest. Deeper methodologies are refused rather than
/// risk the stack of every stage that walks the tree.
pub const MAX_DEPTH: usize = 64;
