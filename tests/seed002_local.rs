//! Seed 002 (key overloading) end to end against DynamoDB Local (started by
//! the testkit, or `DYNAMODB_ENDPOINT`): one tenant partition of META, USER,
//! INVOICE and EVENT items sliced by `begins_with`, and the overloaded GSI1
//! listing open invoices across tenants, with exact expected results.

use aws_sdk_dynamodb::Client;
use dynamodb_mapper::expr::{Apply, KeyCondition, attr};
use dynamodb_mapper::key::KeyFormat;
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    Decoded, ErrorKind, IndexKeys, Item, ItemExt, KeyPattern, Mapper, MapperExt, NamingConvention,
    PartitionView, Registry, TableSchema,
};
use dynamodb_mapper_support::local::{self, query, raw_items, read_all};
use dynamodb_mapper_support::seed002::*;
use futures_util::TryStreamExt;
use serde::{Deserialize, Serialize};

async fn setup(prefix: &str) -> (Client, String, DataSet) {
    let data = data_set();
    let (client, table, written) =
        local::table_with_items(prefix, TENANT_TABLE, data.items().unwrap()).await;
    assert_eq!(
        (written.items, written.requests, written.retries),
        (12, 1, 0)
    );
    (client, table, data)
}

/// Every decoded value of a stream; anything skipped or raw fails the test.
async fn entities(
    (c, t): (&Client, &str),
    key: KeyCondition,
    registry: &Registry<TenantItem>,
) -> Vec<TenantItem> {
    let table = Table::new(c, t, TENANT_TABLE);
    let q = table.query().apply(key).unwrap();
    let decoded: Vec<Decoded<TenantItem>> =
        table.query_stream(q, registry).try_collect().await.unwrap();
    decoded
        .into_iter()
        .map(|d| match d {
            Decoded::Entity(e) => e,
            other => panic!("not an entity: {other:?}"),
        })
        .collect()
}

fn event_key(at: &str) -> String {
    // The time read the way a key holding only it is read.
    const AT: KeyPattern = KeyPattern::sort("{at:ts0}");
    let parts = AT.parse(at).unwrap();
    EVENT_SK
        .with("at", parts.get("at").unwrap().clone())
        .render()
        .unwrap()
}

