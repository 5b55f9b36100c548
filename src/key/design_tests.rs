//! The key analysis on whole designs: which keys a pattern can start with
//! or share with another, and the overlaps between the entity types of a
//! design (the seed designs, and the pitfalls they warn about). The
//! registry reports these when it is built; here they are checked one by
//! one.

use proptest::prelude::*;

use super::encoding::Encoding;
use super::format::KeyFormat;
use super::index_keys::IndexKeys;
use super::overlap::{AllowedOverlap, KeyDeclaration, Overlap, OverlapKind, find_overlaps};
use super::pattern::KeyPattern;
use crate::error::ErrorKind;

const LINE_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");

/// A text component a pattern renders: heavy on delimiters and escape
/// characters, plus arbitrary text.
fn component() -> impl Strategy<Value = String> {
    prop_oneof!["[A#\\\\]{1,6}", "[a-z0-9#\\\\|~]{1,8}", "\\PC{1,6}",]
}

#[test]
fn placeholders_and_constant_prefix() {
    const EVERYTHING: KeyPattern =
        KeyPattern::sort("E#{id}#v{version:u2}x#{delta:i3}#{at:ts3}#{label}");
    assert_eq!(
        EVERYTHING.placeholders().unwrap(),
        [
            ("id", Encoding::Text),
            ("version", Encoding::Unsigned { width: 2 }),
            ("delta", Encoding::Signed { width: 3 }),
            ("at", Encoding::Timestamp { fraction_digits: 3 }),
            ("label", Encoding::Text),
        ]
    );
    assert_eq!(EVERYTHING.constant_prefix().unwrap(), "E#");
}

#[test]
fn an_invalid_pattern_or_format_fails_validation() {
    assert_eq!(
        KeyPattern::sort("A#{id")
            .validate()
            .unwrap_err()
            .to_string(),
        "key pattern `A#{id` is invalid: it has an unclosed `{` at byte 2"
    );
    let bad_format = KeyPattern::sort("A:{x}").with_format(KeyFormat::new().with_delimiter(':'));
    assert!(bad_format.validate().is_err());
    assert!(LINE_SK.validate().is_ok());
}

/// Arbitrary template text, malformed ones included: literals, delimiters,
/// braces, format specs and escapes.
fn any_template() -> impl Strategy<Value = &'static str> {
    "[AB#{}:uits0-9x\\\\|]{0,14}".prop_map(|t| &*Box::leak(t.into_boxed_str()))
}

proptest! {
    /// The analysis on any template, valid or not, with any format and any
    /// key text: an answer or an error, never a panic.
    #[test]
    fn the_analysis_never_panics(
        a in any_template(),
        b in any_template(),
        key in "[AB#{}:0-9x\\\\|-]{0,16}",
        delimiter in prop::sample::select(vec!['#', '|', ':', '\\']),
    ) {
        let format = KeyFormat::new().with_delimiter(delimiter);
        let pattern = KeyPattern::sort(a).with_format(format);
        let other = KeyPattern::sort(b);
        let _ = pattern.validate();
        let _ = pattern.constant_prefix();
        let _ = pattern.placeholders();
        prop_assert_eq!(pattern.matches(&key), pattern.parse(&key).is_ok());
        let _ = pattern.can_start_with(&key);
        let _ = pattern.intersects(&other);
        let design = [
            KeyDeclaration::new("A", IndexKeys::table(KeyPattern::partition(b)).sort(pattern)),
            KeyDeclaration::new("B", IndexKeys::table(KeyPattern::partition(a)).sort(other)),
        ];
        let _ = find_overlaps(&design, &[]);
    }

    #[test]
    fn matches_agrees_with_parse(key in "[A-Z0-9#\\\\]{0,24}") {
        for pattern in [
            LINE_SK,
            KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}"),
            KeyPattern::partition("A#{x}#{n:i2}"),
            KeyPattern::sort("V#v{n:u2}x"),
            KeyPattern::sort("{a}"),
            KeyPattern::sort("ORDER"),
        ] {
            prop_assert_eq!(pattern.matches(&key), pattern.parse(&key).is_ok(), "{} {:?}", pattern, key);
        }
    }

    #[test]
    fn rendered_keys_are_in_the_pattern_language(id in component(), line in 0u64..1000) {
        let key = LINE_SK.with("order_id", &id).with("line", line).render().unwrap();
        prop_assert!(LINE_SK.can_start_with(&key).unwrap());
        let exact = KeyPattern::sort("ORDER#{a}#LINE#{b:u3}");
        prop_assert!(exact.intersects(&LINE_SK).unwrap());
    }
}

