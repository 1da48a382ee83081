//! `methodic import vdbench` from the command line (being written).
