//! Registry decoding of arbitrary pages of items, under every policy, by
//! the whole registry, by group and into buckets, and audited: never a
//! panic, `decode_all` fails exactly when one of its items fails `decode`,
//! and an audit counts every item once.
#![no_main]

use std::sync::OnceLock;

use dynamodb_mapper::evolve::Audit;
use dynamodb_mapper::{Decoded, Item, MissingPolicy, Registry, UnknownPolicy};
use dynamodb_mapper_support::fuzz::FuzzItems;
use dynamodb_mapper_support::seed000::{self, *};
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::seed004::invoices::*;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Clone, PartialEq)]
enum Invoices {
    Invoice(Invoice),
    Item(InvoiceItem),
    Status(InvoiceStatus),
    Summary(InvoiceSummary),
}

const POLICIES: [(UnknownPolicy, MissingPolicy); 3] = [
    (UnknownPolicy::Error, MissingPolicy::Error),
    (UnknownPolicy::Skip, MissingPolicy::Skip),
    (UnknownPolicy::Keep, MissingPolicy::Keep),
];

fn customer_registries() -> &'static [Registry<CustomerPartition>] {
    static R: OnceLock<Vec<Registry<CustomerPartition>>> = OnceLock::new();
    R.get_or_init(|| {
        POLICIES
            .iter()
            .map(|&(unknown, missing)| {
                partition_builder()
                    .group("Orders", &["Order"])
                    .on_unknown(unknown)
                    .on_missing(missing)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

fn tenant_registries() -> &'static [Registry<Tenant>] {
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

fn invoice_registry() -> &'static Registry<Invoices> {
    static R: OnceLock<Registry<Invoices>> = OnceLock::new();
    R.get_or_init(|| {
        Registry::builder()
            .register::<InvoiceMapper>(Invoices::Invoice)
            .register::<InvoiceItemMapper>(Invoices::Item)
            .register::<InvoiceStatusMapper>(Invoices::Status)
            .register::<InvoiceSummaryMapper>(Invoices::Summary)
            .build()
            .unwrap()
    })
}

fn check<T: std::fmt::Debug>(registry: &Registry<T>, items: &[Item]) {
    let mut any_error = false;
    for item in items {
        match registry.decode(item.clone()) {
            Ok(Decoded::Entity(_) | Decoded::Skipped(_) | Decoded::Raw(_)) => {}
            Err(e) => {
                any_error = true;
                let _ = e.to_string();
            }
        }
    }
    let all = registry.decode_all(items.iter().cloned());
    assert_eq!(
        all.is_err(),
        any_error,
        "decode_all disagrees with decode: {all:?}"
    );
    if let Ok(out) = all {
        assert_eq!(
            out.entities.len() + out.skipped.len() + out.raw.len(),
            items.len()
        );
    }
    let mut audit = Audit::default();
    for item in items {
        audit.add(registry, item.clone());
    }
    assert_eq!(audit.scanned, items.len() as u64);
    assert_eq!(
        audit.types.values().map(|t| t.items).sum::<u64>(),
        items.len() as u64
    );
    let _ = audit.to_string();

    // The support registries' groups (a name a registry lacks is skipped).
    for name in ["Person", "Employee", "Thread"] {
        if let Ok(group) = registry.group(name) {
            let _ = group.decode_all(items.iter().cloned());
        }
    }
}

fuzz_target!(|input: (u8, FuzzItems)| {
    let (which, FuzzItems(items)) = input;
    let policy = usize::from(which / 4) % POLICIES.len();
    match which % 4 {
        0 => check(&customer_registries()[policy], &items),
        1 => check(&tenant_registries()[policy], &items),
        2 => check(invoice_registry(), &items),
        _ => {
            // Compound read (seed 004): one invoice, its items, statuses, summary.
            let mut buckets = invoice_registry().buckets(items.iter().cloned());
            let _ = buckets.one::<InvoiceMapper>();
            let _ = buckets.many::<InvoiceItemMapper>();
            let _ = buckets.many::<InvoiceStatusMapper>();
            let _ = buckets.optional::<InvoiceSummaryMapper>();
            let _ = buckets.finish().map_err(|e| e.to_string());
        }
    }
});