#[test]
fn pattern_languages() {
    let p = |t: &'static str| KeyPattern::partition(t);
    // Text values cannot hold a bare delimiter, so these never meet.
    assert!(!p("USER#{id}").intersects(&p("{name}")).unwrap());
    assert!(p("USER#{id}").intersects(&p("{a}#{b}")).unwrap());
    assert!(!p("USER#{id}").intersects(&p("{a}#{b}#{c}")).unwrap());
    assert!(p("TENANT#{t}").intersects(&p("TENANT#acme")).unwrap());
    assert!(!p("STATUS#{s}").intersects(&p("ROLE#{r}")).unwrap());
    assert!(p("POST").intersects(&p("{anything}")).unwrap());
    assert!(!p("ITEM#{n:u3}").intersects(&p("ITEM#{m:u4}")).unwrap());
    assert!(p("ITEM#{n:u3}").intersects(&p("ITEM#{m}")).unwrap());
    assert!(!p("ITEM#{n:u3}").intersects(&p("ITEM#SUMMARY")).unwrap());
    assert!(p("D#{d:i2}").intersects(&p("D#N{x}")).unwrap());
    assert!(!p("D#{d:i2}").intersects(&p("D#-{x}")).unwrap());
    assert!(p("AT#{t:ts}").intersects(&p("AT#2024-{rest}")).unwrap());
    assert!(!p("AT#{t:ts}").intersects(&p("AT#{d:ts3}")).unwrap());
    // A negative number's digits are never all zero: `N0` starts no `i1`
    // key (-9 is `N1`), but starts `i2` keys (`N01` is -99); `N00` none.
    assert!(!p("{d:i1}").can_start_with("N0").unwrap());
    assert!(p("{d:i2}").can_start_with("N0").unwrap());
    assert!(!p("{d:i2}").can_start_with("N00").unwrap());
    // Escapes are part of the language.
    assert!(p("A#{x}").can_start_with(r"A#\#").unwrap());
    assert!(!p("A#{x}").can_start_with(r"A#\y").unwrap());
    assert!(!p("A#{x}").can_start_with("A##").unwrap());
}

// ------------------------------------------------------------ overlaps

fn pairs(found: &[Overlap]) -> Vec<(OverlapKind, Option<&str>, &str, &str, &str)> {
    found
        .iter()
        .map(|o| {
            (
                o.kind,
                o.index.as_deref(),
                o.queried.as_str(),
                o.returned.as_str(),
                o.prefix.as_str(),
            )
        })
        .collect()
}

const fn table(
    entity_type: &'static str,
    pk: &'static str,
    sk: &'static str,
) -> KeyDeclaration<'static> {
    KeyDeclaration::new(
        entity_type,
        IndexKeys::table(KeyPattern::partition(pk)).sort(KeyPattern::sort(sk)),
    )
}

const fn gsi(
    entity_type: &'static str,
    index: &'static str,
    pk: &'static str,
    sk: &'static str,
) -> KeyDeclaration<'static> {
    KeyDeclaration::new(
        entity_type,
        IndexKeys::index(index, KeyPattern::partition(pk)).sort(KeyPattern::sort(sk)),
    )
}

/// Seed 002: one tenant partition holding the tenant, its members, invoices
/// and audit events; GSI1 lists invoices by status and members by role.
const SEED_002: &[KeyDeclaration<'static>] = &[
    table("Tenant", "TENANT#{tenant_id}", "META"),
    table("User", "TENANT#{tenant_id}", "USER#{user_id}"),
    table("Invoice", "TENANT#{tenant_id}", "INVOICE#{invoice_id}"),
    table("Event", "TENANT#{tenant_id}", "EVENT#{at:ts}"),
    gsi("Invoice", "GSI1", "STATUS#{status}", "{due_date}"),
    gsi("User", "GSI1", "ROLE#{role}", "{user_id}"),
];

