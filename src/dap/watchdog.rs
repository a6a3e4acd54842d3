//! The watchdog: a re-executed dapmux that kills recorded launched debuggees when the server dies.
