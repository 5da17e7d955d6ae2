-- Policies: one table per kind, each with a unique name as FOLIO's storage has.
CREATE TABLE loan_policies (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE
);
CREATE TABLE request_policies (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE
);
CREATE TABLE notice_policies (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE
);
CREATE TABLE overdue_fine_policies (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE
);
CREATE TABLE lost_item_fee_policies (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE
);
CREATE TABLE fixed_due_date_schedules (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE
);
-- The tenant's one rules document.
CREATE TABLE circulation_rules (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL
);
CREATE TABLE loans (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    user_id TEXT,
    item_id TEXT NOT NULL,
    status_name TEXT NOT NULL COLLATE NOCASE,
    action TEXT COLLATE NOCASE,
    loan_date TEXT,
    due_date TEXT,
    proxy_user_id TEXT
);
-- Invariant: an item has at most one open loan. Concurrent check-outs of one item are
-- serialised by the writer lock and checked in the transaction; this index makes the
-- database itself refuse a second open loan whatever path writes it.
CREATE UNIQUE INDEX loans_one_open_per_item ON loans (item_id) WHERE status_name = 'Open';
CREATE INDEX loans_item ON loans (item_id);
CREATE INDEX loans_user_status ON loans (user_id, status_name);
CREATE INDEX loans_status_due ON loans (status_name, due_date);
CREATE TABLE requests (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    item_id TEXT,
    instance_id TEXT,
    requester_id TEXT NOT NULL,
    status TEXT NOT NULL,
    request_type TEXT NOT NULL,
    position INTEGER,
    request_date TEXT
);
CREATE INDEX requests_item_position ON requests (item_id, position);
CREATE INDEX requests_requester ON requests (requester_id, status);
CREATE INDEX requests_instance ON requests (instance_id);
CREATE TABLE accounts (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    user_id TEXT NOT NULL,
    item_id TEXT,
    loan_id TEXT,
    status_name TEXT COLLATE NOCASE,
    fee_fine_type TEXT COLLATE NOCASE,
    remaining_cents INTEGER
);
CREATE INDEX accounts_user_status ON accounts (user_id, status_name);
CREATE INDEX accounts_loan ON accounts (loan_id);
CREATE INDEX accounts_item ON accounts (item_id);
CREATE TABLE manual_blocks (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    user_id TEXT NOT NULL
);
CREATE INDEX manual_blocks_user ON manual_blocks (user_id);
CREATE TABLE patron_block_conditions (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT COLLATE NOCASE
);
CREATE TABLE patron_block_limits (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    patron_group_id TEXT NOT NULL,
    condition_id TEXT NOT NULL,
    UNIQUE (patron_group_id, condition_id)
);
CREATE TABLE check_ins (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    item_id TEXT NOT NULL,
    occurred_date_time TEXT
);
CREATE INDEX check_ins_item ON check_ins (item_id);
