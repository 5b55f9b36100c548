//! Unique values kept by sentinel items (`Mapper::UNIQUE`), on the
//! emulator: concurrent creates, updates that move a value, deletes that
//! free it, the refusals of paths that cannot keep sentinels, the wire's
//! faults between the steps, and no extra request when no value moves.

use std::collections::BTreeSet;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::expr::{Update, attr};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    Decoded, ErrorDetails, ErrorKind, Item, ItemExt, Mapper, MapperExt, Record, Registry,
    TableSchema, Unique, Unmatched,
};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::requests::fast_retry;
use dynamodb_mapper_testkit::{Fault, Wire};
use serde::{Deserialize, Serialize};

const USERS: TableSchema = TableSchema::new("pk").sort_key("sk").version("version");
const ACCOUNTS: TableSchema = TableSchema::new("pk").sort_key("sk");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct User {
    id: String,
    email: String,
    tenant: String,
    nick: Option<String>,
}

/// Versioned users: one email per user, one nickname per tenant.
struct UserMapper;

impl Mapper for UserMapper {
    type Entity = User;
    const ENTITY_TYPE: &'static str = "User";
    const SCHEMA: TableSchema = USERS;
    const UNIQUE: &'static [Unique] = &[
        Unique::new("email", &["email"]),
        Unique::new("nick", &["tenant", "nick"]),
    ];

    fn after_to_item(u: &User, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("USER#{}", u.id));
        item.put_str("sk", "USER");
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Account {
    id: String,
    username: String,
    plan: String,
}

/// Unversioned accounts with a unique username.
struct AccountMapper;

impl Mapper for AccountMapper {
    type Entity = Account;
    const ENTITY_TYPE: &'static str = "Account";
    const SCHEMA: TableSchema = ACCOUNTS;
    const UNIQUE: &'static [Unique] = &[Unique::new("username", &["username"])];

    fn after_to_item(a: &Account, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("ACCOUNT#{}", a.id));
        item.put_str("sk", "ACCOUNT");
        Ok(())
    }
}

fn user(id: &str, email: &str) -> User {
    User {
        id: id.into(),
        email: email.into(),
        tenant: "acme".into(),
        nick: None,
    }
}

/// Every item of the table, read past any wire: `pk`s of entities, and the
/// sentinels as `constraint → owner pk`.
async fn contents(client: &Client, table: &str) -> (BTreeSet<String>, BTreeSet<(String, String)>) {
    let mut entities = BTreeSet::new();
    let mut sentinels = BTreeSet::new();
    for item in local::scan_all(client, table).await {
        let pk = item.get_str("pk").unwrap().to_owned();
        match item.get("uniqueOwner") {
            Some(AttributeValue::M(owner)) => {
                let owner = owner.get_str("pk").unwrap().to_owned();
                sentinels.insert((pk, owner));
            }
            _ => {
                entities.insert(pk);
            }
        }
    }
    (entities, sentinels)
}

/// A registry of the users.
fn users() -> Registry<User> {
    Registry::<User>::builder()
        .register::<UserMapper>(std::convert::identity)
        .build()
        .unwrap()
}

fn sentinel(constraint: &str, value: &str, owner: &str) -> (String, String) {
    (
        format!("UNIQUE#User#{constraint}#{value}"),
        owner.to_owned(),
    )
}

#[tokio::test]
async fn sixteen_concurrent_creates_of_one_email_make_one_winner_and_fifteen_violations() {
    let (client, t) = local::client_and_table("unique_race", USERS).await;
    let table = Table::new(&client, &t, USERS);
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let table = table.clone();
            tokio::spawn(async move {
                let mut record = Record::new(user(&format!("U{i:02}"), "ada@example.com"));
                table.put_record::<UserMapper>(&mut record).await.map(|_| i)
            })
        })
        .collect();
    let (mut won, mut violations) = (Vec::new(), Vec::new());
    for task in tasks {
        match task.await.unwrap() {
            Ok(i) => won.push(i),
            Err(e) => violations.push(e),
        }
    }
    assert_eq!(won.len(), 1, "{violations:?}");
    let winner = format!("USER#U{:02}", won[0]);
    assert_eq!(violations.len(), 15);
    for e in &violations {
        assert_eq!(e.kind(), ErrorKind::UniqueViolation, "{e}");
        let ErrorDetails::UniqueViolation {
            constraint,
            value,
            holder,
            ..
        } = e.details()
        else {
            panic!("{e:?}");
        };
        assert_eq!(
            (*constraint, value.as_str()),
            ("email", "\"ada@example.com\"")
        );
        let holder = holder.as_ref().expect("the sentinel names its owner");
        assert_eq!(holder.get_str("pk").unwrap(), winner);
        assert_eq!(e.entity_type(), Some("User"));
        assert!(
            e.to_string().contains(&format!(
                "unique constraint `email`: \"ada@example.com\" is held by pk=\"{winner}\""
            )),
            "{e}"
        );
    }
    let (entities, sentinels) = contents(&client, &t).await;
    assert_eq!(entities, BTreeSet::from([winner.clone()]));
    assert_eq!(
        sentinels,
        BTreeSet::from([sentinel("email", "ada@example.com", &winner)])
    );
}

