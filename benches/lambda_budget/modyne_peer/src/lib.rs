//! Compiles modyne (and names one of its items, so the dependency is used)
//! for the compile-time comparison; no function links it.

/// modyne's name for a DynamoDB item, the same `HashMap` the SDK uses.
pub type ModyneItem = modyne::Item;
