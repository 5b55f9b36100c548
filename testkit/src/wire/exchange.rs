//! One request through a [`Wire`](super::Wire) and its answer, recorded as
//! the JSON that went over the wire and shown the way a person reads it:
//! expressions with their `#names` and `:values` put back in place.

use std::fmt::{self, Write as _};

use serde_json::Value;

/// One request a client sent through a [`Wire`](super::Wire), with the
/// answer it got (one per attempt: the SDK's retries are separate
/// exchanges).
///
/// The accessors answer the questions tests ask ("one `Query` on `GSI1`
/// with this key condition, and no `Scan`"); expressions come back with
/// their placeholders resolved. [`request`](Exchange::request) and
/// [`answer`](Exchange::answer) hold the whole JSON for anything else, and
/// `Display` prints the exchange readably.
///
/// ```
/// # #[tokio::main]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper_testkit::{Wire, shared};
///
/// let db = shared().await?;
/// let wire = Wire::new();
/// let client = wire.client(&db.client());
/// let _ = client
///     .query()
///     .table_name("Orders")
///     .index_name("GSI1")
///     .key_condition_expression("#pk = :pk")
///     .expression_attribute_names("#pk", "GSI1PK")
///     .expression_attribute_values(":pk", AttributeValue::S("CUSTOMER#42".into()))
///     .send()
///     .await;
/// let sent = wire.exchanges(); // (the table does not exist: a 400 answer)
/// assert_eq!(sent.len(), 1);
/// assert_eq!(sent[0].operation(), "Query");
/// assert_eq!(sent[0].index(), Some("GSI1"));
/// assert_eq!(sent[0].key_condition().as_deref(), Some(r#"GSI1PK = "CUSTOMER#42""#));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Exchange {
    pub(super) operation: String,
    pub(super) request: Value,
    pub(super) answer: Answer,
    pub(super) fault: Option<String>,
}

/// What came back.
#[derive(Clone, Debug)]
pub(super) enum Answer {
    /// Nothing yet (a silent server, or a request still under way).
    Pending,
    /// An HTTP answer: status and JSON body (`Null` when not JSON).
    Http(u16, Value),
    /// No HTTP answer: the connection failed (the message says how).
    Failed(String),
}

impl Exchange {
    /// DynamoDB's name of the operation, e.g. `"Query"`.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_ne!(e.operation(), "Scan");
    /// # }
    /// ```
    #[must_use]
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// The table: `TableName`, or for a batch or transaction the one table
    /// all its entries are on (`None` when they are on several).
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.table(), Some("Orders"));
    /// # }
    /// ```
    #[must_use]
    pub fn table(&self) -> Option<&str> {
        let tables = tables(&self.request);
        match tables.as_slice() {
            [first, rest @ ..] if rest.iter().all(|t| t == first) => Some(first),
            _ => None,
        }
    }

    /// The index a `Query` or `Scan` read, if any.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.index(), Some("GSI1"));
    /// # }
    /// ```
    #[must_use]
    pub fn index(&self) -> Option<&str> {
        self.request.get("IndexName")?.as_str()
    }

    /// The `KeyConditionExpression`, names and values resolved.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.key_condition().as_deref(), Some(r#"pk = "CUSTOMER#42""#));
    /// # }
    /// ```
    #[must_use]
    pub fn key_condition(&self) -> Option<String> {
        resolved(&self.request, "KeyConditionExpression")
    }

    /// The `FilterExpression`, names and values resolved.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.filter(), None);
    /// # }
    /// ```
    #[must_use]
    pub fn filter(&self) -> Option<String> {
        resolved(&self.request, "FilterExpression")
    }

    /// The `ConditionExpression` of a single-item write, names and values
    /// resolved (a transaction's are in [`Display`](std::fmt::Display)).
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.condition().as_deref(), Some("attribute_not_exists(pk)"));
    /// # }
    /// ```
    #[must_use]
    pub fn condition(&self) -> Option<String> {
        resolved(&self.request, "ConditionExpression")
    }

    /// The `UpdateExpression` of an `UpdateItem`, names and values resolved.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.update().as_deref(), Some("SET total = total + 5"));
    /// # }
    /// ```
    #[must_use]
    pub fn update(&self) -> Option<String> {
        resolved(&self.request, "UpdateExpression")
    }

    /// The request as sent, DynamoDB's JSON.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.request()["ConsistentRead"], true);
    /// # }
    /// ```
    #[must_use]
    pub fn request(&self) -> &Value {
        &self.request
    }

    /// The answer's JSON body, if an HTTP answer came (`Null` when its body
    /// was not JSON).
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.answer().map(|a| a["Count"].clone()), Some(3.into()));
    /// # }
    /// ```
    #[must_use]
    pub fn answer(&self) -> Option<&Value> {
        match &self.answer {
            Answer::Http(_, body) => Some(body),
            _ => None,
        }
    }

    /// The answer's HTTP status; `None` when no answer came (silence, a
    /// dropped connection).
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.status(), Some(200));
    /// # }
    /// ```
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match &self.answer {
            Answer::Http(status, _) => Some(*status),
            _ => None,
        }
    }

    /// The error code of a refusal, e.g. `"ConditionalCheckFailedException"`.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.error_code(), Some("ProvisionedThroughputExceededException"));
    /// # }
    /// ```
    #[must_use]
    pub fn error_code(&self) -> Option<&str> {
        let kind = self.answer()?.get("__type")?.as_str()?;
        Some(kind.rsplit('#').next().unwrap_or(kind))
    }

    /// The fault the wire injected into this exchange, as the rule prints
    /// (`"throttle on PutItem"`); `None` for an exchange left alone.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.fault(), None);
    /// # }
    /// ```
    #[must_use]
    pub fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    /// The capacity units the answer reports consumed (summed over tables
    /// and indexes), when the request asked for them.
    ///
    /// ```
    /// # fn demo(e: &dynamodb_mapper_testkit::Exchange) {
    /// assert_eq!(e.consumed_capacity(), Some(0.5));
    /// # }
    /// ```
    #[must_use]
    pub fn consumed_capacity(&self) -> Option<f64> {
        let consumed = self.answer()?.get("ConsumedCapacity")?;
        let each = |c: &Value| {
            c.get("CapacityUnits")
                .and_then(Value::as_f64)
                .unwrap_or(0.0)
        };
        Some(match consumed {
            Value::Array(all) => all.iter().map(each).sum(),
            one => each(one),
        })
    }
}

