//! Stream records, never a panic: records built from arbitrary kinds, view
//! types and items (any depth, any value) decoded through the registry
//! under every policy; Lambda events parsed from arbitrary bytes, read and
//! handled as a batch, which stops exactly at its first failure and reports
//! only that record.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use dynamodb_mapper::stream::{
    ChangeKind, ChangeRecord, ViewType, lambda_records, process_records,
};
use dynamodb_mapper::{MissingPolicy, Registry, UnknownPolicy};
use dynamodb_mapper_support::fuzz::{FuzzItem, FuzzItems};
use dynamodb_mapper_support::seed000::{self, Tenant};
use libfuzzer_sys::fuzz_target;

const POLICIES: [(UnknownPolicy, MissingPolicy); 3] = [
    (UnknownPolicy::Error, MissingPolicy::Error),
    (UnknownPolicy::Skip, MissingPolicy::Skip),
    (UnknownPolicy::Keep, MissingPolicy::Keep),
];

fn registries() -> &'static [Registry<Tenant>] {
    static R: OnceLock<Vec<Registry<Tenant>>> = OnceLock::new();
    R.get_or_init(|| {
        POLICIES
            .iter()
            .map(|&(unknown, missing)| {
                seed000::builder()
                    .on_unknown(unknown)
                    .on_missing(missing)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

#[derive(Debug, Arbitrary)]
struct Built {
    kind: u8,
    view: Option<u8>,
    keys: FuzzItem,
    old: Option<FuzzItem>,
    new: Option<FuzzItem>,
    sequence_number: Option<String>,
    identity: Option<(String, String)>,
}

#[derive(Debug, Arbitrary)]
enum Input {
    Built(u8, Vec<Built>),
    Json(u8, Vec<u8>),
    Items(u8, FuzzItems),
}

fn build(b: Built) -> ChangeRecord {
    let kind =
        [ChangeKind::Insert, ChangeKind::Modify, ChangeKind::Remove][usize::from(b.kind % 3)];
    let views = [
        ViewType::KeysOnly,
        ViewType::NewImage,
        ViewType::OldImage,
        ViewType::NewAndOldImages,
    ];
    let mut r = ChangeRecord::new("e", kind, b.keys.0);
    r.view_type = b.view.map(|v| views[usize::from(v % 4)]);
    r.old_image = b.old.map(|i| i.0);
    r.new_image = b.new.map(|i| i.0);
    r.sequence_number = b.sequence_number;
    r.user_identity = b.identity;
    r
}

/// Runs the batch and checks what it reports against decoding each record.
fn batch(registry: &Registry<Tenant>, records: Vec<dynamodb_mapper::Result<ChangeRecord>>) {
    // The first record that fails, decoding alone (the handler never fails).
    let first_failure = records.iter().position(|r| match r {
        Err(_) => true,
        Ok(r) => registry.decode_change(r.clone()).is_err(),
    });
    let expected_seq = first_failure.map(|i| match &records[i] {
        Ok(r) => r.sequence_number.clone().unwrap_or_default(),
        Err(e) => e
            .stream_record()
            .and_then(|(_, s)| s)
            .unwrap_or("")
            .to_owned(),
    });
    let count = records.len();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut seen = 0;
    let outcome = runtime.block_on(process_records(registry, records, |change| {
        let _ = format!("{change:?}");
        seen += 1;
        async { Ok::<(), std::io::Error>(()) }
    }));
    assert_eq!(seen, outcome.handled);
    match (first_failure, expected_seq) {
        (Some(i), Some(seq)) => {
            assert_eq!(outcome.handled, i);
            assert_eq!(outcome.batch_item_failures.len(), 1);
            assert_eq!(outcome.batch_item_failures[0].item_identifier, seq);
            let _ = outcome.failed.unwrap().error.to_string();
        }
        _ => {
            assert_eq!(outcome.handled, count);
            assert!(outcome.batch_item_failures.is_empty());
        }
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::Built(policy, records) => {
            let registry = &registries()[usize::from(policy) % POLICIES.len()];
            let records: Vec<_> = records.into_iter().take(8).map(build).collect();
            for r in &records {
                if let Err(e) = registry.decode_change(r.clone()) {
                    let _ = e.to_string();
                }
            }
            batch(registry, records.into_iter().map(Ok).collect());
        }
        Input::Json(policy, bytes) => {
            let registry = &registries()[usize::from(policy) % POLICIES.len()];
            if let Ok(event) =
                serde_json::from_slice::<aws_lambda_events::event::dynamodb::Event>(&bytes)
            {
                batch(registry, lambda_records(event).collect());
            }
        }
        Input::Items(policy, FuzzItems(items)) => {
            // Every item as the new image of an insert: deep and odd values.
            let registry = &registries()[usize::from(policy) % POLICIES.len()];
            let records = items
                .into_iter()
                .enumerate()
                .map(|(i, item)| {
                    let mut r =
                        ChangeRecord::new(i.to_string(), ChangeKind::Insert, Default::default());
                    r.sequence_number = Some(i.to_string());
                    r.new_image = Some(item);
                    Ok(r)
                })
                .collect();
            batch(registry, records);
        }
    }
});
