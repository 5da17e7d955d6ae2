//! An item's request queue: its open requests in position order, and the rewrites
//! check-out and check-in make to it.

use folio::Actor;
use store::{Reader, Writer};
use uuid::Uuid;

use crate::Result;
use crate::model::{Request, RequestStatus, RequestType};
use crate::records;

/// The open requests on an item, first in line first.
pub(crate) fn open_requests(reader: &Reader<'_>, item_id: Uuid) -> Result<Vec<Request>> {
    let mut queue: Vec<Request> = records::find(reader, &[("item_id", &item_id.to_string())])?;
    queue.retain(|r| r.status().is_open());
    queue.sort_by_key(|r| (r.position.unwrap_or(u32::MAX), r.request_date));
    Ok(queue)
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
