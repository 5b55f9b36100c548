//! [`CreateTable`]: a table made from its layout and made ready to use:
//! `CreateTable` sent once, `DescribeTable` until the table and its indexes
//! are `ACTIVE` (bounded), then `UpdateTimeToLive` when the layout declares
//! a TTL attribute.

use std::fmt;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::create_table::CreateTableError;
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder;
use aws_sdk_dynamodb::operation::update_time_to_live::UpdateTimeToLiveError;
use aws_sdk_dynamodb::types::{
    IndexStatus, StreamSpecification, StreamViewType, TableDescription, TableStatus,
    TimeToLiveSpecification,
};
use tracing::Instrument;

use super::Table;
use super::call::{Failed, RefusedForNow, Resend, call};
use crate::error::{Error, Result};
use crate::schema::TableDefinition;

/// How long [`CreateTable::send`] waits for a new table and its indexes to
/// become `ACTIVE` unless told otherwise: 5 minutes.
///
/// DynamoDB usually needs seconds, more with many indexes; the emulators
/// create tables active at once.
pub(crate) const DEFAULT_ACTIVE_WAIT: Duration = Duration::from_secs(300);

/// The first pause between two `DescribeTable` calls; each next pause is
/// twice as long, up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(50);
/// The longest pause between two `DescribeTable` calls.
const MAX_POLL: Duration = Duration::from_secs(2);

type Customize = Box<dyn FnOnce(CreateTableFluentBuilder) -> CreateTableFluentBuilder + Send>;

/// Creates a [`Table`] from its layout and gets it ready: started by
/// [`Table::create_table`], sent by [`send`](Self::send).
///
/// What it sends is [`TableDefinition::create_table_request`] (on-demand
/// billing, every index projecting all attributes, a stream when
/// [`stream`](Self::stream) asks for one), changed by
/// [`map_request`](Self::map_request) if you need more, then
/// `DescribeTable` until the table is usable, then
/// [`TableDefinition::update_time_to_live_request`] when the layout
/// declares a TTL attribute.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use std::time::Duration;
/// use aws_sdk_dynamodb::types::StreamViewType;
///
/// let create = table()
///     .create_table()
///     .stream(StreamViewType::NewAndOldImages)
///     .max_wait(Duration::from_secs(60));
/// # let _ = create; // create.send().await?;
/// ```
#[must_use = "a CreateTable does nothing until `send` is awaited"]
pub struct CreateTable {
    table: Table,
    definition: TableDefinition,
    max_wait: Duration,
    customize: Option<Customize>,
}

impl fmt::Debug for CreateTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CreateTable")
            .field("definition", &self.definition)
            .field("max_wait", &self.max_wait)
            .field("map_request", &self.customize.is_some())
            .finish_non_exhaustive()
    }
}

