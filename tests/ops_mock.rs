//! Paths DynamoDB Local cannot produce (UnprocessedItems, throttling,
//! transaction cancellation and conflicts), driven through `aws-smithy-mocks`.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemError, BatchWriteItemOutput};
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::error::{
    ConditionalCheckFailedException, ProvisionedThroughputExceededException,
    TransactionCanceledException,
};
use aws_sdk_dynamodb::types::{CancellationReason, KeysAndAttributes};
use aws_smithy_mocks::{RuleMode, mock};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{ErrorDetails, ErrorKind, Item, Mapper, MapperExt, Record};
use dynamodb_mapper_support::requests::{
    fast_retry, mock_client, offline_client, put_pk, sent_keys, sent_writes,
};
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::{attempts, unwritten};

const TABLE: &str = "AppTable";

type Calls = Arc<Mutex<Vec<Vec<String>>>>;

#[tokio::test]
async fn unprocessed_items_are_retried_exactly() {
    let calls: Calls = Arc::default();
    let seen = calls.clone();
    // First call: DynamoDB leaves the 3rd and 5th item unprocessed; then all succeed.
    let first = Arc::new(Mutex::new(true));
    let rule = mock!(Client::batch_write_item).then_compute_output(move |req| {
        let sent = sent_writes(req, TABLE);
        seen.lock().unwrap().push(sent.iter().map(put_pk).collect());
        let mut first = first.lock().unwrap();
        if *first {
            *first = false;
            BatchWriteItemOutput::builder()
                .unprocessed_items(TABLE, vec![sent[2].clone(), sent[4].clone()])
                .build()
        } else {
            BatchWriteItemOutput::builder().build()
        }
    });
    let client = mock_client(&[&rule]);
    let summary = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(5))
        .batch_writer()
        .put::<CustomerMapper>(&customers(5))
        .await
        .unwrap();
    assert_eq!(rule.num_calls(), 2);
    assert_eq!(summary.items, 5);
    assert_eq!(summary.requests, 2);
    assert_eq!(summary.retries, 1);
    let calls = calls.lock().unwrap();
    assert_eq!(calls[0].len(), 5);
    assert_eq!(calls[1], ["CUSTOMER#C002", "CUSTOMER#C004"]);
}

#[tokio::test]
async fn batches_are_split_by_25() {
    let sizes: Arc<Mutex<Vec<usize>>> = Arc::default();
    let seen = sizes.clone();
    let rule = mock!(Client::batch_write_item).then_compute_output(move |req| {
        let n = sent_writes(req, TABLE).len();
        seen.lock().unwrap().push(n);
        BatchWriteItemOutput::builder().build()
    });
    let client = mock_client(&[&rule]);
    let summary = Table::new(&client, TABLE, APP_TABLE)
        .batch_writer()
        .concurrency(1)
        .put::<CustomerMapper>(&customers(101))
        .await
        .unwrap();
    assert_eq!(summary.items, 101);
    assert_eq!(*sizes.lock().unwrap(), [25, 25, 25, 25, 1]);
}

#[tokio::test]
async fn endless_throttling_gives_bounded_attempts_and_every_unwritten_item() {
    let rule = mock!(Client::batch_write_item).then_error(|| {
        BatchWriteItemError::ProvisionedThroughputExceededException(
            ProvisionedThroughputExceededException::builder()
                .message("slow down")
                .build(),
        )
    });
    let client = mock_client(&[&rule]);
    let err = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(4))
        .batch_writer()
        .concurrency(1)
        .put::<CustomerMapper>(&customers(30))
        .await
        .unwrap_err();
    // Two batches (25 + 5), four attempts each.
    assert_eq!(rule.num_calls(), 8);
    assert_eq!(err.kind(), ErrorKind::BatchWriteIncomplete);
    assert_eq!(
        (unwritten(&err).map(|u| u.written), attempts(&err)),
        (Some(0), Some(4)),
        "{err:?}"
    );
    let unprocessed = &unwritten(&err).unwrap().unprocessed;
    let mut pks: Vec<String> = unprocessed.iter().map(put_pk).collect();
    pks.sort();
    let expected: Vec<String> = (0..30).map(|i| format!("CUSTOMER#C{i:03}")).collect();
    assert_eq!(pks, expected);
    assert!(
        err.to_string()
            == "batch write to AppTable wrote 0 of 30 requests: 30 not written, 0 in doubt, after 4 attempts",
        "{err}"
    );
}