#[tokio::test]
async fn an_update_frees_the_old_value_and_holds_the_new_one_and_a_delete_frees_it() {
    let (client, t) = local::client_and_table("unique_move", USERS).await;
    let table = Table::new(&client, &t, USERS);
    let mut ada = Record::new(user("ADA", "ada@example.com"));
    table.put_record::<UserMapper>(&mut ada).await.unwrap();

    // update_record moves the email: the old one is free, the new one held.
    let mut moved = ada.entity.clone();
    moved.email = "ada@lovelace.example".into();
    table
        .update_record::<UserMapper>(&mut ada, moved)
        .await
        .unwrap();
    let mut bob = Record::new(user("BOB", "ada@example.com"));
    table
        .put_record::<UserMapper>(&mut bob)
        .await
        .expect("the old email is free");
    let mut eve = Record::new(user("EVE", "ada@lovelace.example"));
    let err = table
        .put_record::<UserMapper>(&mut eve)
        .await
        .expect_err("held");
    assert_eq!(err.kind(), ErrorKind::UniqueViolation);

    // update_with_retry and put_record of a record read move it too.
    table
        .update_with_retry::<UserMapper, _>(UserMapper::key(&ada.entity).unwrap(), |r| {
            r.entity.email = "countess@example.com".into();
            Ok(())
        })
        .await
        .unwrap();
    let mut read = table
        .get_record::<UserMapper>(UserMapper::key(&ada.entity).unwrap())
        .await
        .unwrap()
        .unwrap();
    read.entity.nick = Some("ada".into());
    table.put_record::<UserMapper>(&mut read).await.unwrap();
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([
            sentinel("email", "countess@example.com", "USER#ADA"),
            sentinel("email", "ada@example.com", "USER#BOB"),
            sentinel("nick", "acme#ada", "USER#ADA"),
        ])
    );

    // Bob cannot take Ada's nickname in her tenant; in another tenant he can.
    let mut bob2 = bob.entity.clone();
    bob2.nick = Some("ada".into());
    let err = table
        .update_record::<UserMapper>(&mut bob, bob2.clone())
        .await
        .expect_err("held");
    let ErrorDetails::UniqueViolation {
        constraint, value, ..
    } = err.details()
    else {
        panic!("{err:?}");
    };
    assert_eq!((*constraint, value.as_str()), ("nick", "\"acme\", \"ada\""));
    bob2.tenant = "globex".into();
    table
        .update_record::<UserMapper>(&mut bob, bob2)
        .await
        .expect("another tenant");

    // A delete frees every value of the item.
    table.delete_record::<UserMapper>(&read).await.unwrap();
    let mut carl = Record::new(User {
        nick: Some("ada".into()),
        ..user("CARL", "countess@example.com")
    });
    table
        .put_record::<UserMapper>(&mut carl)
        .await
        .expect("freed by the delete");
    let (entities, sentinels) = contents(&client, &t).await;
    assert_eq!(
        entities,
        BTreeSet::from(["USER#BOB".to_owned(), "USER#CARL".to_owned()])
    );
    assert_eq!(
        sentinels,
        BTreeSet::from([
            sentinel("email", "ada@example.com", "USER#BOB"),
            sentinel("nick", "globex#ada", "USER#BOB"),
            sentinel("email", "countess@example.com", "USER#CARL"),
            sentinel("nick", "acme#ada", "USER#CARL"),
        ])
    );
}

