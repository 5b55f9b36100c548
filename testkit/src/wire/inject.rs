//! The connector a [`Wire`](super::Wire) puts in front of the client's own:
//! it records each request and answer, and makes the faults its rules
//! decide on, sending on to the real server whatever is to be applied.

use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::{AsyncSleep, SharedAsyncSleep};
use aws_smithy_runtime_api::client::http::{
    HttpConnector, HttpConnectorFuture, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::byte_stream::ByteStream;
use serde_json::{Map, Value, json};

use super::exchange::{Answer, Exchange, actions};
use super::fault::{Dice, Fault, Kind};
use super::{Counter, Shared};

/// The rules and log of one client's wire.
pub(super) struct Injector {
    pub(super) seed: u64,
    pub(super) rules: Vec<(Fault, Arc<Counter>)>,
    pub(super) shared: Arc<Shared>,
}

/// One connector per attempt, sharing the injector.
#[derive(Debug)]
pub(super) struct Connector {
    pub(super) inner: SharedHttpConnector,
    pub(super) injector: Arc<Injector>,
    pub(super) sleep: Option<SharedAsyncSleep>,
    /// The client's read timeout: it ends a silence, or a delay longer
    /// than it, as it ends a wait for a real server.
    pub(super) read_timeout: Option<Duration>,
}

impl std::fmt::Debug for Injector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rules: Vec<&Fault> = self.rules.iter().map(|(r, _)| r).collect();
        f.debug_struct("Injector")
            .field("seed", &self.seed)
            .field("rules", &rules)
            .finish_non_exhaustive()
    }
}

impl HttpConnector for Connector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let injector = self.injector.clone();
        let inner = self.inner.clone();
        let waits = Waits {
            sleep: self.sleep.clone(),
            read_timeout: self.read_timeout,
        };
        HttpConnectorFuture::new(async move { injector.pass(&inner, waits, request).await })
    }
}

/// The connector of a client that has no HTTP client of its own while the
/// SDK's default one is not built in: every request fails, saying so.
#[derive(Debug)]
pub(super) struct Unavailable;

impl HttpConnector for Unavailable {
    fn call(&self, _request: HttpRequest) -> HttpConnectorFuture {
        HttpConnectorFuture::ready(Err(ConnectorError::other(
            "the wire found no HTTP client to send requests with: give the client one \
             (`http_client` of its config)"
                .into(),
            None,
        )))
    }
}

/// How the wire waits: with the client's sleep, within its read timeout.
struct Waits {
    sleep: Option<SharedAsyncSleep>,
    read_timeout: Option<Duration>,
}

impl Waits {
    /// Waits `wait` (`None`: forever), or the read timeout when it is
    /// shorter: `Err` then, as a client reading a silent server times out.
    async fn wait(&self, wait: Option<Duration>) -> Result<(), ConnectorError> {
        let (wait, timed_out) = match (wait, self.read_timeout) {
            (Some(w), Some(t)) if t < w => (Some(t), true),
            (None, Some(t)) => (Some(t), true),
            (w, _) => (w, false),
        };
        match wait {
            Some(wait) => pause(self.sleep.clone(), wait).await,
            None => std::future::pending::<()>().await,
        }
        if timed_out {
            return Err(ConnectorError::timeout(
                "read timeout: no answer came (the testkit wire's silence or delay)".into(),
            ));
        }
        Ok(())
    }
}

/// A struck request: the rule's fault, its counter (to give the strike
/// back when the fault cannot happen), and the dice that go on deciding
/// its details (which entries, which action).
struct Struck {
    kind: Kind,
    table: Option<String>,
    dice: Dice,
    counter: Arc<Counter>,
}

/// An exchange under way: ends with the client's giving up when its future
/// is dropped before an answer (a timeout, a canceled call).
struct Open<'a> {
    shared: &'a Shared,
    id: usize,
    exchange: Exchange,
    done: bool,
}

impl Open<'_> {
    /// Records and shows the answer.
    fn end(&mut self, answer: Answer) {
        self.exchange.answer = answer;
        self.done = true;
        self.shared.update(self.id, &self.exchange, true);
    }

    /// The fault did not happen after all: no label, and the strike back.
    fn unstrike(&mut self, struck: &Struck) {
        struck.counter.unstrike();
        self.exchange.fault = None;
        self.shared.update(self.id, &self.exchange, false);
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.end(Answer::Failed(
                "the client stopped waiting (a timeout, or the call was dropped)".to_owned(),
            ));
        }
    }
}

