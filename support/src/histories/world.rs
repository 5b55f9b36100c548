//! The deterministic world of one seed: a `current_thread` runtime on a
//! paused clock, clients whose sleep and time source are that clock, and a
//! doorway to the embedded emulator that hands each request over and
//! waits for its answer without yielding to the runtime.
//!
//! Because the doorway blocks the runtime's only thread while the emulator
//! works, no timer can fire and the paused clock cannot move while a
//! request is with the emulator: time advances only when every client is
//! waiting on a timer (tokio's auto-advance), and a request is atomic with
//! respect to every client. The doorway is also the ground truth: it logs
//! each request the emulator answered, tagged with the helper call that
//! sent it, and after each write the emulator accepted, the whole table as
//! the emulator then holds it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{
    BehaviorVersion, Credentials, Region, SharedAsyncSleep, StalledStreamProtectionConfig,
};
use aws_smithy_async::rt::sleep::TokioSleep;
use aws_smithy_async::time::{SharedTimeSource, TimeSource};
use aws_smithy_runtime_api::client::http::{
    HttpConnector, HttpConnectorFuture, SharedHttpConnector, http_client_fn,
};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use serde_json::Value;

tokio::task_local! {
    /// The helper call a request belongs to (set around each call).
    pub(super) static CALL: usize;
}

/// When the virtual clock starts: the same instant on every run.
const EPOCH: Duration = Duration::from_secs(1_780_000_000);
/// How long the doorway waits for the emulator before it says so.
const EMULATOR_TIMEOUT: Duration = Duration::from_secs(30);

/// One request the emulator answered.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The helper call that sent it (`None`: the world's own setup).
    pub call: Option<usize>,
    /// DynamoDB's name of the operation.
    pub operation: String,
    /// The body the emulator received.
    pub sent: Value,
    /// Its answer's status and body.
    pub status: u16,
    /// The answer's JSON.
    pub answer: Value,
    /// For a write it accepted (status 200): every item of the table the
    /// write was on, as the emulator held them just after.
    pub after: Option<Vec<Value>>,
}

