//! Showing what the tour does: every request the SDK sends is printed by an
//! interceptor on the client (so what you see is what went out: key
//! conditions, filters, conditions, names and values), followed by a short
//! account of the answer.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemInput, BatchWriteItemOutput};
use aws_sdk_dynamodb::operation::create_table::CreateTableInput;
use aws_sdk_dynamodb::operation::delete_table::DeleteTableInput;
use aws_sdk_dynamodb::operation::get_item::{GetItemInput, GetItemOutput};
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::{QueryInput, QueryOutput};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::AttributeValue;

/// Where the tour writes: standard output, or a buffer (in its tests).
#[derive(Clone, Default)]
pub struct Out {
    buffer: Option<Arc<Mutex<String>>>,
}

impl Out {
    pub fn stdout() -> Out {
        Out { buffer: None }
    }

    #[cfg_attr(not(test), allow(dead_code))]
    pub fn buffer() -> Out {
        Out {
            buffer: Some(Arc::default()),
        }
    }

    pub fn line(&self, text: impl AsRef<str>) {
        match &self.buffer {
            Some(buffer) => {
                let mut b = buffer.lock().unwrap_or_else(PoisonError::into_inner);
                b.push_str(text.as_ref());
                b.push('\n');
            }
            None => println!("{}", text.as_ref()),
        }
    }

    /// What was written so far (empty for standard output).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn text(&self) -> String {
        self.buffer
            .as_ref()
            .map(|b| b.lock().unwrap_or_else(PoisonError::into_inner).clone())
            .unwrap_or_default()
    }
}

/// `client` with the request printer added.
pub fn showing(client: &Client, out: &Out) -> Client {
    let config = client
        .config()
        .to_builder()
        .interceptor(ShowRequests { out: out.clone() })
        .build();
    Client::from_conf(config)
}

#[derive(Debug)]
struct ShowRequests {
    out: Out,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Out")
    }
}

impl Intercept for ShowRequests {
    fn name(&self) -> &'static str {
        "ShowRequests"
    }

    fn read_before_execution(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let input = context.input();
        let mut s = String::new();
        if let Some(i) = input.downcast_ref::<QueryInput>() {
            let on = match i.index_name() {
                Some(index) => format!(" index {index}"),
                None => String::new(),
            };
            let _ = writeln!(s, "   → Query{on}");
            field(
                &mut s,
                "KeyConditionExpression",
                i.key_condition_expression(),
            );
            field(&mut s, "FilterExpression", i.filter_expression());
            names_values(
                &mut s,
                "",
                i.expression_attribute_names(),
                i.expression_attribute_values(),
            );
        } else if let Some(i) = input.downcast_ref::<PutItemInput>() {
            let _ = writeln!(s, "   → PutItem {}", key_of(i.item()));
            field(&mut s, "ConditionExpression", i.condition_expression());
            names_values(
                &mut s,
                "",
                i.expression_attribute_names(),
                i.expression_attribute_values(),
            );
        } else if let Some(i) = input.downcast_ref::<UpdateItemInput>() {
            let _ = writeln!(s, "   → UpdateItem {}", key_of(i.key()));
            field(&mut s, "UpdateExpression", i.update_expression());
            field(&mut s, "ConditionExpression", i.condition_expression());
            names_values(
                &mut s,
                "",
                i.expression_attribute_names(),
                i.expression_attribute_values(),
            );
        } else if let Some(i) = input.downcast_ref::<GetItemInput>() {
            let _ = writeln!(s, "   → GetItem {}", key_of(i.key()));
        } else if let Some(i) = input.downcast_ref::<BatchWriteItemInput>() {
            for requests in i.request_items().into_iter().flat_map(HashMap::values) {
                let puts = requests
                    .iter()
                    .filter(|r| r.put_request().is_some())
                    .count();
                let deletes = requests.len() - puts;
                let _ = writeln!(s, "   → BatchWriteItem: {puts} puts, {deletes} deletes");
            }
        } else if let Some(i) = input.downcast_ref::<TransactWriteItemsInput>() {
            let _ = writeln!(s, "   → TransactWriteItems");
            for action in i.transact_items() {
                if let Some(p) = action.put() {
                    let _ = writeln!(s, "       Put {}", key_of(Some(p.item())));
                    field(&mut s, "  ConditionExpression", p.condition_expression());
                    names_values(
                        &mut s,
                        "  ",
                        p.expression_attribute_names(),
                        p.expression_attribute_values(),
                    );
                } else if let Some(c) = action.condition_check() {
                    let _ = writeln!(s, "       ConditionCheck {}", key_of(Some(c.key())));
                    field(
                        &mut s,
                        "  ConditionExpression",
                        Some(c.condition_expression()),
                    );
                    names_values(
                        &mut s,
                        "  ",
                        c.expression_attribute_names(),
                        c.expression_attribute_values(),
                    );
                } else if let Some(d) = action.delete() {
                    let _ = writeln!(s, "       Delete {}", key_of(Some(d.key())));
                } else if let Some(u) = action.update() {
                    let _ = writeln!(s, "       Update {}", key_of(Some(u.key())));
                }
            }
        } else if let Some(i) = input.downcast_ref::<CreateTableInput>() {
            let keys: Vec<_> = i.key_schema().iter().map(|k| k.attribute_name()).collect();
            let indexes: Vec<_> = i
                .global_secondary_indexes()
                .iter()
                .map(|g| g.index_name())
                .collect();
            let _ = writeln!(
                s,
                "   → CreateTable {} keys {} indexes {} ({})",
                i.table_name().unwrap_or_default(),
                keys.join("/"),
                indexes.join(", "),
                i.billing_mode()
                    .map(|b| b.as_str())
                    .unwrap_or("provisioned"),
            );
        } else if let Some(i) = input.downcast_ref::<DeleteTableInput>() {
            let _ = writeln!(s, "   → DeleteTable {}", i.table_name().unwrap_or_default());
        }
        if !s.is_empty() {
            self.out.line(s.trim_end());
        }
        Ok(())
    }

    fn read_after_execution(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let answer = match context.output_or_error() {
            Some(Ok(output)) => {
                if let Some(o) = output.downcast_ref::<QueryOutput>() {
                    format!("{} items", o.count())
                } else if let Some(o) = output.downcast_ref::<GetItemOutput>() {
                    if o.item().is_some() {
                        "the item"
                    } else {
                        "no item"
                    }
                    .to_owned()
                } else if let Some(o) = output.downcast_ref::<BatchWriteItemOutput>() {
                    let left: usize = o
                        .unprocessed_items()
                        .into_iter()
                        .flat_map(HashMap::values)
                        .map(Vec::len)
                        .sum();
                    format!("{left} unprocessed")
                } else {
                    return Ok(()); // nothing worth saying (ok, or a table description)
                }
            }
            Some(Err(_)) => "refused (see below)".to_owned(),
            None => return Ok(()),
        };
        self.out.line(format!("   ← {answer}"));
        Ok(())
    }
}