impl Table {
    /// Creates this table from its layout and gets it ready to use, when
    /// the returned [`CreateTable`] is sent: `CreateTable` (on-demand, every
    /// index projecting all attributes, a stream if
    /// [`stream`](CreateTable::stream) asks for one), then `DescribeTable`
    /// until the table and its indexes are `ACTIVE` (at most
    /// [`max_wait`](CreateTable::max_wait)), then `UpdateTimeToLive` when
    /// the layout declares a TTL attribute. A table of that name that
    /// exists already is an
    /// [`ErrorKind::TableExists`](crate::ErrorKind::TableExists) error; see
    /// [`CreateTable::send`] for every error.
    ///
    /// For the plain request, to send yourself, see
    /// [`TableDefinition::create_table_request`](crate::TableDefinition::create_table_request); for the JSON documents of
    /// infrastructure tools, [`TableDefinition`](crate::TableDefinition).
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::create_table::CreateTableOutput;
    /// # use aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput;
    /// # use aws_sdk_dynamodb::operation::update_time_to_live::UpdateTimeToLiveOutput;
    /// # use aws_sdk_dynamodb::types::{StreamSpecification, TableDescription, TableStatus};
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # // A DynamoDB that creates tables active at once, with their stream.
    /// # let create = mock!(Client::create_table).then_output(|| CreateTableOutput::builder().build());
    /// # let describe = mock!(Client::describe_table).then_output(|| {
    /// #     let stream = StreamSpecification::builder()
    /// #         .stream_enabled(true)
    /// #         .stream_view_type(aws_sdk_dynamodb::types::StreamViewType::NewAndOldImages)
    /// #         .build()
    /// #         .unwrap();
    /// #     DescribeTableOutput::builder()
    /// #         .table(
    /// #             TableDescription::builder()
    /// #                 .table_name("Sessions")
    /// #                 .table_status(TableStatus::Active)
    /// #                 .stream_specification(stream)
    /// #                 .latest_stream_arn("arn:aws:dynamodb:eu-west-1:123456789012:table/Sessions/stream/2025-01-01T00:00:00.000")
    /// #                 .build(),
    /// #         )
    /// #         .build()
    /// # });
    /// # let ttl = mock!(Client::update_time_to_live).then_compute_output(|req| {
    /// #     UpdateTimeToLiveOutput::builder()
    /// #         .set_time_to_live_specification(req.time_to_live_specification().cloned())
    /// #         .build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&create, &describe, &ttl]);
    /// use aws_sdk_dynamodb::types::StreamViewType;
    /// use dynamodb_mapper::{TableSchema, ops::Table};
    ///
    /// const SESSIONS: TableSchema = TableSchema::new("pk").ttl("expiresAt");
    ///
    /// let created = Table::new(&client, "Sessions", SESSIONS)
    ///     .create_table()
    ///     .stream(StreamViewType::NewAndOldImages)
    ///     .send()
    ///     .await?;
    /// assert!(created.description.latest_stream_arn().is_some());
    /// assert_eq!(created.time_to_live.map(|t| t.attribute_name), Some("expiresAt".into()));
    /// # Ok(())
    /// # }
    /// ```
    pub fn create_table(&self) -> CreateTable {
        CreateTable {
            definition: self.schema().definition(self.name()),
            table: self.clone(),
            max_wait: DEFAULT_ACTIVE_WAIT,
            customize: None,
        }
    }
}

impl CreateTable {
    /// Enables the table's stream with `view_type`: what each stream record
    /// holds (`KeysOnly`, `NewImage`, `OldImage` or `NewAndOldImages`). The
    /// stream's ARN is then `latest_stream_arn()` of [`CreatedTable::description`].
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::StreamViewType;
    /// let create = table().create_table().stream(StreamViewType::KeysOnly);
    /// # let _ = create;
    /// ```
    pub fn stream(mut self, view_type: StreamViewType) -> Self {
        self.definition = self.definition.stream(view_type);
        self
    }

