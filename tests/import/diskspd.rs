//! `methodic import diskspd` from the command line (being written).
