//! What an import's index-backed matches ask of the tenant's indexes
//! (`import::Candidates`): instances whose MARC record has a subfield value, by the MARC
//! index; instances with an identifier, by the instance search index. The import checks
//! every candidate against the stored record, so these only narrow the search.

use std::sync::Arc;

use crate::indexes::Indexes;
use crate::marc_indexes::MarcIndexes;

/// At most this many candidates per value: a value that many records share matches
/// several anyway, which fails the record.
const MOST: u64 = 10;

pub(crate) struct IndexCandidates {
    tenant: Arc<store::Tenant>,
    instances: Arc<search::InstanceIndex>,
    marc: Arc<srs::MarcIndex>,
}

impl IndexCandidates {
    pub(crate) fn open(
        tenant: &Arc<store::Tenant>,
        indexes: &Indexes,
        marc: &MarcIndexes,
    ) -> crate::Result<IndexCandidates> {
        Ok(IndexCandidates {
            tenant: tenant.clone(),
            instances: indexes.instances(tenant)?,
            marc: marc.get(tenant)?,
        })
    }
}

impl import::Candidates for IndexCandidates {
    fn catch_up(&self) -> Result<(), String> {
        self.instances.catch_up(&self.tenant).map_err(|e| e.to_string())?;
        self.marc.catch_up(&self.tenant).map_err(|e| e.to_string())
    }

    fn by_marc_field(
        &self,
        tag: &str,
        subfield: char,
        value: &str,
    ) -> Result<Vec<uuid::Uuid>, String> {
        // FOLIO's expression language quotes values with no escape for a quote.
        if value.contains('\'') {
            return Err(format!("Quire cannot match on a value with a quote in it: {value}"));
        }
        let request = srs::SearchRequest {
            leader_search_expression: None,
            fields_search_expression: Some(format!("{tag}.{subfield} = '{value}'")),
            deleted: Some(false),
            suppress_from_discovery: None,
            offset: 0,
            limit: Some(MOST),
        };
        self.marc.search(&request).map(|r| r.ids).map_err(|e| e.to_string())
    }

    fn by_identifier(&self, value: &str) -> Result<Vec<uuid::Uuid>, String> {
        let escaped: String = value
            .chars()
            .flat_map(|c| match c {
                '\\' | '"' | '*' | '?' | '^' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        let mut ids = Vec::new();
        self.instances
            .stream_ids(&format!("identifiers.value==\"{escaped}\""), |id| {
                ids.push(id);
                if ids.len() as u64 >= MOST {
                    std::ops::ControlFlow::Break(())
                } else {
                    std::ops::ControlFlow::Continue(())
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(ids)
    }
}
