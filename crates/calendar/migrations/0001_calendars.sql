-- mod-calendar's calendars. A tenant has few (one per service point and term), so the
-- assignments stay in the body and lookups read them all.
CREATE TABLE calendars (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL
);