#[tokio::test]
async fn an_update_that_moves_no_value_is_one_request_as_without_constraints() {
    let (plain, t) = local::client_and_table("unique_cost", USERS).await;
    let mut ada = Record::new(user("ADA", "ada@example.com"));
    Table::new(&plain, &t, USERS)
        .put_record::<UserMapper>(&mut ada)
        .await
        .unwrap();
    let wire = Wire::new();
    let table = Table::new(&wire.client(&plain), &t, USERS);
    // The tenant is a field of the `nick` constraint, but without a nick
    // that constraint has no value: no sentinel moves.
    let mut moved = ada.entity.clone();
    moved.tenant = "globex".into();
    table
        .update_record::<UserMapper>(&mut ada, moved)
        .await
        .unwrap();
    let sent = wire.exchanges();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert_eq!(sent[0].operation(), "UpdateItem");
}

#[tokio::test]
async fn unversioned_entities_keep_their_sentinels_through_updates_and_deletes() {
    let (client, t) = local::client_and_table("unique_unversioned", ACCOUNTS).await;
    let table = Table::new(&client, &t, ACCOUNTS);
    let a = Account {
        id: "A".into(),
        username: "ada".into(),
        plan: "free".into(),
    };
    assert!(table.put_new::<AccountMapper>(&a).await.unwrap());
    let b = Account {
        id: "B".into(),
        username: "ada".into(),
        plan: "free".into(),
    };
    let err = table.put_new::<AccountMapper>(&b).await.expect_err("taken");
    assert_eq!(err.kind(), ErrorKind::UniqueViolation);
    assert!(
        !table.put_new::<AccountMapper>(&a).await.unwrap(),
        "already there"
    );

    let renamed = Account {
        username: "lovelace".into(),
        ..a.clone()
    };
    table
        .update_entity::<AccountMapper>(&a, &renamed)
        .await
        .unwrap();
    assert!(
        table.put_new::<AccountMapper>(&b).await.unwrap(),
        "the old name is free"
    );
    // An update from a stale `old` (the name changed meanwhile) is refused.
    let stale = Account {
        username: "ada-2".into(),
        ..a.clone()
    };
    let err = table
        .update_entity::<AccountMapper>(&a, &stale)
        .await
        .expect_err("stale");
    assert_eq!(err.kind(), ErrorKind::VersionConflict, "{err}");
    assert!(
        err.to_string().contains("another writer changed them"),
        "{err}"
    );

    let record = table
        .get_record::<AccountMapper>(AccountMapper::key(&renamed).unwrap())
        .await
        .unwrap()
        .unwrap();
    table
        .transaction()
        .delete_record::<AccountMapper>(&record)
        .unwrap()
        .send()
        .await
        .unwrap();
    let c = Account {
        id: "C".into(),
        username: "lovelace".into(),
        plan: "pro".into(),
    };
    assert!(
        table.put_new::<AccountMapper>(&c).await.unwrap(),
        "freed by the delete"
    );
}

#[tokio::test]
async fn paths_that_cannot_keep_sentinels_are_refused_naming_the_helper() {
    let (client, t) = local::client_and_table("unique_refused", ACCOUNTS).await;
    let table = Table::new(&client, &t, ACCOUNTS);
    let a = Account {
        id: "A".into(),
        username: "ada".into(),
        plan: "free".into(),
    };
    let key = AccountMapper::key(&a).unwrap();
    let refusals = [
        table
            .batch_writer()
            .put::<AccountMapper>(std::slice::from_ref(&a))
            .await
            .unwrap_err(),
        table
            .batch_writer()
            .delete::<AccountMapper>(vec![key.clone()])
            .await
            .unwrap_err(),
        table.transaction().put::<AccountMapper>(&a).unwrap_err(),
        table
            .transaction()
            .delete::<AccountMapper>(key.clone())
            .unwrap_err(),
    ];
    for err in refusals {
        assert_eq!(err.kind(), ErrorKind::UniqueCheckRequired, "{err}");
        assert!(
            err.to_string().contains("unique constraint `username`"),
            "{err}"
        );
        assert!(err.to_string().contains("use "), "{err}");
    }
    let raw = table
        .transaction()
        .update::<AccountMapper>(key.clone(), Update::new().set(attr("username"), "eve"))
        .unwrap_err();
    assert_eq!(raw.kind(), ErrorKind::InvalidValue);
    assert_eq!(raw.attribute(), Some("username"));
    assert!(
        raw.to_string().contains("unique constraint `username`"),
        "{raw}"
    );
    // A raw update of another field is fine.
    table
        .transaction()
        .update::<AccountMapper>(key, Update::new().set(attr("plan"), "pro"))
        .expect("not a unique field");
    let (entities, sentinels) = contents(&client, &t).await;
    assert!(entities.is_empty() && sentinels.is_empty(), "nothing sent");
}

