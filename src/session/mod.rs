//! Debug sessions: state machine, start-up choreography, handles, output, snapshots.