fn field(s: &mut String, name: &str, value: Option<&str>) {
    if let Some(value) = value {
        let _ = writeln!(s, "     {name}: {value}");
    }
}

fn names_values(
    s: &mut String,
    indent: &str,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
) {
    if let Some(names) = names.filter(|n| !n.is_empty()) {
        let mut names: Vec<_> = names.iter().map(|(k, v)| format!("{k}={v}")).collect();
        names.sort();
        let _ = writeln!(s, "     {indent}names:  {}", names.join(", "));
    }
    if let Some(values) = values.filter(|v| !v.is_empty()) {
        let mut values: Vec<_> = values
            .iter()
            .map(|(k, v)| format!("{k}={}", value(v)))
            .collect();
        values.sort();
        let _ = writeln!(s, "     {indent}values: {}", values.join(", "));
    }
}

/// `pk="…" sk="…"` of an item or key.
fn key_of(item: Option<&HashMap<String, AttributeValue>>) -> String {
    let Some(item) = item else {
        return String::new();
    };
    ["pk", "sk"]
        .iter()
        .filter_map(|k| item.get(*k).map(|v| format!("{k}={}", value(v))))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An attribute value the way you would write it.
pub fn value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "null".into(),
        AttributeValue::B(b) => format!("<{} bytes>", b.as_ref().len()),
        AttributeValue::L(list) => {
            let inner: Vec<_> = list.iter().map(value).collect();
            format!("[{}]", inner.join(", "))
        }
        AttributeValue::M(map) => {
            let mut inner: Vec<_> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", value(v)))
                .collect();
            inner.sort();
            format!("{{{}}}", inner.join(", "))
        }
        AttributeValue::Ss(set) => format!("<<{}>>", set.join(", ")),
        AttributeValue::Ns(set) => format!("<<{}>>", set.join(", ")),
        other => format!("{other:?}"),
    }
}

/// An item, attributes in name order, one line.
pub fn item(item: &HashMap<String, AttributeValue>) -> String {
    let mut attributes: Vec<_> = item
        .iter()
        .map(|(k, v)| format!("{k}={}", value(v)))
        .collect();
    attributes.sort();
    attributes.join(" ")
}
