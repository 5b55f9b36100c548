//! Shared by the fuzz targets: a generator of arbitrary items from fuzz
//! bytes. The mappers they run are the test suite's own, from the
//! `dynamodb-mapper-support` crate (`support/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod generate;

pub use generate::{FuzzItem, FuzzItems};
