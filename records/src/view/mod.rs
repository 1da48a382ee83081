//! The views: what a results directory (or several) says, made from the
//! records for people and programs to read. [`points`] turns a run into one
//! point a measured step; [`report`] shows one run; [`compare`] pairs runs.
//! The commands' own results are views too: [`plan`] (a plan's steps),
//! [`run`] (a run's end table, the host ceilings of `calibrate`), [`diff`]
//! (two plans' changes), [`crosscheck`] (methodic against fio).
//! The exporters (`crate::export`) write a view in a format.

pub mod compare;
pub mod crosscheck;
pub mod diff;
pub mod plan;
pub mod points;
pub mod report;
pub mod run;
#[cfg(test)]
pub(crate) mod testing;
