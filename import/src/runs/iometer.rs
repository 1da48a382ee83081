//! To be written: see runs/mod.rs.