    /// How long to wait for the table and its indexes to become `ACTIVE`
    /// after `CreateTable` was answered (default 5 minutes).
    /// The wait ends within this bound plus at most one call bound (the
    /// [`Table`]'s [`call_timeout`](Table::call_timeout), for a
    /// `DescribeTable` under way).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use std::time::Duration;
    /// let create = table().create_table().max_wait(Duration::from_secs(30));
    /// # let _ = create;
    /// ```
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = max_wait;
        self
    }

    /// Changes the `CreateTable` request before it is sent: tags, deletion
    /// protection, a table class, provisioned throughput, whatever the SDK's
    /// builder offers. Called twice, both changes apply, in order. The
    /// table's name stays the [`Table`]'s (a name set here is replaced), so
    /// the helper waits for, and enables TTL on, the table it created.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::Tag;
    /// let tag = Tag::builder().key("team").value("orders").build()?;
    /// let create = table()
    ///     .create_table()
    ///     .map_request(|request| request.deletion_protection_enabled(true))
    ///     .map_request(move |request| request.tags(tag));
    /// # let _ = create;
    /// # Ok::<(), aws_sdk_dynamodb::error::BuildError>(())
    /// ```
    pub fn map_request<F>(mut self, change: F) -> Self
    where
        F: FnOnce(CreateTableFluentBuilder) -> CreateTableFluentBuilder + Send + 'static,
    {
        self.customize = Some(match self.customize.take() {
            None => Box::new(change),
            Some(first) => Box::new(move |request| change(first(request))),
        });
        self
    }

    /// Creates the table and gets it ready, in three steps:
    ///
    /// 1. `CreateTable`, sent once: the SDK's own retries are off for it,
    ///    because a retry of a request whose answer was lost would find the
    ///    table it created and report it as already there. Refusals that
    ///    ask to come back later (throttling, too many table operations at
    ///    once) are retried per the table's [`RetryPolicy`](super::RetryPolicy).
    /// 2. `DescribeTable` until the table and all its global secondary
    ///    indexes are `ACTIVE`, pausing 50 ms, then twice as long each time
    ///    up to 2 s, for at most [`max_wait`](Self::max_wait).
    /// 3. When the layout declares a TTL attribute, `UpdateTimeToLive`
    ///    enabling it (sent once, like `CreateTable`). DynamoDB may take up
    ///    to an hour to start deleting expired items; this does not wait
    ///    for that.
    ///
    /// Every call is bounded by the [`Table`]'s
    /// [`call_timeout`](Table::call_timeout).
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::TableExists`](crate::ErrorKind::TableExists) when a
    ///   table of that name exists already, in any state (nothing was
    ///   changed; the SDK's `ResourceInUseException` is the source).
    /// - [`ErrorKind::TableNotActive`](crate::ErrorKind::TableNotActive)
    ///   when the table is not `ACTIVE` within [`max_wait`](Self::max_wait):
    ///   the table exists (its state is in the message), TTL is not enabled
    ///   yet.
    /// - [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) when a call got
    ///   no answer in time (its details name the request; for `CreateTable`
    ///   the table may or may not have been created).
    /// - [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) when a call failed: its
    ///   details name the request. `UpdateTimeToLive` failing means
    ///   the table exists and is `ACTIVE` but TTL is not enabled: send
    ///   [`TableDefinition::update_time_to_live_request`] to finish.
    /// - [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    ///   when DynamoDB's answers contradict the request: the table went to
    ///   another state than `ACTIVE` (such as `DELETING`), was created
    ///   without the stream asked for, or `UpdateTimeToLive` answered with
    ///   another attribute or TTL disabled.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::create_table::CreateTableError;
    /// # use aws_sdk_dynamodb::types::error::ResourceInUseException;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // DynamoDB already has the table.
    /// # let rule = mock!(Client::create_table).then_error(|| {
    /// #     CreateTableError::ResourceInUseException(
    /// #         ResourceInUseException::builder().message("Table already exists: AppTable").build(),
    /// #     )
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// use dynamodb_mapper::{ErrorKind, TableSchema, ops::Table};
    ///
    /// let table = Table::new(&client, "AppTable", TableSchema::new("pk").ttl("expiresAt"));
    /// let err = table.create_table().send().await.unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::TableExists);
    /// assert_eq!(err.to_string(), "table AppTable already exists");
    /// # }
    /// ```
    pub async fn send(self) -> Result<CreatedTable> {
        let CreateTable {
            table,
            definition,
            max_wait,
            customize,
        } = self;
        let span = tracing::info_span!(
            "dynamodb_mapper.create_table",
            table = table.name(),
            stream = definition.stream.as_ref().map(StreamViewType::as_str),
            ttl = table.schema().ttl,
        );
        async move {
            let mut request = definition.create_table_request(table.client());
            if let Some(customize) = customize {
                request = customize(request).table_name(table.name());
            }
            let stream = request.get_stream_specification().clone();
            create(&table, request).await?;
            let description = wait_until_active(&table, max_wait).await?;
            check_stream(&table, stream.as_ref(), &description)?;
            let time_to_live = enable_ttl(&table, &definition).await?;
            Ok(CreatedTable {
                description,
                time_to_live,
            })
        }
        .instrument(span)
        .await
    }
}

/// A table [`CreateTable::send`] created and got ready: plain data.
///
/// ```
/// # let created = dynamodb_mapper_support::doc::created_table();
/// use aws_sdk_dynamodb::types::TableStatus;
/// assert_eq!(created.description.table_status(), Some(&TableStatus::Active));
/// assert_eq!(created.time_to_live.map(|t| t.attribute_name), Some("expiresAt".into()));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CreatedTable {
    /// The table as the last `DescribeTable` saw it, `ACTIVE`: its indexes
    /// and, with a stream, `latest_stream_arn()`.
    pub description: TableDescription,
    /// The TTL setting `UpdateTimeToLive` confirmed, when the schema has a
    /// TTL attribute.
    pub time_to_live: Option<TimeToLiveSpecification>,
}

