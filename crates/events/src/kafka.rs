//! The producer: topics made when missing, a record's partition chosen from its key as
//! Kafka's own clients choose it, and a batch produced to every partition at once,
//! returning only when the brokers have acknowledged all of it (`acks=all`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use rskafka::client::partition::{PartitionClient, UnknownTopicHandling};
use rskafka::client::{Client, ClientBuilder};
use rskafka::record::Record;

use crate::envelope::Event;

/// Where and how topics are made.
#[derive(Debug, Clone)]
pub struct KafkaOptions {
    /// `host:port` of one or more brokers.
    pub brokers: Vec<String>,
    /// The first segment of every topic name (FOLIO's `ENV`).
    pub environment: String,
    /// Partitions of a topic Quire creates.
    pub partitions: i32,
    /// Replication factor of a topic Quire creates.
    pub replication: i16,
    /// How produced batches are compressed (Kafka's `compression.type`).
    pub compression: Compression,
}

/// A produce request's compression, as Kafka's producers name it. Kafka's clients read
/// each of them without being told (zstd since Kafka 2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Lz4,
    Zstd,
}

impl std::str::FromStr for Compression {
    type Err = String;

    fn from_str(name: &str) -> Result<Compression, String> {
        match name {
            "none" => Ok(Compression::None),
            "lz4" => Ok(Compression::Lz4),
            "zstd" => Ok(Compression::Zstd),
            _ => Err(format!("unknown compression {name:?} (none, lz4 or zstd)")),
        }
    }
}

impl Compression {
    fn client(self) -> rskafka::client::partition::Compression {
        use rskafka::client::partition::Compression as C;
        match self {
            Compression::None => C::NoCompression,
            Compression::Lz4 => C::Lz4,
            Compression::Zstd => C::Zstd,
        }
    }
}

impl KafkaOptions {
    /// FOLIO's defaults for what the caller does not set: environment `folio`, two
    /// partitions (what FOLIO's performance team found enough), replication 1. Batches
    /// are compressed with zstd, Quire's choice: a desk's events are JSON bodies, and
    /// the brokers took less CPU for them compressed (docs/benchmarks.md, row AC).
    pub fn new(brokers: Vec<String>) -> KafkaOptions {
        KafkaOptions {
            brokers,
            environment: "folio".into(),
            partitions: 2,
            replication: 1,
            compression: Compression::Zstd,
        }
    }

    /// `{env}.{tenant}.{topic}`.
    pub fn topic_name(&self, tenant: &str, topic: &str) -> String {
        format!("{}.{tenant}.{topic}", self.environment)
    }
}

/// A failure to talk to Kafka; the publisher retries the batch.
#[derive(Debug, thiserror::Error)]
#[error("kafka: {0}")]
pub struct KafkaError(String);

impl From<rskafka::client::error::Error> for KafkaError {
    fn from(e: rskafka::client::error::Error) -> KafkaError {
        KafkaError(e.to_string())
    }
}

/// A topic's partition clients, in partition order.
type Partitions = Arc<[Arc<PartitionClient>]>;

/// One partition's client and the records to produce to it, in order.
type PartitionBatch = (Arc<PartitionClient>, Vec<Record>);

/// A connection to the cluster with the partitions it has produced to.
pub(crate) struct Producer {
    options: KafkaOptions,
    client: Client,
    // Per topic name, a client for each of its partitions, in partition order.
    topics: HashMap<String, Partitions>,
}

/// How long a request may retry inside the client before the batch fails and the
/// publisher takes over (it reports the error, backs off and sends the batch again).
const REQUEST_DEADLINE: Duration = Duration::from_secs(10);

impl Producer {
    /// Connects, and makes every topic of `tenant` that is missing, as FOLIO's modules
    /// make theirs when enabled for a tenant.
    pub(crate) async fn connect(
        options: KafkaOptions,
        tenant: &str,
    ) -> Result<Producer, KafkaError> {
        let backoff = rskafka::BackoffConfig {
            init_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(1),
            base: 2.0,
            deadline: Some(REQUEST_DEADLINE),
        };
        let client = ClientBuilder::new(options.brokers.clone())
            .client_id("quire")
            .backoff_config(backoff)
            .build()
            .await?;
        let mut producer = Producer { options, client, topics: HashMap::new() };
        for (_, topic, _) in crate::envelope::TOPICS {
            let name = producer.options.topic_name(tenant, topic);
            producer.partitions(&name).await?;
        }
        Ok(producer)
    }

