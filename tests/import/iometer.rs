//! `methodic import iometer` from the command line (being written).
