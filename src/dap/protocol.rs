//! DAP wire types (DAP § Base Protocol): requests, responses, events, capabilities.
