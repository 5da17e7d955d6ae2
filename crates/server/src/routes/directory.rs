//! The user directory's smaller records, each on the generic storage endpoints:
//! `/addresstypes`, `/departments`, `/service-points-users`,
//! `/request-preference-storage/request-preference` (GET list and by id, POST, PUT,
//! DELETE).

use axum::Router;

use crate::AppState;

use super::records::{Plain, Spec, single_records};

spec!(ADDRESS_TYPES, "/addresstypes", "addressTypes", "addresstypes");
spec!(DEPARTMENTS, "/departments", "departments", "departments");
spec!(
    SERVICE_POINTS_USERS,
    "/service-points-users",
    "servicePointsUsers",
    "inventory-storage.service-points-users"
);
spec!(
    REQUEST_PREFERENCES,
    "/request-preference-storage/request-preference",
    "requestPreferences",
    "request-preference-storage.request-preference"
);

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .merge(single_records::<Plain<auth::AddressType>>(&ADDRESS_TYPES))
        .merge(single_records::<Plain<auth::Department>>(&DEPARTMENTS))
        .merge(single_records::<Plain<auth::ServicePointsUser>>(&SERVICE_POINTS_USERS))
        .merge(single_records::<Plain<auth::RequestPreference>>(&REQUEST_PREFERENCES))
}