#[test]
fn seed_002_tenant_table_has_no_overlaps() {
    assert_eq!(find_overlaps(SEED_002, &[]).unwrap(), []);

    // The pitfall the seed warns about: `USER#` and `USERGROUP#` are safe
    // because of the delimiter...
    let mut design = SEED_002.to_vec();
    design.push(table(
        "UserGroup",
        "TENANT#{tenant_id}",
        "USERGROUP#{group_id}",
    ));
    assert_eq!(find_overlaps(&design, &[]).unwrap(), []);
    // ...but a prefix without it, `begins_with(sk, "USER")`, collides.
    let group = KeyPattern::sort("USERGROUP#{group_id}");
    assert!(group.can_start_with("USER").unwrap());
    assert!(!group.can_start_with("USER#").unwrap());
    design.push(table("UserDirectory", "TENANT#{tenant_id}", "USER"));
    assert_eq!(
        pairs(&find_overlaps(&design, &[]).unwrap()),
        [
            (OverlapKind::Prefix, None, "UserDirectory", "User", "USER"),
            (
                OverlapKind::Prefix,
                None,
                "UserDirectory",
                "UserGroup",
                "USER"
            ),
        ]
    );

    // A payment sharing the STATUS# partitions on GSI1: the invoice's sort
    // key has no constant prefix, so its query also returns payments (the
    // payment's `PAYMENT#` prefix cannot match an invoice due date).
    let mut design = SEED_002.to_vec();
    design.push(gsi(
        "Payment",
        "GSI1",
        "STATUS#{status}",
        "PAYMENT#{payment_id}",
    ));
    let found = find_overlaps(&design, &[]).unwrap();
    assert_eq!(
        pairs(&found),
        [(
            OverlapKind::NoPrefix,
            Some("GSI1"),
            "Invoice",
            "Payment",
            ""
        )]
    );
    assert_eq!(
        found[0].to_string(),
        "index GSI1: the sort key `{due_date}` of Invoice has no constant prefix, so a query for it also \
         returns Payment items (sort key `PAYMENT#{payment_id}`); their partition keys `STATUS#{status}` \
         and `STATUS#{status}` can be equal"
    );
    assert_eq!(
        find_overlaps(
            &design,
            &[AllowedOverlap::new("Invoice", "Payment").on_index("GSI1")]
        )
        .unwrap(),
        []
    );
    assert_eq!(
        find_overlaps(
            &design,
            &[AllowedOverlap::new("Invoice", "Payment").on_table()]
        )
        .unwrap()
        .len(),
        1
    );
}

/// Seed 003's blog: users, posts, comments and tags, with GSI1.
const SEED_003_BLOG: &[KeyDeclaration<'static>] = &[
    table("User", "USER#{username}", "USER#{username}"),
    table("Post", "USER#{username}", "POST#{post_id}"),
    gsi("Post", "GSI1", "POST", "STATUS#{published}#{post_id}"),
    table("Comment", "POST#{post_id}", "COMMENT#{comment_id}"),
    gsi("Comment", "GSI1", "USER#{username}", "COMMENT#{comment_id}"),
    table("PostTag", "POST#{post_id}", "TAG#{tag}"),
    gsi("PostTag", "GSI1", "TAG#{tag}", "POST#{post_id}"),
];

#[test]
fn seed_003_blog_has_no_overlaps() {
    assert_eq!(find_overlaps(SEED_003_BLOG, &[]).unwrap(), []);

    // Its e-commerce and many-to-many designs have none either.
    let shop = [
        table(
            "Customer",
            "CUSTOMER#{customer_id}",
            "CUSTOMER#{customer_id}",
        ),
        table("Order", "CUSTOMER#{customer_id}", "ORDER#{order_id}"),
        table("OrderItem", "ORDER#{order_id}", "ITEM#{product_id}"),
        table("Product", "PRODUCT#{product_id}", "PRODUCT#{product_id}"),
        table("Inventory", "PRODUCT#{product_id}", "INVENTORY#{location}"),
        table("Group", "GROUP#{group}", "GROUP#{group}"),
        table("Membership", "USER#{username}", "MEMBER#GROUP#{group}"),
        table("GroupMember", "GROUP#{group}", "MEMBER#USER#{username}"),
    ];
    assert_eq!(find_overlaps(&shop, &[]).unwrap(), []);

    // Its hierarchical pattern: reactions sort under their comment.
    let hierarchy = [
        table("Post", "POST#{post_id}", "POST#{post_id}"),
        table("Comment", "POST#{post_id}", "COMMENT#{comment_id}"),
        table(
            "Reaction",
            "POST#{post_id}",
            "COMMENT#{comment_id}#REACTION#{reaction_id}",
        ),
    ];
    let found = find_overlaps(&hierarchy, &[]).unwrap();
    assert_eq!(
        pairs(&found),
        [
            (OverlapKind::Prefix, None, "Comment", "Reaction", "COMMENT#"),
            (OverlapKind::Prefix, None, "Reaction", "Comment", "COMMENT#"),
        ]
    );
    assert_eq!(
        found[0].to_string(),
        "table: begins_with(sort key, \"COMMENT#\") for Comment (sort key `COMMENT#{comment_id}`) also returns \
         Reaction items (sort key `COMMENT#{comment_id}#REACTION#{reaction_id}`); their partition keys \
         `POST#{post_id}` and `POST#{post_id}` can be equal"
    );
    let allowed = [AllowedOverlap::new("Comment", "Reaction").both_ways()];
    assert_eq!(find_overlaps(&hierarchy, &allowed).unwrap(), []);
}