    /// Produces the events of one tenant, in order per key; returns once every one is
    /// acknowledged. On an error some may have been written: the caller sends them all
    /// again (at least once). The events are taken, not copied: a caller sending again
    /// makes them again from the log. With `spread`, each partition's records are
    /// encoded and compressed on a task of their own, which the runtime's threads share.
    pub(crate) async fn produce(
        &mut self,
        tenant: &str,
        events: Vec<Event>,
        spread: bool,
    ) -> Result<(), KafkaError> {
        // Per partition client, its records in the order given; each topic's partitions
        // looked up once per batch, not per event.
        let mut topics: HashMap<&'static str, Partitions> = HashMap::new();
        let mut batches: BTreeMap<(&'static str, usize), PartitionBatch> = BTreeMap::new();
        for event in events {
            let partitions = match topics.get(event.topic) {
                Some(partitions) => partitions.clone(),
                None => {
                    let name = self.options.topic_name(tenant, event.topic);
                    let partitions = self.partitions(&name).await?;
                    topics.insert(event.topic, partitions.clone());
                    partitions
                }
            };
            let partition = partition_of(event.key.as_bytes(), partitions.len());
            let topic = event.topic;
            let entry = batches
                .entry((topic, partition))
                .or_insert_with(|| (partitions[partition].clone(), Vec::new()));
            entry.1.push(record(event));
        }
        let compression = self.options.compression.client();
        let sends = batches.into_values().map(|(client, records)| async move {
            // A produce request carries one batch; keep each under the broker's
            // default message size (1 MiB) with room to spare.
            for chunk in chunks_under(records, 768 * 1024) {
                let n = chunk.len();
                let offsets = client.produce(chunk, compression).await?;
                tracing::debug!(topic = client.topic(), partition = client.partition(), n, first = ?offsets.first(), last = ?offsets.last(), "produced");
            }
            Ok::<_, KafkaError>(())
        });
        if !spread {
            for result in futures_util::future::join_all(sends).await {
                result?;
            }
            return Ok(());
        }
        let tasks: Vec<_> = sends.map(tokio::spawn).collect();
        // Every task runs to its end: after a failure the whole batch is sent again.
        let mut failed = None;
        for task in tasks {
            match task.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failed = Some(e),
                Err(e) => failed = Some(KafkaError(format!("a produce task failed: {e}"))),
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// The partition clients of a topic, creating the topic when it is missing.
    async fn partitions(&mut self, name: &str) -> Result<Partitions, KafkaError> {
        if let Some(partitions) = self.topics.get(name) {
            return Ok(partitions.clone());
        }
        let mut count = self.partition_count(name).await?;
        if count.is_none() {
            let created = self
                .client
                .controller_client()?
                .create_topic(name, self.options.partitions, self.options.replication, 10_000)
                .await;
            // A new topic's partitions show in the metadata a moment after it is made,
            // and another process may have made it meanwhile: look again a while before
            // failing.
            for _ in 0..50 {
                count = self.partition_count(name).await?;
                if count.is_some() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            if count.is_none() {
                created?;
            }
        }
        let count = count.ok_or_else(|| KafkaError(format!("topic {name} has no partitions")))?;
        let mut clients = Vec::with_capacity(count);
        for partition in 0..count as i32 {
            let client = self
                .client
                .partition_client(name.to_string(), partition, UnknownTopicHandling::Retry)
                .await?;
            clients.push(Arc::new(client));
        }
        let clients: Partitions = clients.into();
        self.topics.insert(name.to_string(), clients.clone());
        Ok(clients)
    }

    async fn partition_count(&self, name: &str) -> Result<Option<usize>, KafkaError> {
        let topics = self.client.list_topics().await?;
        Ok(topics
            .into_iter()
            .find(|t| t.name == name)
            .map(|t| t.partitions.len())
            .filter(|n| *n > 0))
    }
}

fn record(event: Event) -> Record {
    Record {
        key: Some(event.key.into_bytes()),
        value: Some(event.value.into_bytes()),
        headers: event.headers.into_iter().map(|(k, v)| (k.to_string(), v.into_bytes())).collect(),
        timestamp: chrono::DateTime::from_timestamp_millis(event.timestamp).unwrap_or_default(),
    }
}

/// Splits records into runs of at most `bytes` (a record larger alone is a run).
fn chunks_under(records: Vec<Record>, bytes: usize) -> Vec<Vec<Record>> {
    let mut chunks = vec![Vec::new()];
    let mut size = 0;
    for record in records {
        let n = record.approximate_size() + 64;
        let last = chunks.last_mut().expect("never empty");
        if size + n > bytes && !last.is_empty() {
            chunks.push(Vec::new());
            size = 0;
        }
        size += n;
        chunks.last_mut().expect("never empty").push(record);
    }
    chunks
}

/// The partition Kafka's Java client gives a keyed record (`BuiltInPartitioner`:
/// murmur2 of the key, made positive, modulo the partition count), so a record's events
/// land where a Java producer would put them. rskafka leaves partitioning to its caller.
pub(crate) fn partition_of(key: &[u8], partitions: usize) -> usize {
    (murmur2(key) & 0x7fff_ffff) as usize % partitions.max(1)
}

/// MurmurHash2, 32-bit, with the seed Kafka uses. Written here because it is a dozen
/// lines and must match Kafka's `Utils.murmur2` bit for bit.
fn murmur2(data: &[u8]) -> u32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let mut h = SEED ^ data.len() as u32;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if tail.len() >= 3 {
        h ^= (tail[2] as u32) << 16;
    }
    if tail.len() >= 2 {
        h ^= (tail[1] as u32) << 8;
    }
    if !tail.is_empty() {
        h ^= tail[0] as u32;
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values Kafka's own `Utils.murmur2` gives (checked against the 4.1.1 jar).
    #[test]
    fn murmur2_matches_kafkas() {
        let cases: &[(&[u8], i32)] = &[
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
            (b"abc", 479_470_107),
        ];
        for (key, expected) in cases {
            assert_eq!(murmur2(key) as i32, *expected, "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn large_batches_are_split_under_the_limit() {
        let record = |n: usize| Record {
            key: None,
            value: Some(vec![b'x'; n]),
            headers: Default::default(),
            timestamp: Default::default(),
        };
        let chunks = chunks_under(vec![record(600), record(600), record(2000), record(10)], 1400);
        let sizes: Vec<usize> = chunks.iter().map(Vec::len).collect();
        assert_eq!(sizes, [2, 1, 1]);
    }
}
