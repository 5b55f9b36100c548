//! Showing what the tour does: every request the SDK sends is printed by
//! the testkit's [`Wire`] between the client and its server (so what you
//! see is what went out: key conditions, filters, conditions and updates
//! with their names and values put in place), followed by a short account
//! of the answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper_testkit::Wire;

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

/// `client` with every request it sends, and what came back, printed to
/// `out` as it happens: the testkit's wire, recording, without faults.
pub fn showing(client: &Client, out: &Out) -> Client {
    let out = out.clone();
    let wire = Wire::new().watch(move |exchange| {
        let text = exchange.to_string();
        let lines: Vec<String> = text.lines().map(|l| format!("   {l}")).collect();
        out.line(lines.join("\n"));
    });
    wire.client(client)
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Out")
    }
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
