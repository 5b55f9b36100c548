//! What a Lambda function's cold start pays to get a registry ready: 20
//! entity types on one table, each declaring its keys once in
//! `KEY_PATTERNS` (table keys and one GSI), registered and built, with the
//! per-type caches (field lists, key plans) filled on first use.
//!
//! Not a criterion bench, for the same reason as `instructions.rs`: a cold
//! start happens once per process. `scripts/cold_start.sh` counts the
//! instructions of the first build under callgrind (the process with one
//! build minus the process with none) and of later builds, and times the
//! first build in 21 fresh processes (median). By hand:
//! `cargo bench --bench cold_start -- <builds>` prints the first build's
//! time.

use std::hint::black_box;
use std::time::Instant;

use dynamodb_mapper::{GlobalSecondaryIndex, IndexKeys, KeyPattern, Mapper, Registry, TableSchema};
use serde::{Deserialize, Serialize};

const SCHEMA: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);

/// One entity type `$entity` with mapper `$mapper`, its keys under the
/// type tag `$tag`.
macro_rules! entity {
    ($entity:ident, $mapper:ident, $tag:literal) => {
        #[derive(Debug, Serialize, Deserialize)]
        pub struct $entity {
            id: String,
            parent: String,
            at: String,
            note: Option<String>,
        }

        pub struct $mapper;

        impl Mapper for $mapper {
            type Entity = $entity;
            const ENTITY_TYPE: &'static str = stringify!($entity);
            const SCHEMA: TableSchema = SCHEMA;
            const KEY_PATTERNS: &'static [IndexKeys] = &[
                IndexKeys::table(KeyPattern::partition(concat!($tag, "#{id}")))
                    .sort(KeyPattern::sort(concat!($tag, "#META"))),
                IndexKeys::index(
                    "GSI1",
                    KeyPattern::partition(concat!($tag, "_BY_PARENT#{parent}")),
                )
                .sort(KeyPattern::sort("{at}")),
            ];
        }
    };
}

entity!(E01, M01, "E01");
entity!(E02, M02, "E02");
entity!(E03, M03, "E03");
entity!(E04, M04, "E04");
entity!(E05, M05, "E05");
entity!(E06, M06, "E06");
entity!(E07, M07, "E07");
entity!(E08, M08, "E08");
entity!(E09, M09, "E09");
entity!(E10, M10, "E10");
entity!(E11, M11, "E11");
entity!(E12, M12, "E12");
entity!(E13, M13, "E13");
entity!(E14, M14, "E14");
entity!(E15, M15, "E15");
entity!(E16, M16, "E16");
entity!(E17, M17, "E17");
entity!(E18, M18, "E18");
entity!(E19, M19, "E19");
entity!(E20, M20, "E20");

/// What the registry decodes into: the entity type's name, enough for a
/// dispatch bench.
type Name = &'static str;

fn build() -> Registry<Name> {
    Registry::builder()
        .register::<M01>(|_| "E01")
        .register::<M02>(|_| "E02")
        .register::<M03>(|_| "E03")
        .register::<M04>(|_| "E04")
        .register::<M05>(|_| "E05")
        .register::<M06>(|_| "E06")
        .register::<M07>(|_| "E07")
        .register::<M08>(|_| "E08")
        .register::<M09>(|_| "E09")
        .register::<M10>(|_| "E10")
        .register::<M11>(|_| "E11")
        .register::<M12>(|_| "E12")
        .register::<M13>(|_| "E13")
        .register::<M14>(|_| "E14")
        .register::<M15>(|_| "E15")
        .register::<M16>(|_| "E16")
        .register::<M17>(|_| "E17")
        .register::<M18>(|_| "E18")
        .register::<M19>(|_| "E19")
        .register::<M20>(|_| "E20")
        .build()
        .expect("a valid design")
}

fn main() {
    let builds: usize = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .find_map(|a| a.parse().ok())
        .unwrap_or(1);
    if builds == 0 {
        return;
    }
    let started = Instant::now();
    let first = build();
    let cold = started.elapsed();
    black_box(&first);
    for _ in 1..builds {
        black_box(build());
    }
    println!("first build: {} µs", cold.as_micros());
}
