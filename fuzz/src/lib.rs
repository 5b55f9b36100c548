//! Shared by the fuzz targets: the test fixtures (the same mappers the test
//! suite uses) and a generator of arbitrary items from fuzz bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/fixtures/mod.rs"]
pub mod fixtures;
#[path = "../../tests/fixtures/seeds.rs"]
pub mod seeds;

pub mod generate;

pub use generate::{FuzzItem, FuzzItems};
