-- Staff slips: the templates a desk prints (hold, transit, pick, request delivery).
CREATE TABLE staff_slips (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL,
    name TEXT COLLATE NOCASE
);
CREATE UNIQUE INDEX staff_slips_name ON staff_slips (name);

-- The desk lists a patron's requests waiting at its own service point.
ALTER TABLE requests ADD COLUMN pickup_service_point_id TEXT;
UPDATE requests SET pickup_service_point_id = json_extract(body, '$.pickupServicePointId');