#[tokio::test]
async fn a_lost_answer_between_the_steps_cannot_split_entity_and_sentinel() {
    let (plain, t) = local::client_and_table("unique_faults", USERS).await;
    for (n, fault) in [
        Fault::error_after_apply(),
        Fault::drop_after_apply(),
        Fault::conflict(),
    ]
    .into_iter()
    .enumerate()
    {
        let wire = Wire::new()
            .fault(fault.clone().on("TransactWriteItems").times(1))
            .unwrap();
        let table = Table::new(&wire.client(&plain), &t, USERS).retry_policy(fast_retry(5));
        let mut record = Record::new(user(&format!("F{n}"), &format!("f{n}@example.com")));
        table
            .put_record::<UserMapper>(&mut record)
            .await
            .unwrap_or_else(|e| panic!("{fault}: {e}"));
        let (entities, sentinels) = contents(&plain, &t).await;
        let owner = format!("USER#F{n}");
        assert!(entities.contains(&owner), "{fault}");
        assert!(
            sentinels.contains(&sentinel("email", &format!("f{n}@example.com"), &owner)),
            "{fault}"
        );
        // Every send was the one transaction (entity and sentinel together).
        for e in wire.exchanges() {
            assert_eq!(e.operation(), "TransactWriteItems", "{fault}");
            assert_eq!(
                e.request()["TransactItems"].as_array().map(Vec::len),
                Some(2)
            );
        }
    }
    let (entities, sentinels) = contents(&plain, &t).await;
    assert_eq!(
        entities.len(),
        sentinels.len(),
        "one sentinel per entity, none orphaned"
    );
}

#[tokio::test]
async fn a_registry_skips_sentinels_whatever_its_policy() {
    let (client, t) = local::client_and_table("unique_registry", USERS).await;
    let table = Table::new(&client, &t, USERS);
    table
        .put_record::<UserMapper>(&mut Record::new(user("ADA", "ada@example.com")))
        .await
        .unwrap();
    let registry = users();
    let scan = client.scan().table_name(&t).send().await.unwrap();
    let mut sentinels = 0;
    for item in scan.items().iter().cloned() {
        match registry.decode(item).unwrap() {
            Decoded::Entity(u) => assert_eq!(u.id, "ADA"),
            Decoded::Skipped(s) => {
                assert_eq!(
                    s.reason,
                    Unmatched::Sentinel {
                        of: "User.email".into()
                    }
                );
                sentinels += 1;
            }
            Decoded::Raw(r) => panic!("{r:?}"),
        }
    }
    assert_eq!(sentinels, 1);
}

#[test]
fn a_declaration_the_mapper_cannot_keep_is_an_invalid_mapper() {
    struct Bad;
    impl Mapper for Bad {
        type Entity = Account;
        const ENTITY_TYPE: &'static str = "Bad";
        const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
        const UNIQUE: &'static [Unique] = &[
            Unique::new("name", &["usrname"]),
            Unique::new("name", &["plan"]),
        ];
    }
    let err = Bad::check().expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::InvalidMapper);
    let text = err.to_string();
    assert!(
        text.contains("unique constraint `name` names `usrname`, which is not a field"),
        "{text}"
    );
    assert!(
        text.contains("declares the unique constraint `name` twice"),
        "{text}"
    );
}