fn refused_for_now(limit_exceeded: bool, code: Option<&str>) -> bool {
    limit_exceeded
        || matches!(
            code,
            Some("ThrottlingException" | "RequestLimitExceeded" | "LimitExceededException")
        )
}

impl RefusedForNow for CreateTableError {
    fn refused_for_now(&self) -> bool {
        refused_for_now(self.is_limit_exceeded_exception(), self.code())
    }
}

impl RefusedForNow for UpdateTimeToLiveError {
    fn refused_for_now(&self) -> bool {
        refused_for_now(self.is_limit_exceeded_exception(), self.code())
    }
}

/// Step 1: `CreateTable`, once.
async fn create(table: &Table, request: CreateTableFluentBuilder) -> Result<()> {
    let sent = table.send_conditional("CreateTable", Resend::Refused, |once| {
        request.clone().customize().config_override(once).send()
    });
    match sent.await {
        Ok(_) => Ok(()),
        Err(Failed::Service(e)) if e.is_resource_in_use_exception() => {
            Err(Error::table_exists(table.name(), e.into()))
        }
        Err(failed) => Err(failed.into_error("CreateTable")),
    }
}

/// Step 2: `DescribeTable` until the table and its indexes are `ACTIVE`.
async fn wait_until_active(table: &Table, max_wait: Duration) -> Result<TableDescription> {
    let started = Instant::now();
    let mut pause = FIRST_POLL;
    loop {
        let request = table
            .client()
            .describe_table()
            .table_name(table.name())
            .send();
        let status = match call(&table.bound(), "DescribeTable", request).await {
            Ok(output) => {
                let Some(description) = output.table else {
                    return Err(Error::unexpected_response(
                        "DescribeTable",
                        format!("no description of table {}", table.name()),
                    ));
                };
                match readiness(&description) {
                    Readiness::Ready => return Ok(description),
                    Readiness::NotYet(status) => status,
                    Readiness::Never(status) => {
                        return Err(Error::unexpected_response(
                            "DescribeTable",
                            format!(
                                "table {} is {status} while waiting for it to become ACTIVE",
                                table.name()
                            ),
                        ));
                    }
                }
            }
            // Right after `CreateTable`, DynamoDB may not show the table yet.
            Err(Failed::Service(e)) if e.is_resource_not_found_exception() => {
                "not found yet".to_owned()
            }
            Err(failed) => return Err(failed.into_error("DescribeTable")),
        };
        let waited = started.elapsed();
        if waited >= max_wait {
            return Err(Error::table_not_active(table.name(), max_wait, status));
        }
        tracing::debug!(status, ?waited, "table not active yet");
        table
            .bound()
            .pause("DescribeTable", pause.min(max_wait - waited))
            .await?;
        pause = (pause * 2).min(MAX_POLL);
    }
}

enum Readiness {
    Ready,
    /// Not usable yet, saying why (`CREATING`, `ACTIVE, index GSI1 is
    /// CREATING`).
    NotYet(String),
    /// In a state it does not leave by itself for `ACTIVE`.
    Never(String),
}

fn readiness(description: &TableDescription) -> Readiness {
    let pending_index = description
        .global_secondary_indexes()
        .iter()
        .find(|index| index.index_status() != Some(&IndexStatus::Active));
    match (description.table_status(), pending_index) {
        (Some(TableStatus::Active), None) => Readiness::Ready,
        (Some(TableStatus::Active), Some(index)) => Readiness::NotYet(format!(
            "ACTIVE, index {} is {}",
            index.index_name().unwrap_or("(unnamed)"),
            index
                .index_status()
                .map_or("without status", |s| s.as_str())
        )),
        (Some(status @ (TableStatus::Creating | TableStatus::Updating)), _) => {
            Readiness::NotYet(status.as_str().to_owned())
        }
        (None, _) => Readiness::NotYet("without status".to_owned()),
        (Some(status), _) => Readiness::Never(status.as_str().to_owned()),
    }
}

