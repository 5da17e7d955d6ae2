//! `quire events`, and the Kafka flags `quire serve` shares with it.

use std::{sync::Arc, time::Duration};

use anyhow::Context;

use crate::DataDirArg;

/// Where events go. Publishing is off unless `--kafka` is given.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct KafkaArgs {
    /// Publish every tenant's changes to these Kafka brokers (`host:port[,...]`), under
    /// FOLIO's topic names. Off when absent.
    #[arg(long, env = "QUIRE_KAFKA", value_delimiter = ',')]
    kafka: Vec<String>,
    /// The first segment of the topic names (FOLIO's `ENV`).
    #[arg(long, env = "QUIRE_KAFKA_ENV", default_value = "folio")]
    kafka_env: String,
    /// Partitions of each topic Quire creates.
    #[arg(long, env = "QUIRE_KAFKA_PARTITIONS", default_value_t = 2)]
    kafka_partitions: i32,
    /// Replication factor of each topic Quire creates.
    #[arg(long, env = "QUIRE_KAFKA_REPLICATION", default_value_t = 1)]
    kafka_replication: i16,
    /// Hours the bodies of published changes are kept, for replays.
    #[arg(long, env = "QUIRE_EVENTS_RETAIN_HOURS", default_value_t = 24)]
    events_retain_hours: u64,
    /// Milliseconds the publisher waits after a change for more to send with it (Kafka's
    /// `linger.ms`): longer means fewer, larger produce requests and less work for the
    /// brokers, at that much more delay before a change is out.
    #[arg(long, env = "QUIRE_KAFKA_LINGER_MS", default_value_t = 100)]
    kafka_linger_ms: u64,
    /// How produce requests are compressed: none, lz4 or zstd (Kafka's
    /// `compression.type`).
    #[arg(long, env = "QUIRE_KAFKA_COMPRESSION", default_value = "zstd")]
    kafka_compression: events::kafka::Compression,
}

impl KafkaArgs {
    /// The publisher's options, or `None` when publishing is off.
    fn options(&self) -> anyhow::Result<Option<events::Options>> {
        if self.kafka.is_empty() {
            return Ok(None);
        }
        anyhow::ensure!(self.kafka_partitions >= 1, "--kafka-partitions must be at least 1");
        anyhow::ensure!(self.kafka_replication >= 1, "--kafka-replication must be at least 1");
        anyhow::ensure!(
            !self.kafka_env.is_empty() && !self.kafka_env.contains('.'),
            "--kafka-env must be a non-empty name without dots"
        );
        let mut kafka = events::KafkaOptions::new(self.kafka.clone());
        kafka.environment = self.kafka_env.clone();
        kafka.partitions = self.kafka_partitions;
        kafka.replication = self.kafka_replication;
        kafka.compression = self.kafka_compression;
        let mut options = events::Options::new(kafka);
        options.retain = Duration::from_secs(self.events_retain_hours * 3600);
        options.linger = Duration::from_millis(self.kafka_linger_ms);
        Ok(Some(options))
    }

