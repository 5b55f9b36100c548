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
            let client = crate::requests::canned_client(r#"{"Item":{"x":{"FUTURE_TYPE":"1"}}}"#);
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
