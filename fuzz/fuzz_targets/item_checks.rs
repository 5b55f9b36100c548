//! The checks every write goes through (keys, numbers, sets, names,
//! nesting, size) and the typed getters, on arbitrary items: never a panic,
//! and an accepted item is within DynamoDB's size limit.
#![no_main]

use dynamodb_mapper::{
    GlobalSecondaryIndex, Item, ItemExt, Mapper, MapperExt, ScalarType, TableSchema, item_size,
};
use dynamodb_mapper_support::fuzz::FuzzItem;
use dynamodb_mapper_support::raw::Raw;
use dynamodb_mapper_support::raw_mapper;
use libfuzzer_sys::fuzz_target;

const STRING_KEYS: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[
        GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
        GlobalSecondaryIndex::new("GSI3", "gsi3pk"),
    ])
    .ttl("ttl")
    .version("version");

const NUMBER_KEYS: TableSchema = TableSchema::new("pk")
    .partition_key_type(ScalarType::N)
    .typed_sort_key("sk", ScalarType::B)
    .without_discriminator();

raw_mapper!(StringKeys, STRING_KEYS);
raw_mapper!(NumberKeys, NUMBER_KEYS);

fn check<M: Mapper<Entity = Raw>>(item: &Item) {
    let raw = Raw {
        attributes: item.clone(),
    };
    match M::to_item(&raw) {
        Ok(written) => {
            assert!(item_size(&written) <= 400 * 1024);
            assert!(M::SCHEMA.check_item(&written).is_ok());
            assert!(M::SCHEMA.key_of(&written).is_ok());
        }
        Err(e) => {
            assert_eq!(e.entity_type(), Some("Raw"));
            let _ = e.to_string();
        }
    }
    let _ = M::SCHEMA.key_of(item);
}

fuzz_target!(|input: FuzzItem| {
    let item = &input.0;
    check::<StringKeys>(item);
    check::<NumberKeys>(item);
    let _ = item_size(item);
    for name in item.keys() {
        let _ = item.get_str(name);
        let _ = item.get_opt_str(name);
        let _ = item.get_number::<u64>(name);
        let _ = item.get_number::<i8>(name);
        let _ = item.get_number::<f64>(name);
        let _ = item.get_bool(name);
        let _ = item.get_bytes(name);
        let _ = item.get_ttl(name).map_err(|e| e.to_string());
    }
});
