//! Debug sessions: state machine, start-up choreography, handles, output, snapshots.

pub mod breakpoints;
pub mod output;