#[tokio::test]
async fn duplicate_keys_are_caught_before_sending() {
    let rule =
        mock!(Client::batch_write_item).then_output(|| BatchWriteItemOutput::builder().build());
    let client = aws_smithy_mocks::mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    let mut list = customers(3);
    list.push(customer("C001"));
    let err = Table::new(&client, TABLE, APP_TABLE)
        .batch_writer()
        .put::<CustomerMapper>(&list)
        .await
        .unwrap_err();
    assert_eq!(rule.num_calls(), 0);
    assert_eq!(err.kind(), ErrorKind::DuplicateKey);
    assert_eq!(
        err.to_string(),
        r#"BatchWriteItem addresses the item pk="CUSTOMER#C001", sk="METADATA" twice; nothing was sent"#
    );
}

#[tokio::test]
async fn unprocessed_keys_are_retried_on_batch_get() {
    let first = Arc::new(Mutex::new(true));
    let rule = mock!(Client::batch_get_item).then_compute_output(move |req| {
        let keys = sent_keys(req, TABLE);
        let mut first = first.lock().unwrap();
        let (answer, left) = if *first {
            *first = false;
            keys.split_at(keys.len() - 2)
        } else {
            (&keys[..], &[][..])
        };
        let items: Vec<Item> = answer
            .iter()
            .map(|k| CustomerMapper::to_item(&customer_with_key(k)).unwrap())
            .collect();
        let mut out = BatchGetItemOutput::builder().responses(TABLE, items);
        if !left.is_empty() {
            out = out.unprocessed_keys(
                TABLE,
                KeysAndAttributes::builder()
                    .set_keys(Some(left.to_vec()))
                    .build()
                    .unwrap(),
            );
        }
        out.build()
    });
    let client = mock_client(&[&rule]);
    let keys: Vec<Item> = customers(10)
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    let mut got = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(3))
        .batch_getter()
        .get::<CustomerMapper>(keys)
        .await
        .unwrap()
        .into_entities()
        .unwrap();
    got.sort_by(|a, b| a.customer_id.cmp(&b.customer_id));
    assert_eq!(rule.num_calls(), 2);
    assert_eq!(got, customers(10));
}

#[tokio::test]
async fn transaction_cancellation_reasons_map_to_actions() {
    let rule = mock!(Client::transact_write_items).then_error(|| {
        TransactWriteItemsError::TransactionCanceledException(
            TransactionCanceledException::builder()
                .message("Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, TransactionConflict]")
                .cancellation_reasons(CancellationReason::builder().code("None").build())
                .cancellation_reasons(
                    CancellationReason::builder()
                        .code("ConditionalCheckFailed")
                        .message("The conditional request failed")
                        .build(),
                )
                .cancellation_reasons(
                    CancellationReason::builder()
                        .code("TransactionConflict")
                        .message("Transaction is ongoing for the item")
                        .build(),
                )
                .build(),
        )
    });
    let client = aws_smithy_mocks::mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    let mut tx = Table::new(&client, TABLE, APP_TABLE).transaction();
    tx = tx.put::<CustomerMapper>(&customer("C1")).unwrap();
    tx = tx
        .put_new::<OrderMapper>(&order(
            "C1",
            "O1",
            "2024-01-15T10:30:00Z",
            OrderStatus::Pending,
        ))
        .unwrap();
    tx = tx
        .delete::<ProductMapper>(ProductMapper::string_key("CATEGORY#BOOKS", "PRODUCT#P1").unwrap())
        .unwrap();
    let err = tx.send().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled);
    let ErrorDetails::TransactionCanceled { canceled, .. } = err.details() else {
        panic!("{err:?}")
    };
    assert_eq!(canceled.len(), 2);
    assert_eq!(
        (canceled[0].index, canceled[0].action.entity_type.as_str()),
        (1, "Order")
    );
    assert_eq!(canceled[0].code, "ConditionalCheckFailed");
    assert_eq!(
        (canceled[1].index, canceled[1].action.entity_type.as_str()),
        (2, "Product")
    );
    assert_eq!(canceled[1].code, "TransactionConflict");
    assert_eq!(
        err.to_string(),
        "transaction canceled: action 1 (put Order pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): \
         ConditionalCheckFailed (The conditional request failed); action 2 (delete Product \
         pk=\"CATEGORY#BOOKS\", sk=\"PRODUCT#P1\"): TransactionConflict (Transaction is ongoing for the item)"
    );
}

