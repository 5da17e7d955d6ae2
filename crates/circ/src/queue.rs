//! An item's request queue: its open requests in position order, and the rewrites
//! check-out and check-in make to it.

use folio::Actor;
use store::{Read, Reader, Writer};
use uuid::Uuid;

use crate::Result;
use crate::model::{Request, RequestStatus, RequestType};
use crate::records;

/// The open requests on an item, first in line first.
pub(crate) fn open_requests(reader: &Reader<'_>, item_id: Uuid) -> Result<Vec<Request>> {
    let mut queue: Vec<Request> = records::read(reader, &open_requests_read(&item_id.to_string()))?;
    queue.retain(|r| r.status().is_open());
    queue.sort_by_key(|r| (r.position.unwrap_or(u32::MAX), r.request_date));
    Ok(queue)
}

/// What [`open_requests`] reads, to read it ahead: `item_id` is the item's.
pub(crate) fn open_requests_read(item_id: &str) -> Read<'_> {
    Read::Where(&crate::storage::REQUESTS, vec![("item_id", item_id)], &[])
}

pub(crate) fn has_open(queue: &[Request], request_type: RequestType) -> bool {
    queue.iter().any(|r| r.request_type == request_type)
}

/// Closes `request` with `status` and closes the gap it leaves: the requests behind it
/// move up one position.
pub(crate) fn close(
    writer: &mut Writer<'_>,
    queue: &mut Vec<Request>,
    request_id: Uuid,
    status: RequestStatus,
    actor: Actor,
) -> Result<()> {
    let Some(idx) = queue.iter().position(|r| r.id == Some(request_id)) else { return Ok(()) };
    let mut closed = queue.remove(idx);
    closed.status = Some(status);
    closed.position = None;
    records::update(writer, &mut closed, actor)?;
    renumber(writer, queue, actor)
}

/// Rewrites positions 1..n in queue order, saving only the requests that moved.
pub(crate) fn renumber(writer: &mut Writer<'_>, queue: &mut [Request], actor: Actor) -> Result<()> {
    for (idx, request) in queue.iter_mut().enumerate() {
        let position = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        if request.position != Some(position) {
            request.position = Some(position);
            records::update(writer, request, actor)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use folio::Actor;
    use serde_json::json;

    use crate::fixtures::Library;
    use crate::model::{Request, RequestStatus, RequestType};
    use crate::records;

    #[test]
    fn the_queue_is_in_position_order_and_closing_renumbers_it() {
        let lib = Library::new();
        let item = lib.item("B-1", json!({"status": {"name": "Checked out"}}));
        // Stored as a client may leave them: positions with gaps, one without a position
        // (last, by request date among equals), and a closed request.
        let rows = [
            ("P-1", "Hold", Some(5), "2026-03-01T09:00:00Z", "Open - Not yet filled"),
            ("P-2", "Recall", Some(2), "2026-03-03T09:00:00Z", "Open - In transit"),
            ("P-3", "Hold", None, "2026-03-02T09:00:00Z", "Open - Not yet filled"),
            ("P-4", "Hold", None, "2026-03-04T09:00:00Z", "Closed - Filled"),
            ("P-5", "Hold", None, "2026-03-01T09:00:00Z", "Open - Awaiting pickup"),
        ];
        for (barcode, kind, position, date, status) in rows {
            let patron = lib.patron(barcode, json!({}));
            lib.record::<Request>(json!({"requestType": kind, "requestDate": date,
                "requesterId": patron, "itemId": item, "fulfillmentPreference": "Hold Shelf",
                "position": position, "status": status}));
        }
        let queue = lib.tenant.read(|r| super::open_requests(r, item)).unwrap();
        let order: Vec<(Option<u32>, RequestType)> =
            queue.iter().map(|r| (r.position, r.request_type)).collect();
        assert_eq!(
            order,
            [
                (Some(2), RequestType::Recall),
                (Some(5), RequestType::Hold),
                (None, RequestType::Hold),
                (None, RequestType::Hold),
            ]
        );
        assert!(super::has_open(&queue, RequestType::Recall));
        assert!(!super::has_open(&queue, RequestType::Page));
        // The one without a position requested earlier (P-5, 1 March) comes first.
        expect![[r#"
            1 Recall P-2 Open - In transit
            2 Hold P-1 Open - Not yet filled
            3 Hold P-5 Open - Awaiting pickup
            4 Hold P-3 Open - Not yet filled
            - Hold P-4 Closed - Filled
        "#]]
        .assert_eq(&{
            lib.write(|w| {
                let mut queue = super::open_requests(w, item)?;
                super::renumber(w, &mut queue, Actor::default())
            })
            .unwrap();
            lib.queue(item)
        });
        // Closing the second moves the two behind it up.
        lib.write(|w| {
            let mut queue = super::open_requests(w, item)?;
            let second = queue[1].id.unwrap();
            super::close(
                w,
                &mut queue,
                second,
                RequestStatus::ClosedPickupExpired,
                Actor::default(),
            )?;
            assert_eq!(queue.len(), 3);
            Ok(())
        })
        .unwrap();
        expect![[r#"
            1 Recall P-2 Open - In transit
            2 Hold P-5 Open - Awaiting pickup
            3 Hold P-3 Open - Not yet filled
            - Hold P-1 Closed - Pickup expired
            - Hold P-4 Closed - Filled
        "#]]
        .assert_eq(&lib.queue(item));
        // Closing a request that is not in the queue changes nothing.
        lib.write(|w| {
            let mut queue = super::open_requests(w, item)?;
            super::close(
                w,
                &mut queue,
                uuid::Uuid::nil(),
                RequestStatus::ClosedCancelled,
                Actor::default(),
            )
        })
        .unwrap();
        let stored: Vec<Request> =
            lib.tenant.read(|r| records::find(r, &[("item_id", &item.to_string())])).unwrap();
        assert_eq!(stored.iter().filter(|r| r.status().is_open()).count(), 3);
    }
}