impl Injector {
    /// The first rule that matches `operation` on `request`'s tables and
    /// whose dice strike it, with its label.
    fn decide(&self, operation: &str, request: &Value) -> Option<(Struck, String)> {
        let tables = super::exchange::tables(request);
        for (index, (rule, counter)) in self.rules.iter().enumerate() {
            if !rule.matches_op(operation) {
                continue;
            }
            if let Some(t) = &rule.table
                && !tables.contains(&t.as_str())
            {
                continue;
            }
            if let Some(dice) = counter.strike(self.seed, index, rule.rate, rule.times) {
                let struck = Struck {
                    kind: rule.kind.clone(),
                    table: rule.table.clone(),
                    dice,
                    counter: counter.clone(),
                };
                return Some((struck, rule.to_string()));
            }
        }
        None
    }

    async fn pass(
        &self,
        inner: &SharedHttpConnector,
        waits: Waits,
        mut request: HttpRequest,
    ) -> Result<HttpResponse, ConnectorError> {
        let operation = request
            .headers()
            .get("x-amz-target")
            .and_then(|t| t.rsplit('.').next())
            .unwrap_or("unknown")
            .to_owned();
        let json: Value = request
            .body()
            .bytes()
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or(Value::Null);
        let (struck, label) = match self.decide(&operation, &json) {
            Some((s, l)) => (Some(s), Some(l)),
            None => (None, None),
        };
        let exchange = Exchange {
            operation: operation.clone(),
            request: json.clone(),
            answer: Answer::Pending,
            fault: label,
        };
        let mut open = Open {
            shared: &self.shared,
            id: self.shared.begin(exchange.clone()),
            exchange,
            done: false,
        };
        let Some(mut struck) = struck else {
            return finish(&mut open, forward(inner, request).await);
        };
        let outcome = match struck.kind.clone() {
            Kind::Throttle => Ok(throttled(struck.kind.refusal(&operation))),
            Kind::ErrorBeforeApply => Ok(refusal(
                "InternalServerError",
                "Internal server error (nothing was applied; injected by the testkit's wire)",
                None,
            )),
            Kind::Conflict => Ok(conflict(&mut struck, &operation, &json)),
            Kind::Unprocessed(fraction) => {
                let held = if whole_batch_valid(&operation, &json) {
                    hold_back(&mut struck, fraction, &json)
                } else {
                    Held::None
                };
                match held {
                    Held::None => {
                        open.unstrike(&struck);
                        forward(inner, request).await
                    }
                    Held::All => Ok(throttled("ProvisionedThroughputExceededException")),
                    Held::Some { sent, held } => {
                        set_body(&mut request, &sent);
                        match forward(inner, request).await {
                            Ok((response, body)) if response.status().as_u16() == 200 => {
                                let merged = merge_unprocessed(body, &operation, held);
                                Ok((respond(200, &merged, Some(&response)), merged))
                            }
                            other => other,
                        }
                    }
                }
            }
            kind @ (Kind::ErrorAfterApply | Kind::DropAfterApply) => {
                match forward(inner, request).await {
                    // Only what the server accepted was applied: a refusal
                    // passes through, and the fault did not happen.
                    Ok((response, body)) if !response.status().is_success() => {
                        open.unstrike(&struck);
                        Ok((response, body))
                    }
                    Ok(_) if kind == Kind::ErrorAfterApply => Ok(refusal(
                        "InternalServerError",
                        "Internal server error (the request was applied; injected by the \
                         testkit's wire)",
                        None,
                    )),
                    Ok(_) => Err(ConnectorError::io(
                        "the connection closed before the answer (the request was applied; \
                         injected by the testkit's wire)"
                            .into(),
                    )),
                    Err(e) => Err(e),
                }
            }
            Kind::CutAnswer => match forward(inner, request).await {
                Ok((response, body)) if !response.status().is_success() => {
                    open.unstrike(&struck);
                    Ok((response, body))
                }
                Ok((response, body)) => {
                    open.end(Answer::Failed(CUT.to_owned()));
                    return Ok(cut(&response, &body));
                }
                Err(e) => Err(e),
            },
            Kind::Delay(delay) => match waits.wait(Some(delay)).await {
                Ok(()) => forward(inner, request).await,
                Err(e) => Err(e),
            },
            Kind::Silence => {
                self.shared.update(open.id, &open.exchange, true);
                match waits.wait(None).await {
                    Err(e) => Err(e),
                    Ok(()) => Err(ConnectorError::other("silence ended".into(), None)),
                }
            }
        };
        finish(&mut open, outcome)
    }
}