/// The tables a request is about, in order, with repeats.
pub(super) fn tables(request: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    if let Some(t) = request.get("TableName").and_then(Value::as_str) {
        out.push(t);
    }
    if let Some(Value::Object(items)) = request.get("RequestItems") {
        out.extend(items.keys().map(String::as_str));
    }
    for (_, body) in actions(request).into_iter().flatten() {
        if let Some(t) = body.get("TableName").and_then(Value::as_str) {
            out.push(t);
        }
    }
    out
}

/// A transaction's actions: the kind (`Put`, `Update`, ...) and its body.
pub(super) fn actions(request: &Value) -> Vec<Option<(&str, &Value)>> {
    let Some(Value::Array(items)) = request.get("TransactItems") else {
        return Vec::new();
    };
    items
        .iter()
        .map(|a| {
            a.as_object()
                .and_then(|o| o.iter().next())
                .map(|(k, v)| (k.as_str(), v))
        })
        .collect()
}

/// `field` of `at`, with the placeholders of `at`'s names and values put back.
fn resolved(at: &Value, field: &str) -> Option<String> {
    let text = at.get(field)?.as_str()?;
    Some(resolve(
        text,
        at.get("ExpressionAttributeNames"),
        at.get("ExpressionAttributeValues"),
    ))
}

/// `expression` with each `#name` and `:value` replaced by what it stands
/// for (left as written when it is not defined).
fn resolve(expression: &str, names: Option<&Value>, values: Option<&Value>) -> String {
    let mut out = String::with_capacity(expression.len());
    let mut rest = expression;
    while let Some(at) = rest.find(['#', ':']) {
        out.push_str(&rest[..at]);
        let token_len = rest[at + 1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len() - at - 1);
        let token = &rest[at..at + 1 + token_len];
        let known = if token.starts_with('#') {
            names
                .and_then(|n| n.get(token))
                .and_then(Value::as_str)
                .map(str::to_owned)
        } else {
            values.and_then(|v| v.get(token)).map(value)
        };
        out.push_str(known.as_deref().unwrap_or(token));
        rest = &rest[at + 1 + token_len..];
    }
    out.push_str(rest);
    out
}

