//! Helpers for tables in tests.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::{IndexStatus, TableStatus};

use crate::error::TestkitError;

/// Longest table name DynamoDB accepts.
const MAX_TABLE_NAME_LEN: usize = 255;
/// How long [`wait_for_table_active`] waits.
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// A table name no other call returns, in this process or another one.
///
/// The result is `<prefix>-<process id>-<process start stamp>-<counter>`.
/// Characters of `prefix` that DynamoDB does not allow in table names
/// (anything but `a-z A-Z 0-9 _ - .`) become `-`, an empty prefix becomes
/// `test`, and the prefix is shortened so the name fits in 255 characters.
///
/// ```
/// use dynamodb_mapper_testkit::unique_table_name;
///
/// let a = unique_table_name("orders");
/// let b = unique_table_name("orders");
/// assert_ne!(a, b);
/// assert!(a.starts_with("orders-"));
/// assert!(unique_table_name("my table/ü").starts_with("my-table--"));
/// assert!(unique_table_name(&"x".repeat(300)).len() <= 255);
/// ```
pub fn unique_table_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static STAMP: OnceLock<String> = OnceLock::new();
    let stamp = STAMP.get_or_init(|| {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        base36(millis)
    });
    let counter = COUNTER.fetch_add(1, Ordering::Relaxed);
    let suffix = format!("-{}-{stamp}-{counter}", std::process::id());
    let mut name: String = prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        name.push_str("test");
    }
    // ASCII only, so any byte index is a char boundary.
    name.truncate(MAX_TABLE_NAME_LEN.saturating_sub(suffix.len()));
    name.push_str(&suffix);
    name
}

fn base36(mut n: u128) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// Waits until the table and all its global secondary indexes are `ACTIVE`.
///
/// DynamoDB Local creates tables active right away, so this usually returns
/// after one `DescribeTable`; against real DynamoDB it waits. A table that is
/// not found yet counts as "not active yet". Gives up after 60 s.
///
/// # Errors
///
/// * [`TestkitError::TableNotActive`] if the table is not active after 60 s.
/// * [`TestkitError::Sdk`] if `DescribeTable` fails with anything but
///   `ResourceNotFoundException`.
///
/// # Examples
///
/// ```no_run
/// use aws_sdk_dynamodb::types::{
///     AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
/// };
/// use dynamodb_mapper_testkit::{shared, unique_table_name, wait_for_table_active};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let client = shared().await?.client();
/// let table = unique_table_name("users");
/// client
///     .create_table()
///     .table_name(&table)
///     .billing_mode(BillingMode::PayPerRequest)
///     .attribute_definitions(
///         AttributeDefinition::builder()
///             .attribute_name("pk")
///             .attribute_type(ScalarAttributeType::S)
///             .build()?,
///     )
///     .key_schema(
///         KeySchemaElement::builder()
///             .attribute_name("pk")
///             .key_type(KeyType::Hash)
///             .build()?,
///     )
///     .send()
///     .await?;
/// wait_for_table_active(&client, &table).await?;
/// # Ok(())
/// # }
/// ```
pub async fn wait_for_table_active(client: &Client, table: &str) -> Result<(), TestkitError> {
    let started = Instant::now();
    let mut delay = Duration::from_millis(20);
    loop {
        let last_status = match client.describe_table().table_name(table).send().await {
            Ok(output) => {
                let Some(description) = output.table() else {
                    return Err(TestkitError::sdk(
                        format!("describe_table {table:?} returned no table description"),
                        std::io::Error::other("empty DescribeTable response"),
                    ));
                };
                let status = description.table_status();
                let pending_index = description
                    .global_secondary_indexes()
                    .iter()
                    .find(|index| index.index_status() != Some(&IndexStatus::Active));
                match (status, pending_index) {
                    (Some(TableStatus::Active), None) => return Ok(()),
                    (Some(TableStatus::Active), Some(index)) => format!(
                        "ACTIVE, index {:?} is {}",
                        index.index_name().unwrap_or_default(),
                        index
                            .index_status()
                            .map_or("without status", |s| s.as_str())
                    ),
                    (Some(status), _) => status.as_str().to_string(),
                    (None, _) => "without status".to_string(),
                }
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_resource_not_found_exception()) =>
            {
                "not found".to_string()
            }
            Err(e) => {
                return Err(TestkitError::sdk(
                    format!(
                        "describe_table {table:?} failed: {}",
                        DisplayErrorContext(&e)
                    ),
                    e,
                ));
            }
        };
        if started.elapsed() >= ACTIVE_TIMEOUT {
            return Err(TestkitError::TableNotActive {
                table: table.to_string(),
                waited: started.elapsed(),
                last_status,
            });
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(500));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_valid_table_name(name: &str) -> bool {
        (3..=255).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    }

    #[test]
    fn names_are_valid_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for prefix in [
            "",
            "a",
            "with space",
            "ünïcödé",
            "dots.and_under-scores",
            &"long".repeat(100),
        ] {
            for _ in 0..10 {
                let name = unique_table_name(prefix);
                assert!(is_valid_table_name(&name), "{name}");
                assert!(seen.insert(name));
            }
        }
        assert!(unique_table_name("").starts_with("test-"));
        assert!(unique_table_name("ünï").starts_with("-n--"));
        assert_eq!(unique_table_name(&"x".repeat(1000)).len(), 255);
    }

    #[test]
    fn base36_digits() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }
}