#[test]
fn the_design_has_no_overlaps() {
    let registry = registry().unwrap();
    assert_eq!(
        registry.entity_types(),
        ["Tenant", "User", "Invoice", "Event"]
    );
    // The prefixes the queries below use are the ones the mappers write.
    assert_eq!(META_SK.bind().render().unwrap(), "META");
    assert_eq!(USER_SK.bind().prefix().unwrap(), "USER#");
    assert_eq!(INVOICE_SK.bind().prefix().unwrap(), "INVOICE#");
    assert_eq!(EVENT_SK.bind().prefix().unwrap(), "EVENT#");
    // The seed's silent failure, `USERS#` for `USER#`, is not a prefix of
    // any key a mapper writes: the query reaches no type.
    let users =
        KeyCondition::new(TENANT_TABLE, "TENANT#acme").and(attr("sk").begins_with("USERS#"));
    assert!(registry.entity_types_reached(&users).unwrap().is_empty());

    let item =
        EventMapper::to_item(&event("acme", "2026-06-23T09:12:00Z", "u_3001", "invite")).unwrap();
    assert_eq!(item["sk"].as_s().unwrap(), "EVENT#2026-06-23T09:12:00Z");
    // An event time the sort key could not order is rejected before writing.
    let err =
        EventMapper::to_item(&event("acme", "2026-06-23 09:12", "u_3001", "invite")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(err.entity_type(), Some("Event"));
    assert_eq!(
        err.to_string(),
        "Event: key attribute `sk` cannot be rendered from key pattern `EVENT#{at:ts}`: field \
         `at` is \"2026-06-23 09:12\", not an RFC 3339 UTC time such as 2024-01-15T10:30:00Z"
    );
}

#[tokio::test]
async fn a_tenant_partition_sliced_by_begins_with() {
    let (c, t, data) = setup("seed002-partition").await;
    let registry = registry().unwrap();
    let acme = || tenant_partition("acme").unwrap();

    // Query pk = "TENANT#acme": the entire tenant, every type, in sort key order.
    let all = entities((&c, &t), acme(), &registry).await;
    assert_eq!(
        all,
        vec![
            TenantItem::Event(data.events[0].clone()),
            TenantItem::Event(data.events[1].clone()),
            TenantItem::Event(data.events[2].clone()),
            TenantItem::Invoice(data.invoices[0].clone()),
            TenantItem::Invoice(data.invoices[1].clone()),
            TenantItem::Tenant(data.tenants[0].clone()),
            TenantItem::User(data.users[0].clone()),
            TenantItem::User(data.users[1].clone()),
        ]
    );

    // AND begins_with(sk, "USER#"): just members.
    let members = read_all::<UserMapper>(
        query(
            &c,
            &t,
            acme().and(attr("sk").begins_with(USER_SK.bind().prefix().unwrap())),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(members, data.users[..2]);

    // AND begins_with(sk, "INVOICE#"): just invoices.
    let invoices = read_all::<InvoiceMapper>(
        query(
            &c,
            &t,
            acme().and(attr("sk").begins_with(INVOICE_SK.bind().prefix().unwrap())),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(invoices, data.invoices[..2]);

    // The tenant's own item, by key.
    let key = TenantMapper::key(&data.tenants[0]).unwrap();
    assert_eq!(
        key,
        TenantMapper::string_key("TENANT#acme", "META").unwrap()
    );
    let meta = local::get_item(&c, &t, key)
        .await
        .map(TenantMapper::from_item)
        .transpose()
        .unwrap();
    assert_eq!(meta, Some(data.tenants[0].clone()));

    // The audit trail by time: June, then July by month prefix.
    let june = read_all::<EventMapper>(
        query(
            &c,
            &t,
            acme().and(attr("sk").between(
                event_key("2026-06-01T00:00:00Z"),
                event_key("2026-06-30T23:59:59Z"),
            )),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(june, data.events[..2]);
    // The event prefix, then the start of the time: the escaped text.
    let july =
        EVENT_SK.bind().prefix().unwrap() + &KeyFormat::new().escape_text("2026-07").unwrap();
    assert_eq!(july, "EVENT#2026-07");
    let july =
        read_all::<EventMapper>(query(&c, &t, acme().and(attr("sk").begins_with(july))).unwrap())
            .await
            .unwrap();
    assert_eq!(july, data.events[2..]);

    // A filter narrows what the key condition read: both invoices are read,
    // the open one is returned.
    let out = query(
        &c,
        &t,
        acme().and(attr("sk").begins_with(INVOICE_SK.bind().prefix().unwrap())),
    )
    .unwrap()
    .apply(attr("status").eq("open"))
    .unwrap()
    .send()
    .await
    .unwrap();
    assert_eq!((out.scanned_count, out.count), (2, 1));
    let open: Vec<Invoice> = out
        .items
        .unwrap_or_default()
        .into_iter()
        .map(|i| InvoiceMapper::from_item(i).unwrap())
        .collect();
    assert_eq!(open, [data.invoices[1].clone()]);

    // The other tenant's partition is its own.
    let beta = entities((&c, &t), tenant_partition("beta").unwrap(), &registry).await;
    assert_eq!(
        beta,
        vec![
            TenantItem::Invoice(data.invoices[2].clone()),
            TenantItem::Invoice(data.invoices[3].clone()),
            TenantItem::Tenant(data.tenants[1].clone()),
            TenantItem::User(data.users[2].clone()),
        ]
    );

    // Drawn the way the seed draws it: one partition, the prefixes visible.
    let items = raw_items(query(&c, &t, acme()).unwrap()).await.unwrap();
    let view = format!("{:.200}", PartitionView::new(&TENANT_TABLE, &items));
    let lines: Vec<&str> = view.lines().collect();
    println!("{view}");
    assert_eq!(lines.len(), 2 + 8);
    assert_eq!(
        lines[0],
        "pk          | sk                         | entityType | attributes"
    );
    assert_eq!(
        lines[2],
        "TENANT#acme | EVENT#2026-06-23T09:12:00Z | Event      | action=invite actor=u_3001 at=2026-06-23T09:12:00Z tenantId=acme"
    );
    assert_eq!(
        lines[6],
        "            | INVOICE#2026-0015          | Invoice    | amountCents=45000 dueDate=2026-06-30 gsi1pk=STATUS#open gsi1sk=2026-06-30 invoiceId=2026-0015 status=open tenantId=acme"
    );
    assert_eq!(
        lines[7],
        "            | META                       | Tenant     | name=Acme Inc plan=team tenantId=acme"
    );
    assert_eq!(
        lines[8],
        "            | USER#u_3001                | User       | email=u_3001@acme.example gsi1pk=ROLE#admin gsi1sk=TENANT#acme#USER#u_3001 role=admin tenantId=acme userId=u_3001"
    );
}

#[tokio::test]
async fn open_invoices_across_tenants_through_the_overloaded_gsi() {
    let (c, t, data) = setup("seed002-gsi").await;
    let registry = registry().unwrap();
    let status = |s: InvoiceStatus| {
        KeyCondition::new(
            TENANT_TABLE,
            STATUS_PK.with("status", s.as_str()).render().unwrap(),
        )
        .on_index("GSI1")
    };
    let role = |r: Role| {
        KeyCondition::new(
            TENANT_TABLE,
            ROLE_PK.with("role", r.as_str()).render().unwrap(),
        )
        .on_index("GSI1")
    };
    let invoices = |key: KeyCondition| {
        let q = query(&c, &t, key).unwrap();
        async move { read_all::<InvoiceMapper>(q).await.unwrap() }
    };

    // gsi1pk = "STATUS#open": every open invoice of every tenant, by due date.
    let open = invoices(status(InvoiceStatus::Open)).await;
    assert_eq!(
        open,
        [
            data.invoices[2].clone(), // beta 2026-0099, due 06-25
            data.invoices[1].clone(), // acme 2026-0015, due 06-30
            data.invoices[3].clone(), // beta 2026-0100, due 07-10
        ]
    );
    // ... due before July: a range on the index's sort key.
    let before_july = DUE_SK.with("due_date", "2026-07-01").render().unwrap();
    let due = invoices(status(InvoiceStatus::Open).and(attr("gsi1sk").lt(before_july))).await;
    assert_eq!(due, [data.invoices[2].clone(), data.invoices[1].clone()]);
    let paid = invoices(status(InvoiceStatus::Paid)).await;
    assert_eq!(paid, [data.invoices[0].clone()]);

    // The same index with another meaning: members by role.
    let admins = read_all::<UserMapper>(query(&c, &t, role(Role::Admin)).unwrap())
        .await
        .unwrap();
    assert_eq!(admins, [data.users[0].clone(), data.users[2].clone()]);
    let members = read_all::<UserMapper>(query(&c, &t, role(Role::Member)).unwrap())
        .await
        .unwrap();
    assert_eq!(members, [data.users[1].clone()]);

    // Through the registry, the index's open partition holds invoices only.
    let decoded = entities((&c, &t), status(InvoiceStatus::Open), &registry).await;
    assert_eq!(
        decoded,
        open.iter()
            .cloned()
            .map(TenantItem::Invoice)
            .collect::<Vec<_>>()
    );

    // Paying an invoice moves it to the paid partition of the index; the
    // condition makes paying twice an error instead of a silent rewrite.
    let mut settled = data.invoices[1].clone();
    settled.status = InvoiceStatus::Paid;
    let pay = || {
        c.put_item()
            .table_name(&t)
            .set_item(Some(InvoiceMapper::to_item(&settled).unwrap()))
            .apply(attr("status").eq("open"))
            .unwrap()
    };
    pay().send().await.unwrap();
    let again = pay().send().await.unwrap_err().into_service_error();
    assert!(again.is_conditional_check_failed_exception(), "{again:?}");

    let open = invoices(status(InvoiceStatus::Open)).await;
    assert_eq!(open, [data.invoices[2].clone(), data.invoices[3].clone()]);
    let paid = invoices(status(InvoiceStatus::Paid)).await;
    assert_eq!(paid, [data.invoices[0].clone(), settled]);
}

// The seed's pitfall: `USER#` and `USERGROUP#` collide under
// `begins_with(sk, "USER")`, not under the delimited prefix.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct UserGroup {
    tenant_id: String,
    group_id: String,
    name: String,
}

const USERGROUP_SK: KeyPattern = KeyPattern::sort("USERGROUP#{group_id}");

struct UserGroupMapper;

impl Mapper for UserGroupMapper {
    type Entity = UserGroup;
    const ENTITY_TYPE: &'static str = "UserGroup";
    const SCHEMA: TableSchema = TENANT_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(TENANT_PK).sort(USERGROUP_SK)];

    fn after_to_item(g: &UserGroup, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", TENANT_PK.with("tenant_id", &g.tenant_id).render()?);
        item.put_str("sk", USERGROUP_SK.with("group_id", &g.group_id).render()?);
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum WithGroups {
    Base(TenantItem),
    UserGroup(UserGroup),
}

#[tokio::test]
async fn user_and_usergroup_prefixes_collide_only_without_the_delimiter() {
    // Every prefix the mappers declare ends with the delimiter, so adding
    // `USERGROUP#` to the design is no overlap...
    let registry = Registry::builder()
        .register::<TenantMapper>(|e| WithGroups::Base(TenantItem::Tenant(e)))
        .register::<UserMapper>(|e| WithGroups::Base(TenantItem::User(e)))
        .register::<InvoiceMapper>(|e| WithGroups::Base(TenantItem::Invoice(e)))
        .register::<EventMapper>(|e| WithGroups::Base(TenantItem::Event(e)))
        .register::<UserGroupMapper>(WithGroups::UserGroup)
        .build()
        .unwrap();
    // ...and a bare `USER` would reach both.
    let begins = |prefix: &str| {
        let key =
            KeyCondition::new(TENANT_TABLE, "TENANT#acme").and(attr("sk").begins_with(prefix));
        registry.entity_types_reached(&key).unwrap()
    };
    assert_eq!(begins("USER"), ["User", "UserGroup"]);
    assert_eq!(begins("USER#"), ["User"]);

    let (c, t, data) = setup("seed002-pitfall").await;
    let admins = UserGroup {
        tenant_id: "acme".into(),
        group_id: "admins".into(),
        name: "Administrators".into(),
    };
    local::put_item(&c, &t, UserGroupMapper::to_item(&admins).unwrap()).await;
    let acme = || tenant_partition("acme").unwrap();

    // The delimited prefix the pattern renders: members only.
    let members = read_all::<UserMapper>(
        query(
            &c,
            &t,
            acme().and(attr("sk").begins_with(USER_SK.bind().prefix().unwrap())),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(members, data.users[..2]);

    // The hand-written `USER` also returns the group. Read as users, the
    // discriminator refuses it; through the registry, each is its own type.
    let sloppy = || query(&c, &t, acme().and(attr("sk").begins_with("USER"))).unwrap();
    let err = read_all::<UserMapper>(sloppy()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "User (pk=\"TENANT#acme\", sk=\"USERGROUP#admins\"): discriminator `entityType` is \
         \"UserGroup\", expected \"User\""
    );
    let decoded: Vec<WithGroups> = Table::new(&c, &t, TENANT_TABLE)
        .query_stream(sloppy(), &registry)
        .map_ok(|d| d.into_entity().expect("an entity"))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        decoded,
        vec![
            WithGroups::Base(TenantItem::User(data.users[0].clone())),
            WithGroups::Base(TenantItem::User(data.users[1].clone())),
            WithGroups::UserGroup(admins),
        ]
    );

    // The seed's other slip, `USERS#`, silently returns nothing.
    let none = raw_items(query(&c, &t, acme().and(attr("sk").begins_with("USERS#"))).unwrap())
        .await
        .unwrap();
    assert!(none.is_empty());
}
