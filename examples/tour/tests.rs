//! The tour's tests: it runs on the test server (the embedded one unless
//! `DYNAMODB_MAPPER_BACKEND` says otherwise) and teaches what it says; its
//! AWS path resolves a profile, and signs its first request for the
//! profile's account and region (answered by a recording HTTP client, so
//! nothing leaves the machine).

use aws_config::profile::{ProfileFileCredentialsProvider, ProfileFileRegionProvider};
use aws_runtime::env_config::file::{EnvConfigFileKind, EnvConfigFiles};
use aws_smithy_http_client::test_util::capture_request;
use aws_smithy_types::body::SdkBody;

use super::*;

#[tokio::test]
async fn tour_runs_and_shows_requests_and_answers() {
    let out = Out::buffer();
    let result = connect::on_test_server(&out).await;
    let text = out.text();
    assert!(result.is_ok(), "{result:?}\n{text}");
    let expect = |line: &str| assert!(text.contains(line), "missing {line:?} in\n{text}");
    // Requests as sent, their names and values put in place.
    expect("key condition: pk = \"CUSTOMER#C1\" AND begins_with(sk, \"ORDER#\")");
    expect(
        " index GSI1\n       key condition: gsi1pk = \"STATUS#Shipped\" AND gsi1sk >= \"2025-02-01\"",
    );
    expect("filter: entityType = \"Address\"");
    expect("condition: attribute_not_exists(pk)\n     ← 200");
    expect("← 400 ConditionalCheckFailedException: The conditional request failed");
    // What came back, decoded.
    expect("C1's orders: O1 (2025-01-15, Shipped), O2 (2025-02-10, Pending)");
    expect("shipped since 2025-02-01: O3 (2025-02-20, Shipped)");
    expect("   Customer Ada <ada@example.com>\n");
    expect("   Address home: Berlin\n");
    expect("   Order O2 4200 cents\n");
    expect("   2 addresses\n");
    expect(
        "   refused: invalid registry (1 problem): access pattern \"customer with orders\" on \
         the table: its query `pk = CUSTOMER#{customer_id}` also returns Address items",
    );
    expect("C1's orders, newest first: O2 (2025-02-10, Pending), O1 (2025-01-15, Shipped)");
    expect("   C1's page: 5 items in one query");
    expect("without import(): refused before sending: Order: batch put of");
    expect("with import(): 6 items written");
    expect("committed: O4 placed");
    expect("canceled: transaction canceled: action 1 (condition check Customer pk=\"CUSTOMER#C9\"");
    expect("second writer: Customer: version conflict on pk=\"CUSTOMER#C1\", sk=\"PROFILE\"");
    expect("a plain from_item → to_item round trip would drop: [\"loyaltyTier\"]");
    expect("bag [\"loyaltyTier\"]");
    expect("email=\"ada@lovelace.example\" entityType=\"Customer\" loyaltyTier=\"gold\"");
    expect("Update::between → SET #u0 = :u0");
    expect("name=\"Augusta Ada King\"");
    // The table is gone afterwards.
    let name = text
        .lines()
        .find_map(|l| l.strip_prefix("   → DeleteTable "))
        .expect("a DeleteTable line");
    expect(&format!("table {name} deleted"));
    let client = dynamodb_mapper_testkit::client().await.unwrap();
    let tables = client.list_tables().send().await.unwrap();
    assert!(
        !tables.table_names().iter().any(|t| t == name),
        "{name} still exists"
    );
}

#[tokio::test]
async fn aws_path_uses_the_profile_and_signs_for_its_region() {
    let dir = std::env::temp_dir().join(format!("tour-aws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config");
    let credentials = dir.join("credentials");
    std::fs::write(&config, "[profile tour]\nregion = eu-west-3\n").unwrap();
    std::fs::write(
        &credentials,
        "[tour]\naws_access_key_id = AKIDTOURTEST\naws_secret_access_key = not-a-secret\n",
    )
    .unwrap();
    let files = || {
        EnvConfigFiles::builder()
            .with_file(EnvConfigFileKind::Config, &config)
            .with_file(EnvConfigFileKind::Credentials, &credentials)
            .build()
    };
    // DynamoDB's answer to unknown credentials, so the tour stops at once.
    let denied = http::Response::builder()
        .status(400)
        .body(SdkBody::from(
            r#"{"__type":"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException","message":"The security token included in the request is invalid."}"#,
        ))
        .unwrap();
    let (http_client, requests) = capture_request(Some(denied));
    let loader = aws_config::defaults(BehaviorVersion::latest())
        .region(
            ProfileFileRegionProvider::builder()
                .profile_files(files())
                .profile_name("tour")
                .build(),
        )
        .credentials_provider(
            ProfileFileCredentialsProvider::builder()
                .profile_files(files())
                .profile_name("tour")
                .build(),
        )
        .http_client(http_client);
    let out = Out::buffer();
    let result = connect::on_aws(loader, &out).await;
    let _ = std::fs::remove_dir_all(&dir);
    let text = out.text();

    let error = format!(
        "{:?}",
        result.expect_err("the canned answer refuses the tour")
    );
    assert!(error.contains("UnrecognizedClientException"), "{error}");
    assert!(
        text.contains("Server: DynamoDB in eu-west-3, table dynamodb-mapper-tour-"),
        "{text}"
    );
    assert!(text.contains("on-demand capacity"), "{text}");
    // The first request: CreateTable, to the region's endpoint, signed with
    // the profile's key for that region.
    let request = requests.expect_request();
    assert_eq!(request.uri(), "https://dynamodb.eu-west-3.amazonaws.com/");
    assert_eq!(
        request.headers().get("x-amz-target"),
        Some("DynamoDB_20120810.CreateTable")
    );
    let auth = request.headers().get("authorization").unwrap_or_default();
    assert!(
        auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTOURTEST/")
            && auth.contains("/eu-west-3/dynamodb/aws4_request"),
        "{auth}"
    );
    let body = std::str::from_utf8(request.body().bytes().unwrap_or_default()).unwrap();
    assert!(
        body.contains(r#""TableName":"dynamodb-mapper-tour-"#),
        "{body}"
    );
    assert!(
        body.contains(r#""BillingMode":"PAY_PER_REQUEST""#),
        "{body}"
    );
}
