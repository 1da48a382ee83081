//! The views: what a results directory (or several) says, made from the
//! records for people and programs to read. [`points`] turns a run into one
//! point a measured step; [`report`] shows one run; [`compare`] pairs runs.
//! The exporters (`crate::export`) write a view in a format.

pub mod compare;
pub mod points;
pub mod report;
