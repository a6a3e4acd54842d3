//! Token encoding: reserved tokens for fixed sources, (kind, slab key) for dynamic ones.
