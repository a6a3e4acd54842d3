//! Deadline queue: the earliest deadline sets the poll timeout.
