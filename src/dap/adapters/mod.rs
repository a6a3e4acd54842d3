//! Adapter recipes: one file per adapter, each producing plain data (command, transport, quirks).