/// Seed 004's hierarchical customer partition, as its mappers declare it
/// (`support/src/seed004`): profile, then order header, lines, payment and
/// shipment under `ORDER#<id>`; plus a preferences item.
const SEED_004_ORDERS: &[KeyDeclaration<'static>] = &[
    table("Customer", "CUSTOMER#{customer_id}", "PROFILE"),
    table("Order", "CUSTOMER#{customer_id}", "ORDER#{order_id}"),
    table(
        "OrderLine",
        "CUSTOMER#{customer_id}",
        "ORDER#{order_id}#LINE#{line_number:u3}",
    ),
    table(
        "Payment",
        "CUSTOMER#{customer_id}",
        "ORDER#{order_id}#PAYMENT",
    ),
    table(
        "Shipment",
        "CUSTOMER#{customer_id}",
        "ORDER#{order_id}#SHIPMENT",
    ),
    table("Preferences", "CUSTOMER#{customer_id}", "PREFERENCES"),
];

#[test]
fn seed_004_orders_overlap_under_the_order_prefix() {
    let found = find_overlaps(SEED_004_ORDERS, &[]).unwrap();
    let order_types = ["Order", "OrderLine", "Payment", "Shipment"];
    let mut expected = Vec::new();
    for q in order_types {
        for r in order_types {
            if q != r {
                expected.push((OverlapKind::Prefix, None, q, r, "ORDER#"));
            }
        }
    }
    assert_eq!(pairs(&found), expected);

    // The header query reading its whole collection is the point of the
    // design: acknowledge it, and the line/payment/shipment overlaps remain.
    let allowed = [
        AllowedOverlap::new("Order", "OrderLine"),
        AllowedOverlap::new("Order", "Payment"),
        AllowedOverlap::new("Order", "Shipment"),
    ];
    let found = find_overlaps(SEED_004_ORDERS, &allowed).unwrap();
    assert_eq!(found.len(), 9);
    assert!(found.iter().all(|o| o.queried != "Order"));
    let all: Vec<AllowedOverlap<'_>> = order_types
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            order_types[i + 1..]
                .iter()
                .map(move |b| AllowedOverlap::new(a, b).both_ways())
        })
        .collect();
    assert_eq!(find_overlaps(SEED_004_ORDERS, &all).unwrap(), []);

    // Other customers' partitions never mix in: a product catalogue with the
    // same sort keys but another partition key.
    let mut design = SEED_004_ORDERS.to_vec();
    design.push(table(
        "CatalogOrder",
        "CATALOG#{catalog_id}",
        "ORDER#{order_id}",
    ));
    assert_eq!(find_overlaps(&design, &all).unwrap(), []);
}

#[test]
fn seed_004_invoices_and_events_have_no_overlaps() {
    let invoices = [
        table("Invoice", "INVOICE#{invoice_id}", "METADATA"),
        table("InvoiceItem", "INVOICE#{invoice_id}", "ITEM#{line:u3}"),
        table("InvoiceStatus", "INVOICE#{invoice_id}", "STATUS#{at:ts}"),
        table("InvoiceSummary", "INVOICE#{invoice_id}", "SUMMARY"),
        table("Order", "ORDER#{order_id}", "METADATA"),
        table("OrderEvent", "ORDER#{order_id}", "EVENT#{at:ts}"),
    ];
    assert_eq!(find_overlaps(&invoices, &[]).unwrap(), []);
}

#[test]
fn seed_000_user_and_metadata_overlap_both_ways() {
    let design = [
        table("User", "TENANT#{tenant_id}", "USER#{user_id}"),
        table(
            "UserMetadata",
            "TENANT#{tenant_id}",
            "USER#{user_id}#METADATA",
        ),
        table("Order", "TENANT#{tenant_id}", "ORDER#{date}#{order_id}"),
    ];
    assert_eq!(
        pairs(&find_overlaps(&design, &[]).unwrap()),
        [
            (OverlapKind::Prefix, None, "User", "UserMetadata", "USER#"),
            (OverlapKind::Prefix, None, "UserMetadata", "User", "USER#"),
        ]
    );
}