/// The stream asked for is the stream the table has.
fn check_stream(
    table: &Table,
    asked: Option<&StreamSpecification>,
    description: &TableDescription,
) -> Result<()> {
    fn view_type(s: &StreamSpecification) -> Option<&str> {
        s.stream_view_type().map(StreamViewType::as_str)
    }
    let Some(asked) = asked.filter(|s| s.stream_enabled()) else {
        return Ok(());
    };
    let has = description
        .stream_specification()
        .filter(|s| s.stream_enabled());
    match has {
        Some(has) if view_type(has) == view_type(asked) => Ok(()),
        _ => Err(Error::unexpected_response(
            "DescribeTable",
            format!(
                "table {} was created with a stream ({}), but it shows {}",
                table.name(),
                view_type(asked).unwrap_or("no view type"),
                has.map_or("no stream".to_owned(), |has| format!(
                    "a stream of {}",
                    view_type(has).unwrap_or("no view type")
                )),
            ),
        )),
    }
}

/// Step 3: `UpdateTimeToLive`, once, when the layout declares a TTL
/// attribute.
async fn enable_ttl(
    table: &Table,
    definition: &TableDefinition,
) -> Result<Option<TimeToLiveSpecification>> {
    let Some(request) = definition.update_time_to_live_request(table.client()) else {
        return Ok(None);
    };
    let attribute = table.schema().ttl.unwrap_or_default();
    let sent = table.send_conditional("UpdateTimeToLive", Resend::Refused, |once| {
        request.clone().customize().config_override(once).send()
    });
    let output = sent
        .await
        .map_err(|failed| failed.into_error("UpdateTimeToLive"))?;
    match output.time_to_live_specification {
        Some(spec) if spec.enabled() && spec.attribute_name() == attribute => Ok(Some(spec)),
        other => Err(Error::unexpected_response(
            "UpdateTimeToLive",
            format!(
                "asked to enable TTL on `{attribute}` of table {}, answered {}",
                table.name(),
                other.map_or("without a specification".to_owned(), |s| format!(
                    "enabled={} on `{}`",
                    s.enabled(),
                    s.attribute_name()
                )),
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::GlobalSecondaryIndexDescription;

    use super::*;

    fn described(status: TableStatus, index: Option<IndexStatus>) -> TableDescription {
        let mut description = TableDescription::builder().table_status(status);
        if let Some(index) = index {
            description = description.global_secondary_indexes(
                GlobalSecondaryIndexDescription::builder()
                    .index_name("GSI1")
                    .index_status(index)
                    .build(),
            );
        }
        description.build()
    }

    fn said(readiness: Readiness) -> String {
        match readiness {
            Readiness::Ready => "ready".to_owned(),
            Readiness::NotYet(s) => format!("not yet: {s}"),
            Readiness::Never(s) => format!("never: {s}"),
        }
    }

    #[test]
    fn ready_only_when_table_and_indexes_are_active() {
        let cases = [
            (TableStatus::Active, None, "ready"),
            (TableStatus::Active, Some(IndexStatus::Active), "ready"),
            (
                TableStatus::Active,
                Some(IndexStatus::Creating),
                "not yet: ACTIVE, index GSI1 is CREATING",
            ),
            (TableStatus::Creating, None, "not yet: CREATING"),
            (TableStatus::Updating, None, "not yet: UPDATING"),
            (TableStatus::Deleting, None, "never: DELETING"),
            (TableStatus::Archived, None, "never: ARCHIVED"),
        ];
        for (table, index, expected) in cases {
            assert_eq!(said(readiness(&described(table, index))), expected);
        }
        let no_status = TableDescription::builder().build();
        assert_eq!(said(readiness(&no_status)), "not yet: without status");
    }

    #[test]
    fn refusals_to_come_back_to() {
        assert!(refused_for_now(true, None));
        assert!(refused_for_now(false, Some("ThrottlingException")));
        assert!(!refused_for_now(false, Some("ResourceInUseException")));
        assert!(!refused_for_now(false, None));
    }
}
