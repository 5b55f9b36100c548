//! Attribute values: short constructors for the common ones, and the one a
//! test cannot build directly.

use aws_sdk_dynamodb::types::AttributeValue;

/// A string attribute value.
pub fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// A number attribute value, as DynamoDB writes numbers: a string.
pub fn n(v: impl Into<String>) -> AttributeValue {
    AttributeValue::N(v.into())
}

/// An `AttributeValue::Unknown`, as the SDK produces it when DynamoDB sends an
/// attribute type this SDK version does not know. The variant cannot be built
/// directly, so a canned `GetItem` response produces it.
pub fn unknown_value() -> aws_sdk_dynamodb::types::AttributeValue {
    static VALUE: std::sync::OnceLock<aws_sdk_dynamodb::types::AttributeValue> =
        std::sync::OnceLock::new();
    VALUE
        .get_or_init(|| {
            use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
            let http = aws_smithy_http_client::test_util::infallible_client_fn(|_req| {
                http::Response::builder()
                    .status(200)
                    .body(r#"{"Item":{"x":{"FUTURE_TYPE":"1"}}}"#)
                    .expect("static response")
            });
            let conf = aws_sdk_dynamodb::Config::builder()
                .behavior_version(BehaviorVersion::latest())
                .region(Region::new("us-east-1"))
                .credentials_provider(Credentials::new("test", "test", None, None, "fixture"))
                .http_client(http)
                .build();
            let client = aws_sdk_dynamodb::Client::from_conf(conf);
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let out = rt
                .block_on(
                    client
                        .get_item()
                        .table_name("t")
                        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("k".into()))
                        .send(),
                )
                .expect("canned response");
            let value = out.item.and_then(|mut i| i.remove("x")).expect("item x");
            assert!(value.is_unknown(), "expected Unknown, got {value:?}");
            value
        })
        .clone()
}