#[test]
fn table_key_collisions_are_always_reported() {
    let design = [
        table("Customer", "CUSTOMER#{id}", "METADATA"),
        table("LegacyCustomer", "CUSTOMER#{id}", "METADATA"),
        // Same sort key, different partition: no collision.
        table("Product", "PRODUCT#{id}", "METADATA"),
    ];
    let found = find_overlaps(&design, &[]).unwrap();
    assert_eq!(
        pairs(&found),
        [(
            OverlapKind::SameKey,
            None,
            "Customer",
            "LegacyCustomer",
            "METADATA"
        )]
    );
    assert_eq!(
        found[0].to_string(),
        "table: Customer (sort key `METADATA`) and LegacyCustomer (sort key `METADATA`) can write the same \
         primary key, so one overwrites the other; their partition keys `CUSTOMER#{id}` and `CUSTOMER#{id}` \
         can be equal"
    );
    let allowed = [AllowedOverlap::new("Customer", "LegacyCustomer").both_ways()];
    assert_eq!(find_overlaps(&design, &allowed).unwrap(), found);

    // Tables without a sort key: equal partition keys are equal keys.
    let by_pk = [
        KeyDeclaration::new("A", IndexKeys::table(KeyPattern::partition("K#{x}"))),
        KeyDeclaration::new("B", IndexKeys::table(KeyPattern::partition("K#{y:u3}"))),
    ];
    assert_eq!(
        pairs(&find_overlaps(&by_pk, &[]).unwrap()),
        [(OverlapKind::SameKey, None, "A", "B", "")]
    );

    // On an index, equal keys are allowed: it is a plain overlap.
    let on_index = [
        gsi("Customer", "GSI1", "EMAIL#{email}", "PROFILE"),
        gsi("Admin", "GSI1", "EMAIL#{email}", "PROFILE"),
    ];
    assert_eq!(
        pairs(&find_overlaps(&on_index, &[]).unwrap()),
        [
            (
                OverlapKind::Prefix,
                Some("GSI1"),
                "Customer",
                "Admin",
                "PROFILE"
            ),
            (
                OverlapKind::Prefix,
                Some("GSI1"),
                "Admin",
                "Customer",
                "PROFILE"
            ),
        ]
    );
}

#[test]
fn overlaps_are_per_index_and_skip_alternatives_of_one_type() {
    // A product writes one of two GSI1 partitions depending on its state;
    // both are declared, neither overlaps the product itself.
    let design = [
        gsi("Product", "GSI1", "ACTIVE_PRODUCT", "{name}"),
        gsi("Product", "GSI1", "ARCHIVED_PRODUCT", "{archived_at:ts}"),
        gsi("Session", "GSI1", "ACTIVE_SESSION", "{expires_at:u20}"),
        gsi("Order", "GSI2", "ORDER", "{created_at:ts}"),
        gsi("Review", "GSI2", "REVIEW", "{rating:u1}#{created_at:ts}"),
        gsi("Product", "GSI2", "PRODUCT", "{price:u12}"),
        table("Order", "CUSTOMER#{id}", "ORDER#{order_id}"),
    ];
    assert_eq!(find_overlaps(&design, &[]).unwrap(), []);

    // The same two types overlap on one index and not on another; the table
    // comes first, then indexes in order of first declaration.
    let design = [
        gsi("A", "GSI2", "P", "X#{x}"),
        gsi("B", "GSI2", "P", "X#{y}#Y"),
        gsi("A", "GSI1", "Q#{q}", "{x}"),
        gsi("B", "GSI1", "R#{r}", "{y}"),
        table("A", "T", "A"),
        table("B", "T", "AB"),
    ];
    assert_eq!(
        pairs(&find_overlaps(&design, &[]).unwrap()),
        [
            (OverlapKind::Prefix, None, "A", "B", "A"),
            (OverlapKind::Prefix, Some("GSI2"), "A", "B", "X#"),
            (OverlapKind::Prefix, Some("GSI2"), "B", "A", "X#"),
        ]
    );
}

#[test]
fn invalid_patterns_fail_the_analysis_with_the_entity_type() {
    let design = [
        table("Customer", "CUSTOMER#{id}", "PROFILE"),
        table("Order", "CUSTOMER#{id}", "ORDER#{order_id"),
    ];
    let err = find_overlaps(&design, &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKeyPattern);
    assert_eq!(err.entity_type(), Some("Order"));
    assert_eq!(
        err.to_string(),
        "Order: key pattern `ORDER#{order_id` is invalid: it has an unclosed `{` at byte 6"
    );
}
