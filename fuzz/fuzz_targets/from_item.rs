//! `from_item` and the lossless record path of every fixture mapper on
//! arbitrary items: never a panic, and what is read is consistent:
//! `from_item` and `record_from_item` agree, and a record that can be
//! written reads back as the same entity.
#![no_main]

use std::fmt::Debug;

use dynamodb_mapper::{Item, Mapper, MapperExt, item_size};
use dynamodb_mapper_support::fuzz::FuzzItem;
use dynamodb_mapper_support::seed000::*;
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::seed004::invoices::*;
use libfuzzer_sys::fuzz_target;

fn check<M: Mapper>(item: &Item)
where
    M::Entity: PartialEq + Debug,
{
    let plain = M::from_item(item.clone());
    let record = M::record_from_item(item.clone());
    match (&plain, &record) {
        (Ok(entity), Ok(record)) => assert_eq!(entity, &record.entity),
        (Err(_), Err(_)) => {}
        // Only the lossless read looks at the version attribute.
        (Ok(_), Err(e)) => assert_eq!(
            e.attribute(),
            M::SCHEMA.version,
            "{}: only record_from_item failed: {e:#}",
            M::ENTITY_TYPE
        ),
        (Err(e), Ok(_)) => panic!("{}: only from_item failed: {e:#}", M::ENTITY_TYPE),
    }
    if let Err(e) = &plain {
        // Every read error names the entity type and renders.
        assert_eq!(e.entity_type(), Some(M::ENTITY_TYPE), "{e:#}");
        let _ = format!("{e:#}");
    }
    let Ok(record) = record else { return };
    let _ = M::to_item(&record.entity);
    let _ = M::key(&record.entity);
    if let Ok(written) = M::record_to_item(&record) {
        assert!(item_size(&written) <= 400 * 1024);
        for (name, value) in record.bag.iter() {
            assert!(
                written.get(name) == Some(value) || M::owns_attribute(name),
                "{}: bag attribute {name} lost",
                M::ENTITY_TYPE
            );
        }
        match M::from_item(written) {
            Ok(back) => assert_eq!(back, record.entity, "{}", M::ENTITY_TYPE),
            Err(e) => panic!(
                "{}: a written record does not read back: {e:#}",
                M::ENTITY_TYPE
            ),
        }
    }
}

fuzz_target!(|input: (u8, FuzzItem)| {
    let (mapper, FuzzItem(item)) = input;
    // One mapper per input: the same coverage, sixteen times the speed.
    match mapper % 16 {
        0 => check::<CustomerMapper>(&item),
        1 => check::<OrderMapper>(&item),
        2 => check::<SessionMapper>(&item),
        3 => check::<ProductMapper>(&item),
        4 => check::<ProductReviewMapper>(&item),
        5 => check::<CounterMapper>(&item),
        6 => check::<UserMapper>(&item),
        7 => check::<UserMetadataMapper>(&item),
        8 => check::<TenantOrderMapper>(&item),
        9 => check::<PersonMapper>(&item),
        10 => check::<EmployeeMapper>(&item),
        11 => check::<ManagerMapper>(&item),
        12 => check::<InvoiceMapper>(&item),
        13 => check::<InvoiceItemMapper>(&item),
        14 => check::<InvoiceStatusMapper>(&item),
        _ => check::<InvoiceSummaryMapper>(&item),
    }
});
