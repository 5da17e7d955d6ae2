//! Instance queries: CQL translated over the instance registry (by the crate's
//! `query`), and the sort keys `/search/instances` accepts.
//!
//! Owns which fields instances sort on. Does not own the relation table (`crate::query`)
//! or how the query is run (`search`).

use tantivy::query::Query;

use crate::error::{Error, Result};
use crate::instance::fields::{self, Fields};

/// What a query asks for: the tantivy query and the sort keys.
pub(crate) struct Translated {
    pub(crate) query: Box<dyn Query>,
    pub(crate) sort: Vec<SortKey>,
    /// Whether matches differ in relevance (`crate::query::ranks`).
    pub(crate) ranked: bool,
}

/// The fields FOLIO can sort instances on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortField {
    Title,
    Contributors,
    /// A collection sort: the smallest status ascending, the largest descending, then
    /// the sort title.
    ItemStatus,
    NormalizedDate1,
    CreatedDate,
    UpdatedDate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SortKey {
    pub(crate) field: SortField,
    pub(crate) descending: bool,
}

/// Parses and translates a query.
pub(crate) fn translate(query_text: &str) -> Result<Translated> {
    let parsed = crate::query::parse(Fields::get(), query_text)?;
    let query = crate::query::node(Fields::get(), &parsed.root)?;
    let sort = parsed.sort_keys.iter().map(sort_key).collect::<Result<Vec<_>>>()?;
    let ranked = crate::query::ranks(Fields::get(), &parsed.root);
    Ok(Translated { query, sort, ranked })
}

fn sort_key(key: &cql::SortKey) -> Result<SortKey> {
    let field = match fields::normalize_index(&key.index).as_str() {
        "title" => SortField::Title,
        "contributors" => SortField::Contributors,
        "items.status.name" => SortField::ItemStatus,
        "normalizedDate1" => SortField::NormalizedDate1,
        "metadata.createdDate" => SortField::CreatedDate,
        "metadata.updatedDate" => SortField::UpdatedDate,
        _ => return Err(Error::InvalidSort { field: key.index.clone() }),
    };
    let descending = key.modifiers.iter().any(|m| m.name == "sort.descending");
    Ok(SortKey { field, descending })
}

#[cfg(test)]
mod tests {
    use super::translate;
    use crate::error::Error;
    use crate::query::parse_date;

    #[test]
    fn errors_and_terms() {
        assert!(matches!(translate("title all"), Err(Error::InvalidQuery { .. })));
        assert!(
            matches!(translate("foo = bar"), Err(Error::UnknownField { field }) if field == "foo")
        );
        assert!(matches!(
            translate("title within x"),
            Err(Error::UnsupportedRelation { relation }) if relation == "within"
        ));
        assert!(matches!(translate("a prox b"), Err(Error::UnsupportedOperator { .. })));
        assert!(matches!(translate("metadata.createdDate > x"), Err(Error::InvalidDate { .. })));
        assert!(matches!(translate("title all x sortBy foo"), Err(Error::InvalidSort { .. })));
        assert_eq!(parse_date("2021-01-15"), Some((1610668800000, 1610755200000)));
        assert!(parse_date("2021-13-15").is_none());
    }
}
