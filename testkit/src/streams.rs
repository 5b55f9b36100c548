//! Reading back what a test wrote to a table's stream: every record so far,
//! through the DynamoDB Streams API of the same server.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodbstreams::types::{Record, Shard, ShardIteratorType};

use crate::error::TestkitError;

/// The most `GetRecords` calls made per shard.
const MAX_CALLS_PER_SHARD: usize = 100;

/// Every record of `table`'s latest stream so far, oldest first: the
/// shards in lineage order (a parent before its children), each read from
/// its start (`TRIM_HORIZON`) until a call returns no record, at most 100
/// calls per shard. For tests and examples that check what a write put on
/// the stream; a service that keeps reading a stream uses Lambda or the
/// Kinesis adapter instead.
///
/// # Errors
///
/// [`TestkitError::Sdk`] when the table has no stream or a call fails.
///
/// # Examples
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let server = dynamodb_mapper_testkit::shared().await?;
/// // ... create "orders" with a stream and write to it ...
/// let records = dynamodb_mapper_testkit::stream_records(
///     &server.client(),
///     &server.streams_client(),
///     "orders",
/// )
/// .await?;
/// println!("{} changes", records.len());
/// # Ok(())
/// # }
/// ```
pub async fn stream_records(
    client: &Client,
    streams: &aws_sdk_dynamodbstreams::Client,
    table: &str,
) -> Result<Vec<Record>, TestkitError> {
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| TestkitError::sdk(format!("describe_table {table:?}"), e))?;
    let Some(arn) = described.table.and_then(|t| t.latest_stream_arn) else {
        return Err(TestkitError::sdk(
            format!("reading the stream of {table:?}"),
            std::io::Error::other("the table has no stream"),
        ));
    };
    let shards = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .map_err(|e| TestkitError::sdk(format!("describe_stream {arn:?}"), e))?
        .stream_description
        .and_then(|d| d.shards)
        .unwrap_or_default();
    let mut out = Vec::new();
    for shard_id in lineage_order(shards) {
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(&shard_id)
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .map_err(|e| TestkitError::sdk(format!("get_shard_iterator {shard_id:?}"), e))?
            .shard_iterator;
        for _ in 0..MAX_CALLS_PER_SHARD {
            let Some(it) = iterator.take() else { break };
            let page = streams
                .get_records()
                .shard_iterator(it)
                .send()
                .await
                .map_err(|e| TestkitError::sdk(format!("get_records of {shard_id:?}"), e))?;
            let records = page.records.unwrap_or_default();
            if records.is_empty() {
                break;
            }
            out.extend(records);
            iterator = page.next_shard_iterator;
        }
    }
    Ok(out)
}

/// The shard ids with every parent before its children (a shard whose
/// parent is not listed counts as a root).
fn lineage_order(shards: Vec<Shard>) -> Vec<String> {
    let mut pending: Vec<(String, Option<String>)> = shards
        .into_iter()
        .filter_map(|s| s.shard_id.map(|id| (id, s.parent_shard_id)))
        .collect();
    let mut ordered: Vec<String> = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready = |parent: &Option<String>, pending: &[(String, Option<String>)]| {
            parent
                .as_ref()
                .is_none_or(|p| !pending.iter().any(|(id, _)| id == p))
        };
        let before = pending.len();
        let mut i = 0;
        while i < pending.len() {
            if ready(&pending[i].1, &pending) {
                ordered.push(pending.remove(i).0);
            } else {
                i += 1;
            }
        }
        if pending.len() == before {
            // A cycle, which no stream has: keep the listed order.
            ordered.extend(pending.drain(..).map(|(id, _)| id));
        }
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>) -> Shard {
        Shard::builder()
            .shard_id(id)
            .set_parent_shard_id(parent.map(str::to_owned))
            .build()
    }

    #[test]
    fn parents_come_before_children() {
        let order = lineage_order(vec![
            shard("c2", Some("c1")),
            shard("c1", Some("root")),
            shard("root", None),
            shard("orphan", Some("gone")),
        ]);
        let at = |id: &str| order.iter().position(|s| s == id).unwrap();
        assert_eq!(order.len(), 4);
        assert!(at("root") < at("c1") && at("c1") < at("c2"));
    }
}