/// An attribute value (DynamoDB's JSON) the way one writes it: strings
/// quoted, numbers bare, sets in `<< >>`.
pub(super) fn value(v: &Value) -> String {
    let Some((kind, inner)) = v.as_object().and_then(|o| o.iter().next()) else {
        return v.to_string();
    };
    let list = |items: &Value, f: &dyn Fn(&Value) -> String| -> Vec<String> {
        items
            .as_array()
            .map(|a| a.iter().map(f).collect())
            .unwrap_or_default()
    };
    match kind.as_str() {
        "S" => inner.to_string(),
        "N" => inner.as_str().unwrap_or_default().to_owned(),
        "BOOL" => inner.to_string(),
        "NULL" => "null".to_owned(),
        "B" => format!("<{} base64 chars>", inner.as_str().map_or(0, str::len)),
        "L" => format!("[{}]", list(inner, &value).join(", ")),
        "M" => format!("{{{}}}", item(inner)),
        "SS" => format!("<<{}>>", list(inner, &|s| s.to_string()).join(", ")),
        "NS" => format!(
            "<<{}>>",
            list(inner, &|s| s.as_str().unwrap_or_default().to_owned()).join(", ")
        ),
        "BS" => format!(
            "<<{} binary values>>",
            list(inner, &|_| String::new()).len()
        ),
        _ => v.to_string(),
    }
}

/// An item or key, attributes in name order: `pk="A" n=1`.
fn item(map: &Value) -> String {
    let Some(map) = map.as_object() else {
        return String::new();
    };
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    names
        .iter()
        .map(|k| format!("{k}={}", value(&map[*k])))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The lines of one write: its expressions, resolved.
fn expressions(f: &mut String, body: &Value, indent: &str) {
    for (label, field) in [
        ("key condition", "KeyConditionExpression"),
        ("filter", "FilterExpression"),
        ("update", "UpdateExpression"),
        ("condition", "ConditionExpression"),
        ("projection", "ProjectionExpression"),
    ] {
        if let Some(text) = resolved(body, field) {
            let _ = writeln!(f, "{indent}{label}: {text}");
        }
    }
}

/// A `CreateTable`'s key schema, indexes and billing mode, one line.
fn table_layout(f: &mut String, request: &Value) {
    let Some(Value::Array(keys)) = request.get("KeySchema") else {
        return;
    };
    let names = |list: &[Value], field: &str| -> Vec<String> {
        list.iter()
            .filter_map(|v| v.get(field).and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    let _ = write!(f, "    keys {}", names(keys, "AttributeName").join("/"));
    if let Some(Value::Array(indexes)) = request.get("GlobalSecondaryIndexes") {
        let _ = write!(f, ", indexes {}", names(indexes, "IndexName").join(", "));
    }
    if let Some(mode) = request.get("BillingMode").and_then(Value::as_str) {
        let _ = write!(f, ", {mode}");
    }
    f.push('\n');
}

fn count(v: Option<&Value>) -> usize {
    match v {
        Some(Value::Object(tables)) => tables
            .values()
            .map(|t| match t {
                Value::Array(a) => a.len(),
                Value::Object(o) => o.get("Keys").and_then(Value::as_array).map_or(0, Vec::len),
                _ => 0,
            })
            .sum(),
        _ => 0,
    }
}

impl fmt::Display for Exchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.request;
        let mut s = format!("→ {}", self.operation);
        if let Some(t) = r.get("TableName").and_then(Value::as_str) {
            let _ = write!(s, " {t}");
        }
        if let Some(i) = self.index() {
            let _ = write!(s, " index {i}");
        }
        for field in ["Key", "Item"] {
            if let Some(k) = r.get(field) {
                let _ = write!(s, " {}", item(k));
            }
        }
        if let Some(fault) = &self.fault {
            let _ = write!(s, "  [fault: {fault}]");
        }
        s.push('\n');
        expressions(&mut s, r, "    ");
        table_layout(&mut s, r);
        if let Some(Value::Object(tables)) = r.get("RequestItems") {
            for (table, requests) in tables {
                match requests {
                    Value::Array(writes) => {
                        let puts = writes
                            .iter()
                            .filter(|w| w.get("PutRequest").is_some())
                            .count();
                        let _ = writeln!(
                            s,
                            "    {table}: {puts} puts, {} deletes",
                            writes.len() - puts
                        );
                    }
                    other => {
                        let keys = other
                            .get("Keys")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len);
                        let _ = writeln!(s, "    {table}: {keys} keys");
                    }
                }
            }
        }
        for (kind, body) in actions(r).into_iter().flatten() {
            let table = body
                .get("TableName")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let what = body
                .get("Key")
                .or_else(|| body.get("Item"))
                .map(item)
                .unwrap_or_default();
            let _ = writeln!(s, "    {kind} {table} {what}");
            expressions(&mut s, body, "      ");
        }
        let _ = write!(s, "  ← {}", Summary(self));
        f.write_str(&s)
    }
}