#[tokio::test]
async fn an_audit_finds_missing_orphaned_and_doubled_values_and_a_backfill_repairs_what_it_can() {
    use dynamodb_mapper::evolve::Finding;
    let (client, t) = local::client_and_table("unique_audit", USERS).await;
    let table = Table::new(&client, &t, USERS);
    for u in [
        user("ADA", "ada@example.com"),
        user("DAN", "dan@example.com"),
        user("EVE", "eve@example.com"),
    ] {
        table
            .put_record::<UserMapper>(&mut Record::new(u))
            .await
            .unwrap();
    }
    // Written around the helpers: a second holder of Ada's email, an item
    // without its sentinel, an owner deleted, an owner whose email changed.
    let raw = |u: User| UserMapper::to_item(&u).unwrap();
    local::put_item(&client, &t, raw(user("BOB", "ada@example.com"))).await;
    local::put_item(&client, &t, raw(user("CARL", "carl@example.com"))).await;
    client
        .delete_item()
        .table_name(&t)
        .set_key(Some(UserMapper::key(&user("DAN", "")).unwrap()))
        .send()
        .await
        .unwrap();
    client
        .update_item()
        .table_name(&t)
        .set_key(Some(UserMapper::key(&user("EVE", "")).unwrap()))
        .update_expression("SET email = :e")
        .expression_attribute_values(":e", AttributeValue::S("eve@lovelace.example".into()))
        .send()
        .await
        .unwrap();

    let registry = users();
    let audit = table.sweep(&registry).page_size(2).audit().await.unwrap();
    let count = |ty: &str, f: Finding| {
        audit
            .types
            .get(ty)
            .and_then(|t| t.findings.get(&f))
            .map_or(0, |found| found.count)
    };
    assert_eq!(
        count("User", Finding::MissingSentinel("email".into())),
        2,
        "{audit}"
    );
    assert_eq!(
        count("User", Finding::DuplicateValue("email".into())),
        1,
        "{audit}"
    );
    assert_eq!(
        count("(unique sentinels)", Finding::OrphanedSentinel),
        2,
        "{audit}"
    );
    assert!(
        audit
            .to_string()
            .contains("\"ada@example.com\" is held by pk=\"USER#ADA\""),
        "{audit}"
    );

    let dry = table.sweep(&registry).dry_run().backfill().await.unwrap();
    assert_eq!((dry.sentinels_written, dry.sentinels_deleted), (2, 2));
    let report = table.sweep(&registry).backfill().await.unwrap();
    assert_eq!(
        (report.sentinels_written, report.sentinels_deleted),
        (2, 2),
        "{report}"
    );
    assert_eq!(report.sentinels_failed.len(), 1, "{report}");
    assert_eq!(
        report.sentinels_failed[0].error.kind(),
        ErrorKind::UniqueViolation
    );
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([
            sentinel("email", "ada@example.com", "USER#ADA"),
            sentinel("email", "carl@example.com", "USER#CARL"),
            sentinel("email", "eve@lovelace.example", "USER#EVE"),
        ])
    );
    let again = table.sweep(&registry).audit().await.unwrap();
    assert_eq!(
        count_in(&again, "User", Finding::DuplicateValue("email".into())),
        1
    );
    assert_eq!(
        count_in(&again, "User", Finding::MissingSentinel("email".into())),
        0,
        "{again}"
    );
    assert_eq!(
        count_in(&again, "(unique sentinels)", Finding::OrphanedSentinel),
        0,
        "{again}"
    );
}

fn count_in(
    audit: &dynamodb_mapper::evolve::Audit,
    ty: &str,
    f: dynamodb_mapper::evolve::Finding,
) -> u64 {
    audit
        .types
        .get(ty)
        .and_then(|t| t.findings.get(&f))
        .map_or(0, |found| found.count)
}

#[test]
fn a_design_whose_keys_can_be_a_sentinels_fails_naming_both() {
    use dynamodb_mapper::{IndexKeys, KeyPattern};
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Widget {
        a: String,
        b: String,
        c: String,
    }
    struct WidgetMapper;
    impl Mapper for WidgetMapper {
        type Entity = Widget;
        const ENTITY_TYPE: &'static str = "Widget";
        const SCHEMA: TableSchema = USERS;
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[
                IndexKeys::table(KeyPattern::partition("UNIQUE#{a}#{b}#{c}"))
                    .sort(KeyPattern::sort("UNIQUE")),
            ];
    }
    let err = Registry::<String>::builder()
        .register::<UserMapper>(|u| u.id)
        .register::<WidgetMapper>(|w| w.a)
        .build()
        .expect_err("overlap");
    let text = err.to_string();
    assert!(
        text.contains("Widget") && text.contains("User's unique sentinels"),
        "{text}"
    );
    // Without the widget, the users and their sentinels share the table.
    Registry::<String>::builder()
        .register::<UserMapper>(|u| u.id)
        .build()
        .expect("no overlap");
}