#[tokio::test]
async fn transactions_check_limits_and_one_action_per_item_before_sending() {
    let mut tx = Table::new(&offline_client(), TABLE, APP_TABLE).transaction();
    for c in customers(100) {
        tx = tx.put::<CustomerMapper>(&c).unwrap();
    }
    let err = tx
        .clone()
        .put::<CustomerMapper>(&customer("C999"))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "transaction has 101 entries, more than dynamodb's limit of 100"
    );
    let mut tx = Table::new(&offline_client(), TABLE, APP_TABLE).transaction();
    tx = tx.put::<CustomerMapper>(&customer("C1")).unwrap();
    let err = tx
        .clone()
        .delete::<CustomerMapper>(CustomerMapper::key(&customer("C1")).unwrap())
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DuplicateKey);
}

#[tokio::test]
async fn a_conditional_put_conflict_is_a_version_conflict() {
    let rule = mock!(Client::put_item).then_error(|| {
        PutItemError::ConditionalCheckFailedException(
            ConditionalCheckFailedException::builder()
                .message("failed")
                .build(),
        )
    });
    let client = aws_smithy_mocks::mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    let mut record = Record::new(counter("A", 1));
    record.version = Some(4);
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    assert_eq!(
        err.to_string(),
        r#"Counter: version conflict on pk="COUNTER#A", sk="COUNTER": expected version 4, another writer changed or deleted the item"#
    );
    assert_eq!(
        record.version,
        Some(4),
        "a failed write leaves the record's version alone"
    );
}

#[tokio::test]
async fn a_page_whose_last_evaluated_key_is_foreign_is_an_error_not_a_token() {
    use aws_sdk_dynamodb::operation::query::QueryOutput;
    use aws_sdk_dynamodb::types::AttributeValue;
    use dynamodb_mapper::Registry;
    use dynamodb_mapper::cursor::Cursors;
    // DynamoDB answers with a LastEvaluatedKey that is not this table's key.
    let rule = mock!(Client::query).then_output(|| {
        QueryOutput::builder()
            .set_items(Some(vec![]))
            .last_evaluated_key("someone", AttributeValue::S("else".into()))
            .build()
    });
    let client = mock_client(&[&rule]);
    let table = Table::new(&client, TABLE, APP_TABLE);
    let registry = Registry::builder()
        .register::<CustomerMapper>(|c| c)
        .build()
        .unwrap();
    let cursors = Cursors::new(TABLE, APP_TABLE).signed_with(b"k");
    let query = client.query().table_name(TABLE);
    let err = table
        .query_page(query, &registry, &cursors, None)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse);
    assert!(
        err.to_string()
            .contains("its LastEvaluatedKey cannot be a cursor"),
        "{err}"
    );
    // A forged token is refused before anything is sent.
    let err = table
        .query_page(
            client.query().table_name(TABLE),
            &registry,
            &cursors,
            Some("AQA"),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidCursor);
    assert_eq!(rule.num_calls(), 1);
}
