//! Domain events: each tenant's change log published to Kafka under FOLIO's topic names
//! (`{env}.{tenant}.{module}.{topic}`), with FOLIO's envelopes, keys and headers.
//!
//! What it owns: the events' shapes ([`envelope`]), the producer ([`kafka`]), the
//! publisher that follows every tenant's log ([`Publisher`]), with replays
//! ([`replay`]), and mod-audit's inventory history read from the same log ([`audit`]).
//! What it does not own: keeping the bodies (the store does, in the same transaction as
//! each write, once a publisher is registered) or HTTP.
//!
//! Invariants:
//! - At least once, in commit order per record: a change's event is produced before
//!   the cursor passes it, and the cursor moves only after the brokers acknowledged
//!   every event before it. A record's events share a key, so a partition.
//! - Never in a request's way: writes only keep bodies; a broker that is down delays
//!   events and nothing else.
//! - Publishing is off unless asked for (`quire serve --kafka`); a tenant's writes
//!   keep bodies from the first time it was, until published and past retention.

pub mod audit;
pub mod envelope;
pub mod kafka;
mod publisher;

pub use envelope::{Event, TOPICS, event, event_id, record_types};
pub use kafka::{KafkaError, KafkaOptions};
pub use publisher::{
    LagSummary, Options, PUBLISHER, Publisher, Replay, ReplayError, StartError, TenantStatus,
    replay,
};