#[tokio::test]
async fn a_migration_that_changes_a_unique_value_moves_its_sentinel() {
    let (client, t) = local::client_and_table("unique_migrate", USERS).await;
    let table = Table::new(&client, &t, USERS);
    for (id, email) in [("ADA", "Ada@Example.com"), ("BOB", "bob@example.com")] {
        table
            .put_record::<UserMapper>(&mut Record::new(user(id, email)))
            .await
            .unwrap();
    }
    let registry = users();
    let report = table
        .sweep(&registry)
        .migrate::<UserMapper>(|u| User {
            email: u.email.to_lowercase(),
            ..u
        })
        .await
        .unwrap();
    assert_eq!((report.changed, report.failed.len()), (1, 0), "{report}");
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([
            sentinel("email", "ada@example.com", "USER#ADA"),
            sentinel("email", "bob@example.com", "USER#BOB"),
        ])
    );
    // A migration onto a value another item holds fails for that item only.
    let report = table
        .sweep(&registry)
        .migrate::<UserMapper>(|u| User {
            email: "bob@example.com".into(),
            ..u
        })
        .await
        .unwrap();
    assert_eq!(report.failed.len(), 1, "{report}");
    assert_eq!(report.failed[0].error.kind(), ErrorKind::UniqueViolation);
    assert_eq!(report.unchanged, 1, "bob already holds it");
}

#[tokio::test]
async fn a_record_whose_values_went_stale_meets_a_conflict_not_a_second_holder() {
    let (client, t) = local::client_and_table("unique_stale", USERS).await;
    let table = Table::new(&client, &t, USERS);
    table
        .put_record::<UserMapper>(&mut Record::new(user("ADA", "a@example.com")))
        .await
        .unwrap();
    let key = UserMapper::key(&user("ADA", "")).unwrap();
    let mut record = table
        .get_record::<UserMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    // A transaction moves the email to b; the record gets the new entity
    // and version as the docs show, but still holds the values it read.
    let moved = User {
        email: "b@example.com".into(),
        ..record.entity.clone()
    };
    let sent = table
        .transaction()
        .update_record::<UserMapper>(&record, &moved)
        .unwrap()
        .send()
        .await
        .unwrap();
    record.entity = moved;
    record.version = sent.versions[0];
    // Writing a back from it would leave b's sentinel orphaned and a
    // without one: the stored values are not those read, so it conflicts.
    let back = User {
        email: "a@example.com".into(),
        ..record.entity.clone()
    };
    let err = table
        .update_record::<UserMapper>(&mut record, back)
        .await
        .expect_err("stale");
    assert_eq!(err.kind(), ErrorKind::VersionConflict, "{err}");
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([sentinel("email", "b@example.com", "USER#ADA")])
    );
    // Read again, it works, and moves the sentinel back.
    table
        .update_with_retry::<UserMapper, _>(key, |r| {
            r.entity.email = "a@example.com".into();
            Ok(())
        })
        .await
        .unwrap();
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([sentinel("email", "a@example.com", "USER#ADA")])
    );
}

#[tokio::test]
async fn a_rendered_update_of_a_unique_field_is_refused_outside_the_helpers_that_move_it() {
    let (client, t) = local::client_and_table("unique_rendered", ACCOUNTS).await;
    let table = Table::new(&client, &t, ACCOUNTS);
    let a = Account {
        id: "A".into(),
        username: "ada".into(),
        plan: "free".into(),
    };
    let b = Account {
        username: "eve".into(),
        ..a.clone()
    };
    let update = Update::between::<AccountMapper>(&a, &b).unwrap();
    let err = table
        .transaction()
        .update::<AccountMapper>(AccountMapper::key(&a).unwrap(), update)
        .unwrap_err();
    assert_eq!(err.attribute(), Some("username"), "{err}");
    assert!(
        err.to_string().contains("unique constraint `username`"),
        "{err}"
    );
}

