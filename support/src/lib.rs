//! Shared support for the tests, benches, tour example and fuzz targets of
//! `dynamodb-mapper`: the designs of the seeds as plain domain structs with
//! their mappers, helpers for DynamoDB Local and for requests, and the
//! benches' baselines and the fuzz targets' item generator. Not published;
//! a dev-dependency of the root package and a dependency of the fuzz crate
//! (with the `fuzz` feature).
//!
//! | module | what |
//! |---|---|
//! | [`seed000`] | seed 000 (EF Core provider): a tenant partition and a `Person`/`Employee`/`Manager` hierarchy, discriminator `$type` |
//! | [`seed001`] | seed 001: customers, orders, sessions, products and reviews on one table with three GSIs (the model most tests use), its data set and access patterns |
//! | [`seed002`] | seed 002 (key overloading): a multi-tenant billing table |
//! | [`seed003`] | seed 003: a blog with comments, reactions and tags |
//! | [`seed004`] | seed 004 (compound entities): a customer's orders as hierarchies of sort keys, and invoices ([`seed004::invoices`]) |
//! | [`bench`](mod@bench) | the benches' baselines for the seed-001 order and customer: mappers with serde's own names, items written and read by hand (the floor) and with `serde_dynamo`; the floor with the mapper's checks by hand ([`bench::checked`]) |
//! | `fuzz` | with the `fuzz` feature: arbitrary items from fuzz bytes (`FuzzItem`, `FuzzItems`, `value`), biased towards the seeds' names, entity types and edge numbers, for the fuzz targets |
//! | [`histories`] | several clients at once under seeded faults and cancellation, in a deterministic world over the embedded emulator, judged against what it applied (`tests/histories.rs`) |
//! | [`local`] | DynamoDB Local (through `dynamodb-mapper-testkit`): a client, new tables, plain `GetItem`/`PutItem`, query reads |
//! | [`oracle`] | the consistency oracle: random sequences of writes through every write helper, checked against a model after each step (`tests/oracle.rs`, the `oracle` fuzz target) |
//! | [`raw`] | an entity whose mapper writes exactly the attributes it carries ([`raw_mapper!`]) |
//! | [`requests`] | offline and mock clients, batch request builders, what a batch request carried, a fast retry policy |
//! | [`values`] | `s`/`n` attribute value shorthands, and the `Unknown` value the SDK does not let a test build |
//!
//! Tests never skip: without DynamoDB Local, [`local::client`] panics with
//! the testkit's message saying what to install.

use dynamodb_mapper::ops::{Unread, Unwritten};
use dynamodb_mapper::{Error, ErrorDetails};

pub mod bench;
pub mod doc;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod histories;
pub mod local;
pub mod oracle;
pub mod raw;
pub mod requests;
pub mod seed000;
pub mod seed001;
pub mod seed002;
pub mod seed003;
pub mod seed004;
pub mod values;

/// The error of the helpers that stop at the first failure, whatever it is
/// (SDK, mapper, testkit).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The problems of an invalid registry or mapper; any other error fails
/// the test.
pub fn problems(err: &Error) -> Vec<String> {
    match err.details() {
        ErrorDetails::InvalidRegistry { problems, .. }
        | ErrorDetails::InvalidMapper { problems, .. } => problems.clone(),
        _ => panic!("not an invalid registry or mapper: {err:#}"),
    }
}

/// What an incomplete batch write left (`None` for another error).
pub fn unwritten(err: &Error) -> Option<&Unwritten> {
    match err.details() {
        ErrorDetails::BatchWriteIncomplete { unwritten, .. } => Some(unwritten),
        _ => None,
    }
}

/// What an incomplete batch get left (`None` for another error).
pub fn unread(err: &Error) -> Option<&Unread> {
    match err.details() {
        ErrorDetails::BatchGetIncomplete { unread, .. } => Some(unread),
        _ => None,
    }
}

/// How many rounds an incomplete batch sent (`None` for another error).
pub fn attempts(err: &Error) -> Option<u32> {
    match err.details() {
        ErrorDetails::BatchWriteIncomplete { attempts, .. }
        | ErrorDetails::BatchGetIncomplete { attempts, .. } => Some(*attempts),
        _ => None,
    }
}

/// What stopped a batch, or why a write may have been applied.
pub fn cause(err: &Error) -> Option<&Error> {
    match err.details() {
        ErrorDetails::BatchWriteIncomplete { cause, .. }
        | ErrorDetails::BatchGetIncomplete { cause, .. } => cause.as_ref(),
        ErrorDetails::MaybeApplied { cause, .. } => Some(cause),
        _ => None,
    }
}