/// Records the answer, tells the watcher, hands the answer on.
fn finish(
    open: &mut Open<'_>,
    outcome: Result<(HttpResponse, Value), ConnectorError>,
) -> Result<HttpResponse, ConnectorError> {
    match outcome {
        Ok((response, body)) => {
            open.end(Answer::Http(response.status().as_u16(), body));
            Ok(response)
        }
        Err(e) => {
            open.end(Answer::Failed(chain(&e)));
            Err(e)
        }
    }
}

/// An error and its causes, each once: `timeout: read timeout: ...`.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// What a client sees of an answer the wire cuts.
const CUT: &str = "the connection closed in the middle of the answer (the request was applied; \
                   injected by the testkit's wire)";

/// `response` with only the first half of `body`, then an error.
fn cut(response: &HttpResponse, body: &Value) -> HttpResponse {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let half = bytes::Bytes::from(bytes[..bytes.len() / 2].to_vec());
    let mut cut = HttpResponse::new(response.status(), SdkBody::from_body_1_x(Cut(Some(half))));
    for (name, value) in response.headers() {
        cut.headers_mut().append(name.to_owned(), value.to_owned());
    }
    cut
}

/// A body that yields its first part, then fails as a closed connection.
struct Cut(Option<bytes::Bytes>);

impl http_body::Body for Cut {
    type Data = bytes::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
        std::task::Poll::Ready(Some(match self.0.take() {
            Some(first) => Ok(http_body::Frame::data(first)),
            None => Err(CUT.into()),
        }))
    }
}

/// A throttling refusal with DynamoDB's message for `code`.
fn throttled(code: &str) -> (HttpResponse, Value) {
    let message = if code == "ThrottlingException" {
        "Rate of requests exceeds the allowed throughput (injected by the testkit's wire)"
    } else {
        "The level of configured provisioned throughput for the table was exceeded. Consider \
         increasing your provisioning level with the UpdateTable API (injected by the testkit's \
         wire)"
    };
    refusal(code, message, None)
}

/// Whether DynamoDB would accept the batch `request` as a whole (at most
/// 25 writes or 100 keys, no key twice in one table's list, no empty
/// list): only such a batch may be answered partly, or the fault would
/// hide a refusal the server gives.
fn whole_batch_valid(operation: &str, request: &Value) -> bool {
    let Some(Value::Object(tables)) = request.get("RequestItems") else {
        return false;
    };
    let (limit, mut total) = if operation == "BatchGetItem" {
        (100, 0)
    } else {
        (25, 0)
    };
    for entries in tables.values() {
        let keys: Vec<&Value> = match entries {
            Value::Array(writes) => writes
                .iter()
                .filter_map(|w| {
                    w.get("PutRequest")
                        .and_then(|p| p.get("Item"))
                        .or_else(|| w.get("DeleteRequest").and_then(|d| d.get("Key")))
                })
                .collect(),
            Value::Object(o) => o
                .get("Keys")
                .and_then(Value::as_array)
                .map(|k| k.iter().collect())
                .unwrap_or_default(),
            _ => return false,
        };
        if keys.is_empty() {
            return false;
        }
        total += keys.len();
        // A put names its whole item: two puts of one key differ only in
        // the key attributes, which the wire does not know; equal items
        // (and equal keys of deletes and reads) it can see.
        let mut seen = std::collections::HashSet::new();
        if keys.iter().any(|k| !seen.insert(k.to_string())) {
            return false;
        }
    }
    total <= limit
}

/// Sends the request to the real server and reads the whole answer.
async fn forward(
    inner: &SharedHttpConnector,
    request: HttpRequest,
) -> Result<(HttpResponse, Value), ConnectorError> {
    let mut response = inner.call(request).await?;
    let bytes = ByteStream::new(response.take_body())
        .collect()
        .await
        .map_err(|e| ConnectorError::io(Box::new(e)))?
        .into_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    *response.body_mut() = SdkBody::from(bytes);
    Ok((response, body))
}