#[test]
fn unique_values_on_a_table_with_a_ttl_are_refused() {
    struct Expiring;
    impl Mapper for Expiring {
        type Entity = Account;
        const ENTITY_TYPE: &'static str = "Invite";
        const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk").ttl("expiresAt");
        const UNIQUE: &'static [Unique] = &[Unique::new("code", &["username"])];
    }
    let err = Expiring::check().expect_err("refused");
    assert!(
        err.to_string().contains("TTL attribute (`expiresAt`)"),
        "{err}"
    );
}

#[tokio::test]
async fn values_stored_before_the_constraint_never_block_a_write_and_doubles_are_not_repaired() {
    let (client, t) = local::client_and_table("unique_legacy", USERS).await;
    let table = Table::new(&client, &t, USERS);
    // Written before `UNIQUE` was declared: an empty email (no sentinel can
    // hold it), and one email twice.
    let raw = |u: User| UserMapper::to_item(&u).unwrap();
    local::put_item(&client, &t, raw(user("OLD", ""))).await;
    local::put_item(&client, &t, raw(user("TWIN1", "twin@example.com"))).await;
    local::put_item(&client, &t, raw(user("TWIN2", "twin@example.com"))).await;
    let registry = users();
    let audit = table.sweep(&registry).audit().await.unwrap();
    assert_eq!(
        count_in(
            &audit,
            "User",
            dynamodb_mapper::evolve::Finding::DuplicateValue("email".into())
        ),
        2,
        "{audit}"
    );
    assert_eq!(
        count_in(
            &audit,
            "User",
            dynamodb_mapper::evolve::Finding::MissingSentinel("email".into())
        ),
        0,
        "{audit}"
    );
    let report = table.sweep(&registry).backfill().await.unwrap();
    assert_eq!(
        report.sentinels_written, 0,
        "neither twin gets it: {report}"
    );
    assert_eq!(report.sentinels_failed.len(), 2, "{report}");
    // The item with the empty email can be given a real one.
    let mut old = table
        .get_record::<UserMapper>(UserMapper::key(&user("OLD", "")).unwrap())
        .await
        .unwrap()
        .unwrap();
    let fixed = User {
        email: "old@example.com".into(),
        ..old.entity.clone()
    };
    table
        .update_record::<UserMapper>(&mut old, fixed)
        .await
        .unwrap();
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([sentinel("email", "old@example.com", "USER#OLD")])
    );
}

#[tokio::test]
async fn a_migration_moves_a_versioned_item_to_its_next_version() {
    let (client, t) = local::client_and_table("unique_migrate_version", USERS).await;
    let table = Table::new(&client, &t, USERS);
    let mut ada = Record::new(user("ADA", "Ada@Example.com"));
    table.put_record::<UserMapper>(&mut ada).await.unwrap();
    let registry = users();
    table
        .sweep(&registry)
        .migrate::<UserMapper>(|u| User {
            email: u.email.to_lowercase(),
            ..u
        })
        .await
        .unwrap();
    // A writer holding the record from before the migration would write the
    // old email back: it meets a conflict.
    let err = table
        .put_record::<UserMapper>(&mut ada)
        .await
        .expect_err("stale");
    assert_eq!(err.kind(), ErrorKind::VersionConflict, "{err}");
    let (_, sentinels) = contents(&client, &t).await;
    assert_eq!(
        sentinels,
        BTreeSet::from([sentinel("email", "ada@example.com", "USER#ADA")])
    );
}

#[tokio::test]
async fn two_entities_taking_one_value_in_one_transaction_is_a_violation_before_sending() {
    let (client, t) = local::client_and_table("unique_one_tx", USERS).await;
    let table = Table::new(&client, &t, USERS);
    let err = table
        .transaction()
        .put_new::<UserMapper>(&user("A", "same@example.com"))
        .unwrap()
        .put_new::<UserMapper>(&user("B", "same@example.com"))
        .expect_err("one value, two takers");
    assert_eq!(err.kind(), ErrorKind::UniqueViolation, "{err}");
    assert!(
        err.to_string()
            .contains("\"same@example.com\" is held by pk=\"USER#A\""),
        "{err}"
    );
    let (entities, _) = contents(&client, &t).await;
    assert!(entities.is_empty(), "nothing sent");
}
