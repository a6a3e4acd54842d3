//! One DAP connection, sans-IO: seq, the pending table, routing, timeouts, reverse requests.