/// Waits with the client's own sleep (tokio's when it has none).
async fn pause(sleep: Option<SharedAsyncSleep>, delay: Duration) {
    match sleep {
        Some(sleep) => sleep.sleep(delay).await,
        None => tokio::time::sleep(delay).await,
    }
}

/// An answer made by the wire: `status` with `body` as DynamoDB's JSON,
/// the headers of `like` kept (less the ones the new body invalidates).
fn respond(status: u16, body: &Value, like: Option<&HttpResponse>) -> HttpResponse {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let len = bytes.len();
    // Only the wire's own constants (200, 400, 500) come here.
    let code = StatusCode::try_from(status).expect("a status code between 100 and 999");
    let mut response = HttpResponse::new(code, SdkBody::from(bytes));
    if let Some(like) = like {
        for (name, value) in like.headers() {
            response
                .headers_mut()
                .append(name.to_owned(), value.to_owned());
        }
    }
    let headers = response.headers_mut();
    headers.remove("x-amz-crc32");
    headers.insert("content-type", "application/x-amz-json-1.0");
    headers.insert("content-length", len.to_string());
    if !headers.contains_key("x-amzn-requestid") {
        headers.insert("x-amzn-requestid", "testkit-wire");
    }
    response
}

/// A 400 (500 for `InternalServerError`) refusal with DynamoDB's error body
/// (`Message`, capitalized, for a canceled transaction, as DynamoDB sends).
fn refusal(code: &str, message: &str, extra: Option<(&str, Value)>) -> (HttpResponse, Value) {
    let field = if code == "TransactionCanceledException" {
        "Message"
    } else {
        "message"
    };
    let mut body = json!({ "__type": format!("com.amazonaws.dynamodb.v20120810#{code}") });
    if let Some(map) = body.as_object_mut() {
        map.insert(field.to_owned(), Value::String(message.to_owned()));
    }
    if let (Some((field, value)), Some(map)) = (extra, body.as_object_mut()) {
        map.insert(field.to_owned(), value);
    }
    let status = if code == "InternalServerError" {
        500
    } else {
        400
    };
    (respond(status, &body, None), body)
}

/// A conflict: one action of a transaction named, or a single write refused.
fn conflict(struck: &mut Struck, operation: &str, request: &Value) -> (HttpResponse, Value) {
    let code = struck.kind.refusal(operation);
    if code != "TransactionCanceledException" {
        return refusal(
            code,
            "Transaction is ongoing for the item (injected by the testkit's wire)",
            None,
        );
    }
    let all = actions(request);
    let eligible: Vec<usize> = (0..all.len())
        .filter(|&i| match (&struck.table, all[i]) {
            (None, _) => true,
            (Some(t), Some((_, body))) => body.get("TableName").and_then(Value::as_str) == Some(t),
            (Some(_), None) => false,
        })
        .collect();
    let chosen = if eligible.is_empty() {
        None
    } else {
        let pick = usize::try_from(struck.dice.next() % eligible.len() as u64).unwrap_or(0);
        eligible.get(pick).copied()
    };
    let reasons: Vec<Value> = (0..all.len())
        .map(|i| {
            if Some(i) == chosen {
                json!({"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"})
            } else {
                json!({"Code": "None"})
            }
        })
        .collect();
    let codes: Vec<&str> = reasons
        .iter()
        .map(|r| r["Code"].as_str().unwrap_or("None"))
        .collect();
    let message = format!(
        "Transaction cancelled, please refer cancellation reasons for specific reasons [{}] \
         (injected by the testkit's wire)",
        codes.join(", ")
    );
    refusal(
        code,
        &message,
        Some(("CancellationReasons", Value::Array(reasons))),
    )
}

/// What a batch keeps back.
enum Held {
    /// Nothing: send it as it is.
    None,
    /// Everything: DynamoDB refuses the batch as throttled then.
    All,
    /// Some: send `sent`, and list `held` as unprocessed in the answer.
    Some {
        sent: Value,
        held: Map<String, Value>,
    },
}