    /// Starts publishing every tenant's changes, when `--kafka` was given.
    pub(crate) fn start(
        &self,
        store: &Arc<store::Store>,
    ) -> anyhow::Result<Option<events::Publisher>> {
        let Some(options) = self.options()? else { return Ok(None) };
        tracing::info!(brokers = ?self.kafka, env = %self.kafka_env, "publishing events to Kafka");
        let publisher = events::Publisher::start(store.clone(), options)
            .context("cannot start the event publisher")?;
        Ok(Some(publisher))
    }
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum EventsCommand {
    /// Send a tenant's events again from a sequence number of its change log, for a
    /// consumer that lost its state. With the server stopped: a running server takes
    /// `POST /admin/events/replay`. With --kafka, this command publishes the replay
    /// itself and exits when done; otherwise the next server with --kafka does.
    Replay {
        #[arg(long)]
        tenant: String,
        /// The first change to send again (`changeLogSequence`-style numbers, see
        /// `/admin/health`).
        #[arg(long)]
        from: i64,
        #[command(flatten)]
        data: DataDirArg,
        #[command(flatten)]
        kafka: KafkaArgs,
    },
    /// Stop keeping a tenant's record bodies for events, for a tenant that will publish
    /// no more: its cursor and the bodies kept for it are dropped. A server started with
    /// --kafka later starts the tenant afresh, from the end of its log.
    Stop {
        #[arg(long)]
        tenant: String,
        #[command(flatten)]
        data: DataDirArg,
    },
}

fn open(data: &DataDirArg) -> anyhow::Result<Arc<store::Store>> {
    Ok(Arc::new(data.open(data.options()?)?))
}

pub(crate) fn run(command: EventsCommand) -> anyhow::Result<()> {
    match command {
        EventsCommand::Stop { tenant, data } => {
            let store = open(&data)?;
            let handle = store.tenant(&tenant).with_context(|| format!("no tenant {tenant}"))?;
            handle.stop_publisher(events::PUBLISHER)?;
            println!("tenant {tenant}: no longer keeps record bodies for events");
            Ok(())
        }
        EventsCommand::Replay { tenant, from, data, kafka } => {
            let store = open(&data)?;
            let handle = store.tenant(&tenant).with_context(|| format!("no tenant {tenant}"))?;
            let replay = events::replay(&handle, from)?;
            if replay.from > replay.through {
                println!(
                    "tenant {tenant}: published up to {} only; change {from} goes out in its turn",
                    replay.through
                );
            } else {
                println!(
                    "tenant {tenant}: changes {}..={} will be published again",
                    replay.from, replay.through
                );
            }
            if let Some(publisher) = kafka.start(&store)? {
                let head = handle.last_seq()?;
                anyhow::ensure!(
                    publisher.wait_until_published(Duration::from_secs(600)),
                    "not every change up to {head} was published within 10 minutes: {:?}",
                    publisher.status().get(&tenant)
                );
                let status = publisher.status();
                let published = status.get(&tenant).map_or(0, |s| s.events);
                println!("tenant {tenant}: published up to {head} ({published} events)");
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        kafka: KafkaArgs,
    }

    fn options(args: &[&str]) -> anyhow::Result<Option<events::Options>> {
        Cli::try_parse_from(std::iter::once("quire").chain(args.iter().copied()))?.kafka.options()
    }

    #[test]
    fn publishing_is_off_without_brokers_and_takes_its_settings_with_them() {
        assert!(options(&[]).unwrap().is_none());
        let on = options(&[
            "--kafka",
            "a:9092,b:9092",
            "--kafka-env",
            "prod",
            "--kafka-linger-ms",
            "300",
            "--events-retain-hours",
            "2",
            "--kafka-compression",
            "lz4",
        ])
        .unwrap()
        .expect("on with brokers");
        assert_eq!(on.kafka.brokers, ["a:9092", "b:9092"]);
        assert_eq!(on.kafka.environment, "prod");
        assert_eq!(on.kafka.partitions, 2);
        assert_eq!(on.linger, Duration::from_millis(300));
        assert_eq!(on.retain, Duration::from_secs(2 * 3600));
        let default = options(&["--kafka", "a:9092"]).unwrap().unwrap();
        assert_eq!(default.linger, Duration::from_millis(100));
        assert_eq!(on.kafka.compression, events::kafka::Compression::Lz4);
        assert_eq!(default.kafka.compression, events::kafka::Compression::Zstd);
        let unknown = options(&["--kafka", "a:9092", "--kafka-compression", "brotli"]);
        assert!(unknown.unwrap_err().to_string().contains("unknown compression"));
    }

    #[test]
    fn bad_settings_are_refused_with_the_flag_named() {
        for (args, flag) in [
            (&["--kafka", "a:9092", "--kafka-partitions", "0"][..], "--kafka-partitions"),
            (&["--kafka", "a:9092", "--kafka-env", "a.b"][..], "--kafka-env"),
        ] {
            let error = options(args).unwrap_err().to_string();
            assert!(error.contains(flag), "{error}");
        }
    }
}
