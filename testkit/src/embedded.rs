//! The embedded backend: dynoxide serving HTTP from a thread of the test
//! process.

use std::net::{Ipv4Addr, TcpListener};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::error::TestkitError;

/// How long [`Drop`] waits for the server thread to finish. Stopping takes
/// milliseconds; only a request that never completes (a client that sent
/// half a request and stalls) can hold it longer, and then the thread is left
/// to end with the process rather than hang the test.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the runtime gives connection tasks still running after the
/// server returned.
const RUNTIME_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(1);
/// Worker threads of the server's runtime: two, so one request's HTTP work
/// overlaps another's database work (dynoxide serialises the database
/// itself).
const WORKER_THREADS: usize = 2;

/// A dynoxide HTTP server on `127.0.0.1:<port>`, with an in-memory database,
/// running on its own thread and tokio runtime so that clients from any
/// runtime (every `#[tokio::test]` has its own) can use it. Dropping it stops
/// the server and frees the database.
pub(crate) struct EmbeddedServer {
    port: u16,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl EmbeddedServer {
    /// Binds `127.0.0.1:0` (so the port is ours before anyone can take it),
    /// then starts serving on a new thread. The listener accepts connections
    /// from the moment it is bound, so no readiness polling is needed: this
    /// returns once the server's runtime is up.
    pub(crate) async fn start() -> Result<Self, TestkitError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
            .map_err(|e| TestkitError::io("failed to bind a port on 127.0.0.1", e))?;
        let port = listener
            .local_addr()
            .map_err(|e| TestkitError::io("failed to read the bound port", e))?
            .port();
        let db = dynoxide::Database::memory().map_err(|e| TestkitError::EmbeddedStartup {
            reason: format!("failed to open an in-memory database: {e}"),
        })?;
        let (stop, stopped) = oneshot::channel::<()>();
        let (ready_tx, ready) = oneshot::channel::<Result<(), TestkitError>>();
        let thread = thread::Builder::new()
            .name(format!("testkit-dynoxide-{port}"))
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(WORKER_THREADS)
                    .thread_name(format!("testkit-dynoxide-{port}-worker"))
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready_tx.send(Err(TestkitError::io(
                            "failed to build the embedded server's tokio runtime",
                            e,
                        )));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => listener,
                        Err(e) => {
                            let _ = ready_tx.send(Err(TestkitError::io(
                                "failed to register the embedded server's listener",
                                e,
                            )));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    // Resolves when `stop` is sent or dropped. An error here
                    // means the listener failed; clients then see refused
                    // connections, which is what a dead server looks like.
                    let _ = dynoxide::server::serve_with_shutdown(listener, db, async move {
                        let _ = stopped.await;
                    })
                    .await;
                });
                runtime.shutdown_timeout(RUNTIME_SHUTDOWN_TIMEOUT);
            })
            .map_err(|e| TestkitError::io("failed to spawn the embedded server's thread", e))?;
        match ready.await {
            Ok(Ok(())) => Ok(EmbeddedServer {
                port,
                stop: Some(stop),
                thread: Some(thread),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(TestkitError::EmbeddedStartup {
                reason: format!(
                    "its thread ended before serving: {}",
                    panic_message(thread.join())
                ),
            }),
        }
    }

    /// The loopback port the server listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }
}

/// What a joined thread's panic said.
fn panic_message(joined: thread::Result<()>) -> String {
    match joined {
        Ok(()) => "it returned without a word".into(),
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "it panicked".into()),
    }
}

impl Drop for EmbeddedServer {
    /// Stops accepting, closes idle connections, lets running requests
    /// finish, then waits (bounded) until the thread and its runtime are gone.
    fn drop(&mut self) {
        drop(self.stop.take());
        let Some(thread) = self.thread.take() else {
            return;
        };
        let deadline = Instant::now() + STOP_TIMEOUT;
        while !thread.is_finished() {
            if Instant::now() >= deadline {
                return; // detached; it ends with the process
            }
            thread::sleep(Duration::from_millis(1));
        }
        let _ = thread.join();
    }
}