/// Splits a batch's entries into sent and held back, each entry on the
/// rule's table held back with probability `fraction`.
fn hold_back(struck: &mut Struck, fraction: f64, request: &Value) -> Held {
    let Some(Value::Object(tables)) = request.get("RequestItems") else {
        return Held::None;
    };
    let mut sent_tables = Map::new();
    let mut held = Map::new();
    let (mut n_sent, mut n_held) = (0usize, 0usize);
    for (table, entries) in tables {
        let eligible = struck.table.as_ref().is_none_or(|t| t == table);
        // BatchWriteItem: a list of requests; BatchGetItem: {Keys: [..], ..}.
        let (list, rest) = match entries {
            Value::Array(list) => (list.clone(), None),
            Value::Object(o) => (
                o.get("Keys")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
                Some(o),
            ),
            _ => return Held::None,
        };
        let (mut keep, mut back) = (Vec::new(), Vec::new());
        for entry in list {
            if eligible && struck.dice.chance(fraction) {
                back.push(entry);
            } else {
                keep.push(entry);
            }
        }
        n_sent += keep.len();
        n_held += back.len();
        let wrap = |entries: Vec<Value>| match rest {
            None => Value::Array(entries),
            Some(o) => {
                let mut o = o.clone();
                o.insert("Keys".to_owned(), Value::Array(entries));
                Value::Object(o)
            }
        };
        if !keep.is_empty() {
            sent_tables.insert(table.clone(), wrap(keep));
        }
        if !back.is_empty() {
            held.insert(table.clone(), wrap(back));
        }
    }
    if n_held == 0 {
        return Held::None;
    }
    if n_sent == 0 {
        return Held::All;
    }
    let mut sent = request.clone();
    if let Some(map) = sent.as_object_mut() {
        map.insert("RequestItems".to_owned(), Value::Object(sent_tables));
    }
    Held::Some { sent, held }
}