/// The answer in a few words.
struct Summary<'a>(&'a Exchange);

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        let body = match &e.answer {
            Answer::Pending => return f.write_str("no answer"),
            Answer::Failed(why) => return write!(f, "no answer: {why}"),
            Answer::Http(status, body) => {
                write!(f, "{status}")?;
                body
            }
        };
        if let Some(code) = e.error_code() {
            let message = body
                .get("message")
                .or_else(|| body.get("Message"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            write!(f, " {code}: {message}")?;
            if let Some(Value::Array(reasons)) = body.get("CancellationReasons") {
                let codes: Vec<&str> = reasons
                    .iter()
                    .map(|r| r.get("Code").and_then(Value::as_str).unwrap_or("None"))
                    .collect();
                let listed = format!("[{}]", codes.join(", "));
                if !message.contains(&listed) {
                    write!(f, " {listed}")?;
                }
            }
            return Ok(());
        }
        if let Some(n) = body.get("Count") {
            write!(f, ", {n} items")?;
        }
        if let Some(i) = body.get("Item") {
            write!(f, ", {}", item(i))?;
        } else if e.operation == "GetItem" {
            f.write_str(", no item")?;
        }
        if let Some(Value::Object(responses)) = body.get("Responses") {
            let n: usize = responses
                .values()
                .map(|v| v.as_array().map_or(0, Vec::len))
                .sum();
            write!(f, ", {n} items")?;
        }
        for field in ["UnprocessedItems", "UnprocessedKeys"] {
            let n = count(body.get(field));
            if n > 0 || e.operation.starts_with("Batch") && body.get(field).is_some() {
                write!(f, ", {n} unprocessed")?;
            }
        }
        if body.get("LastEvaluatedKey").is_some() {
            f.write_str(", more pages")?;
        }
        if let Some(units) = e.consumed_capacity() {
            write!(f, ", {units} capacity units")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_are_put_back_and_unknown_ones_left_as_written() {
        let names = json!({"#a": "status", "#b": "GSI1PK"});
        let values = json!({":v": {"S": "open \"now\""}, ":n": {"N": "5"}, ":l": {"L": [{"S": "x"}, {"BOOL": true}]}});
        assert_eq!(
            resolve(
                "#b = :v AND #a <> :n AND contains(#x, :l) AND :missing",
                Some(&names),
                Some(&values)
            ),
            r#"GSI1PK = "open \"now\"" AND status <> 5 AND contains(#x, ["x", true]) AND :missing"#
        );
        assert_eq!(resolve("a.b[0] = :", None, None), "a.b[0] = :");
        assert_eq!(resolve("#", Some(&names), None), "#");
    }

    #[test]
    fn an_exchange_reads_like_the_request_and_its_answer() {
        let e = Exchange {
            operation: "TransactWriteItems".into(),
            request: json!({"TransactItems": [
                {"Put": {"TableName": "T", "Item": {"pk": {"S": "A"}, "n": {"N": "1"}},
                         "ConditionExpression": "attribute_not_exists(#p)", "ExpressionAttributeNames": {"#p": "pk"}}},
                {"Delete": {"TableName": "T", "Key": {"pk": {"S": "B"}}}}
            ]}),
            answer: Answer::Http(
                400,
                json!({
                "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                "message": "canceled", "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}]}),
            ),
            fault: Some("conflict".into()),
        };
        assert_eq!(e.table(), Some("T"));
        assert_eq!(e.error_code(), Some("TransactionCanceledException"));
        assert_eq!(
            e.to_string(),
            "→ TransactWriteItems  [fault: conflict]\n    Put T n=1 pk=\"A\"\n      condition: attribute_not_exists(pk)\n    \
             Delete T pk=\"B\"\n  ← 400 TransactionCanceledException: canceled [None, TransactionConflict]"
        );
    }
}