/// An emulator of one world's own (a dynoxide server on its own thread,
/// an in-memory database): nothing a seed did, not even a transaction's
/// idempotency token, is seen by the next. Stopped when dropped.
struct Emulator {
    port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Emulator {
    fn start() -> Result<Emulator, String> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| format!("cannot bind a port for the emulator: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("cannot read the emulator's port: {e}"))?
            .port();
        let db =
            dynoxide::Database::memory().map_err(|e| format!("cannot open the emulator: {e}"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("histories-emulator".into())
            .spawn(move || {
                let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                runtime.block_on(async move {
                    if let Ok(listener) = tokio::net::TcpListener::from_std(listener) {
                        let stopped = async move {
                            let _ = stopped.await;
                        };
                        let _ = dynoxide::server::serve_with_shutdown(listener, db, stopped).await;
                    }
                });
            })
            .map_err(|e| format!("cannot start the emulator's thread: {e}"))?;
        Ok(Emulator {
            port,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The doorway: hands requests to the emulator over one kept-alive
/// connection, blocking, and logs what it answered.
#[derive(Clone)]
pub struct Doorway {
    // Dropped before the emulator, which waits for its connections to end.
    conn: Arc<Mutex<Option<BufReader<TcpStream>>>>,
    log: Arc<Mutex<Vec<Applied>>>,
    /// Requests answered: each moves the clients' clock on by a
    /// millisecond ([`Virtual`]).
    served: Arc<AtomicU64>,
    port: u16,
    /// Kept alive while any client can send.
    _emulator: Arc<Emulator>,
}

impl std::fmt::Debug for Doorway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Doorway").field("port", &self.port).finish()
    }
}

impl Doorway {
    /// A doorway to an emulator of its own.
    ///
    /// # Errors
    /// When the emulator cannot start.
    pub fn open() -> Result<Doorway, String> {
        let emulator = Emulator::start()?;
        Ok(Doorway {
            conn: Arc::default(),
            log: Arc::default(),
            served: Arc::default(),
            port: emulator.port,
            _emulator: Arc::new(emulator),
        })
    }

    /// What the emulator answered so far, in order.
    pub fn log(&self) -> Vec<Applied> {
        lock(&self.log).clone()
    }

    /// Sends `body` as `operation` and returns the status and JSON answer,
    /// without logging it (the world's own setup and snapshots).
    ///
    /// # Errors
    /// When the emulator cannot be reached or answers no HTTP.
    pub fn raw(&self, operation: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        let signed = "authorization: AWS4-HMAC-SHA256 Credential=histories/20260101/us-east-1/\
                      dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n\
                      x-amz-date: 20260101T000000Z\r\n";
        self.send(operation, signed, body)
    }

    /// Sends `body` as `operation` with the `signed` header lines.
    fn send(&self, operation: &str, signed: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        let mut conn = lock(&self.conn);
        // One retry on a fresh connection: a kept-alive one may have closed.
        for _ in 0..2 {
            if conn.is_none() {
                let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))
                    .map_err(|e| format!("cannot reach the emulator: {e}"))?;
                let _ = stream.set_nodelay(true);
                let _ = stream.set_read_timeout(Some(EMULATOR_TIMEOUT));
                *conn = Some(BufReader::new(stream));
            }
            let Some(stream) = conn.as_mut() else {
                continue;
            };
            match exchange(stream, self.port, operation, signed, body) {
                Ok(answer) => return Ok(answer),
                Err(_) => *conn = None,
            }
        }
        Err(format!("the emulator did not answer {operation}"))
    }

    /// Sends a request of the SDK's, logs it, and snapshots the table after
    /// an accepted write.
    fn pass(&self, request: &HttpRequest) -> Result<HttpResponse, ConnectorError> {
        let operation = request
            .headers()
            .get("x-amz-target")
            .and_then(|t| t.rsplit('.').next())
            .unwrap_or("unknown")
            .to_owned();
        let body = request.body().bytes().unwrap_or_default().to_vec();
        let mut signed = String::new();
        for name in ["authorization", "x-amz-date", "x-amz-security-token"] {
            if let Some(value) = request.headers().get(name) {
                signed.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        let (status, answer) = self
            .send(&operation, &signed, &body)
            .map_err(|e| ConnectorError::io(e.into()))?;
        self.served.fetch_add(1, Ordering::Relaxed);
        let sent: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let after = if status == 200 && is_write(&operation) {
            Some(self.snapshot(&sent))
        } else {
            None
        };
        lock(&self.log).push(Applied {
            call: CALL.try_with(|c| *c).ok(),
            operation,
            sent,
            status,
            answer: serde_json::from_slice(&answer).unwrap_or(Value::Null),
            after,
        });
        let code =
            StatusCode::try_from(status).map_err(|e| ConnectorError::other(e.into(), None))?;
        let mut response = HttpResponse::new(code, SdkBody::from(answer));
        response
            .headers_mut()
            .insert("content-type", "application/x-amz-json-1.0");
        Ok(response)
    }

    /// Every item of the tables `request` wrote, read consistently.
    fn snapshot(&self, request: &Value) -> Vec<Value> {
        let mut items = Vec::new();
        for table in tables_of(request) {
            let body = serde_json::json!({"TableName": table, "ConsistentRead": true});
            let Ok((200, answer)) = self.raw("Scan", body.to_string().as_bytes()) else {
                continue;
            };
            let answer: Value = serde_json::from_slice(&answer).unwrap_or(Value::Null);
            if let Some(found) = answer.get("Items").and_then(Value::as_array) {
                items.extend(found.iter().cloned().map(|mut item| {
                    if let Some(map) = item.as_object_mut() {
                        map.insert("__table".into(), Value::String(table.clone()));
                    }
                    item
                }));
            }
        }
        items
    }

    /// A client of the virtual world: virtual sleep and clock, the SDK's
    /// retries and timeouts as a careful application sets them, this
    /// doorway as its HTTP client.
    pub fn client(&self, started: tokio::time::Instant) -> Client {
        let door = self.clone();
        let http = http_client_fn(move |_, _| SharedHttpConnector::new(door.clone()));
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("histories", "histories", None, None, "h"))
            .endpoint_url(format!("http://127.0.0.1:{}", self.port))
            .http_client(http)
            .sleep_impl(SharedAsyncSleep::new(TokioSleep::new()))
            .time_source(SharedTimeSource::new(Virtual(started, self.served.clone())))
            .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
            .retry_config(RetryConfig::standard().with_max_attempts(3))
            .timeout_config(
                TimeoutConfig::builder()
                    .operation_attempt_timeout(Duration::from_secs(1))
                    .operation_timeout(Duration::from_secs(3))
                    .build(),
            )
            .build();
        Client::from_conf(config)
    }
}

impl HttpConnector for Doorway {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let door = self.clone();
        // Answered in the first poll, never yielding: the request is atomic.
        HttpConnectorFuture::new(async move { door.pass(&request) })
    }
}

/// The clients' clock: tokio's paused time from a fixed epoch, plus a
/// millisecond per request the emulator answered. Requests take no virtual
/// time (they are atomic), yet on a real clock time passes between any
/// two: without it, a key deleted and created again at one instant would
/// get its first version from the same microsecond.
#[derive(Debug)]
struct Virtual(tokio::time::Instant, Arc<AtomicU64>);

impl TimeSource for Virtual {
    fn now(&self) -> SystemTime {
        let served = Duration::from_millis(self.1.load(Ordering::Relaxed));
        SystemTime::UNIX_EPOCH + EPOCH + self.0.elapsed() + served
    }
}

/// Whether `operation` writes items.
fn is_write(operation: &str) -> bool {
    matches!(
        operation,
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems"
    )
}

/// The tables a request names, each once, in order.
pub(super) fn tables_of(request: &Value) -> Vec<String> {
    let mut tables: Vec<String> = Vec::new();
    let mut add = |t: &str| {
        if !tables.iter().any(|x| x == t) {
            tables.push(t.to_owned());
        }
    };
    if let Some(t) = request.get("TableName").and_then(Value::as_str) {
        add(t);
    }
    if let Some(Value::Object(map)) = request.get("RequestItems") {
        map.keys().for_each(|t| add(t));
    }
    if let Some(Value::Array(actions)) = request.get("TransactItems") {
        for action in actions {
            if let Some(Value::Object(a)) = Some(action) {
                for body in a.values() {
                    if let Some(t) = body.get("TableName").and_then(Value::as_str) {
                        add(t);
                    }
                }
            }
        }
    }
    tables
}

/// One HTTP/1.1 exchange on a kept-alive connection: the emulator answers
/// with a `content-length` (it never streams).
fn exchange(
    stream: &mut BufReader<TcpStream>,
    port: u16,
    operation: &str,
    signed: &str,
    body: &[u8],
) -> Result<(u16, Vec<u8>), String> {
    let head = format!(
        "POST / HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/x-amz-json-1.0\r\n\
         x-amz-target: DynamoDB_20120810.{operation}\r\n{signed}content-length: {}\r\n\r\n",
        body.len()
    );
    let io = |e: std::io::Error| e.to_string();
    let writer = stream.get_mut();
    writer.write_all(head.as_bytes()).map_err(io)?;
    writer.write_all(body).map_err(io)?;
    let mut line = String::new();
    stream.read_line(&mut line).map_err(io)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
    let mut length = None;
    loop {
        line.clear();
        stream.read_line(&mut line).map_err(io)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let length = length.ok_or("an answer without content-length")?;
    let mut answer = vec![0; length];
    stream.read_exact(&mut answer).map_err(io)?;
    Ok((status, answer))
}

/// Items of the DynamoDB JSON the emulator sends, as the SDK's values.
pub(super) fn item_of(json: &Value) -> BTreeMap<String, aws_sdk_dynamodb::types::AttributeValue> {
    json.as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.as_str() != "__table")
                .filter_map(|(k, v)| Some((k.clone(), value_of(v)?)))
                .collect()
        })
        .unwrap_or_default()
}

fn value_of(json: &Value) -> Option<aws_sdk_dynamodb::types::AttributeValue> {
    use aws_sdk_dynamodb::types::AttributeValue as A;
    let (tag, v) = json.as_object()?.iter().next()?;
    Some(match tag.as_str() {
        "S" => A::S(v.as_str()?.to_owned()),
        "N" => A::N(v.as_str()?.to_owned()),
        "BOOL" => A::Bool(v.as_bool()?),
        "NULL" => A::Null(true),
        "SS" => A::Ss(strings(v)?),
        "NS" => A::Ns(strings(v)?),
        "L" => A::L(v.as_array()?.iter().filter_map(value_of).collect()),
        "M" => A::M(item_of(v).into_iter().collect()),
        _ => return None,
    })
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