/// The server's batch answer with the held-back entries added to what it
/// left unprocessed itself.
fn merge_unprocessed(mut answer: Value, operation: &str, held: Map<String, Value>) -> Value {
    let field = if operation == "BatchGetItem" {
        "UnprocessedKeys"
    } else {
        "UnprocessedItems"
    };
    let Some(body) = answer.as_object_mut() else {
        return answer;
    };
    let slot = body
        .entry(field.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    if let Some(unprocessed) = slot.as_object_mut() {
        for (table, entries) in held {
            match (unprocessed.get_mut(&table), entries) {
                (Some(Value::Array(mine)), Value::Array(more)) => mine.extend(more),
                (Some(Value::Object(mine)), Value::Object(more)) => {
                    let more_keys = more.get("Keys").and_then(Value::as_array).cloned();
                    match (mine.get_mut("Keys"), more_keys) {
                        (Some(Value::Array(keys)), Some(more)) => keys.extend(more),
                        (_, Some(more)) => {
                            mine.insert("Keys".to_owned(), Value::Array(more));
                        }
                        (_, None) => {}
                    }
                }
                (_, entries) => {
                    unprocessed.insert(table, entries);
                }
            }
        }
    }
    answer
}

/// Replaces a request's body (and its length).
fn set_body(request: &mut HttpRequest, body: &Value) {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    request
        .headers_mut()
        .insert("content-length", bytes.len().to_string());
    *request.body_mut() = SdkBody::from(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn struck(table: Option<&str>) -> Struck {
        Struck {
            kind: Kind::Unprocessed(0.5),
            table: table.map(str::to_owned),
            dice: Dice::new(11, 0, 0),
            counter: Arc::default(),
        }
    }

    #[test]
    fn only_a_batch_the_server_would_take_whole_is_answered_partly() {
        let put = |pk: &str| json!({"PutRequest": {"Item": {"pk": {"S": pk}}}});
        let batch = |n: usize| json!({"RequestItems": {"A": (0..n).map(|i| put(&format!("p{i}"))).collect::<Vec<_>>()}});
        assert!(whole_batch_valid("BatchWriteItem", &batch(25)));
        assert!(
            !whole_batch_valid("BatchWriteItem", &batch(26)),
            "over the limit"
        );
        let twice = json!({"RequestItems": {"A": [put("x"), put("x")]}});
        assert!(
            !whole_batch_valid("BatchWriteItem", &twice),
            "one item twice"
        );
        assert!(!whole_batch_valid(
            "BatchWriteItem",
            &json!({"RequestItems": {"A": []}})
        ));
        let keys = |n: usize| json!({"RequestItems": {"A": {"Keys": (0..n).map(|i| json!({"pk": {"S": format!("k{i}")}})).collect::<Vec<_>>()}}});
        assert!(whole_batch_valid("BatchGetItem", &keys(100)));
        assert!(!whole_batch_valid("BatchGetItem", &keys(101)));
        assert!(!whole_batch_valid("BatchGetItem", &Value::Null));
    }

    #[test]
    fn keys_handed_back_join_a_server_entry_without_keys() {
        let held = json!({"A": {"Keys": [{"pk": {"S": "k"}}]}});
        let Value::Object(held) = held else { panic!() };
        let answer = merge_unprocessed(
            json!({"UnprocessedKeys": {"A": {"ConsistentRead": true}}}),
            "BatchGetItem",
            held,
        );
        assert_eq!(
            answer["UnprocessedKeys"]["A"]["Keys"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
    }

    #[test]
    fn a_partial_batch_sends_part_and_hands_back_the_rest_each_entry_once() {
        let puts: Vec<Value> = (0..25)
            .map(|i| json!({"PutRequest": {"Item": {"pk": {"S": format!("p{i}")}}}}))
            .collect();
        let request = json!({"RequestItems": {"A": puts, "B": [{"DeleteRequest": {"Key": {"pk": {"S": "x"}}}}]}});
        let Held::Some { sent, held } = hold_back(&mut struck(Some("A")), 0.5, &request) else {
            panic!("some held back");
        };
        let sent_a = sent["RequestItems"]["A"].as_array().map_or(0, Vec::len);
        let held_a = held["A"].as_array().map_or(0, Vec::len);
        assert_eq!(sent_a + held_a, 25);
        assert!(held_a > 0 && sent_a > 0);
        assert_eq!(
            sent["RequestItems"]["B"].as_array().map(Vec::len),
            Some(1),
            "B is not the rule's table"
        );
        assert!(!held.contains_key("B"));
        let answer = merge_unprocessed(
            json!({"UnprocessedItems": {"A": [{"PutRequest": {"Item": {"pk": {"S": "server"}}}}]}}),
            "BatchWriteItem",
            held,
        );
        assert_eq!(
            answer["UnprocessedItems"]["A"].as_array().map(Vec::len),
            Some(held_a + 1)
        );
    }

    #[test]
    fn a_partial_read_keeps_the_tables_read_options_for_the_keys_handed_back() {
        let keys: Vec<Value> = (0..40)
            .map(|i| json!({"pk": {"S": format!("k{i}")}}))
            .collect();
        let request = json!({"RequestItems": {"A": {"Keys": keys, "ConsistentRead": true, "ProjectionExpression": "#a"}}});
        let Held::Some { sent, held } = hold_back(&mut struck(None), 0.5, &request) else {
            panic!("some held back");
        };
        assert_eq!(held["A"]["ConsistentRead"], true);
        assert_eq!(sent["RequestItems"]["A"]["ProjectionExpression"], "#a");
        let n = |v: &Value| v["Keys"].as_array().map_or(0, Vec::len);
        assert_eq!(n(&held["A"]) + n(&sent["RequestItems"]["A"]), 40);
        let answer = merge_unprocessed(
            json!({"Responses": {"A": []}}),
            "BatchGetItem",
            held.clone(),
        );
        assert_eq!(answer["UnprocessedKeys"], Value::Object(held));
    }

    #[test]
    fn a_batch_with_every_entry_held_back_is_refused_as_throttled() {
        let request = json!({"RequestItems": {"A": [{"PutRequest": {"Item": {}}}]}});
        assert!(matches!(
            hold_back(&mut struck(None), 1.0, &request),
            Held::All
        ));
        assert!(matches!(
            hold_back(&mut struck(None), 0.0, &request),
            Held::None
        ));
    }

    #[test]
    fn a_conflict_names_one_action_on_the_rules_table() {
        let request = json!({"TransactItems": [
            {"Put": {"TableName": "A", "Item": {}}},
            {"Delete": {"TableName": "B", "Key": {}}},
            {"Put": {"TableName": "A", "Item": {}}}
        ]});
        let mut s = struck(Some("B"));
        s.kind = Kind::Conflict;
        let (response, body) = conflict(&mut s, "TransactWriteItems", &request);
        assert_eq!(response.status().as_u16(), 400);
        let codes: Vec<&str> = body["CancellationReasons"]
            .as_array()
            .map(|a| a.iter().filter_map(|r| r["Code"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(codes, ["None", "TransactionConflict", "None"]);
    }
}
