//! What an operation shows: previews of its records at each step, and the files FOLIO
//! offers for download (the identifiers, the records matched, changed and committed as
//! CSV, and each step's errors).

use serde::Serialize;
use store::Reader;
use uuid::Uuid;

use crate::columns::{self, Names};
use crate::operation::{self, OperationError, RecordRow, Step, Stored};
use crate::storage::{self, IDENTIFIERS, RECORDS};
use crate::{Result, invalid};

/// FOLIO's `unifiedTable`: the columns and a page of rows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    pub header: Vec<Cell>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    pub value: String,
    pub data_type: &'static str,
    pub visible: bool,
    pub force_visible: bool,
}

#[derive(Debug, Serialize)]
pub struct Row {
    pub row: Vec<String>,
}

/// Which version of each record a step shows: as matched, as the rules propose, as
/// committed.
fn version_at(step: Step, row: &RecordRow) -> Option<&serde_json::Value> {
    match step {
        Step::Upload => Some(&row.matched),
        Step::Edit => row.proposed.as_ref(),
        Step::Commit | Step::Delete => row.committed.as_ref(),
    }
}

/// Calls `each` on the records a step shows, from the `offset`th on, until it returns
/// false.
fn each_record(
    r: &Reader<'_>,
    stored: &Stored,
    step: Step,
    mut each: impl FnMut(&serde_json::Value) -> Result<bool>,
) -> Result<()> {
    let id = stored.operation.id;
    let mut from = 0;
    while from < stored.records {
        let rows: Vec<RecordRow> = storage::rows(r, &RECORDS, id, "", from, crate::CHUNK)?;
        if rows.is_empty() {
            break;
        }
        from += rows.len() as u64;
        for row in &rows {
            if let Some(record) = version_at(step, row)
                && !each(record)?
            {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// A page of the records a step shows, as FOLIO's preview renders them.
pub fn preview(r: &Reader<'_>, id: Uuid, step: Step, offset: u64, limit: u64) -> Result<Preview> {
    let stored = operation::load(r, id)?;
    let entity = stored.operation.entity_type;
    let header = columns::header(entity)
        .iter()
        .map(|name| Cell {
            value: (*name).into(),
            data_type: "STRING",
            visible: true,
            force_visible: false,
        })
        .collect();
    let mut names = Names::default();
    let (mut rows, mut skipped) = (Vec::new(), 0);
    if limit > 0 {
        each_record(r, &stored, step, |record| {
            if skipped < offset {
                skipped += 1;
                return Ok(true);
            }
            rows.push(Row { row: columns::row(r, &mut names, entity, record)? });
            Ok((rows.len() as u64) < limit)
        })?;
    }
    Ok(Preview { header, rows })
}

macro_rules! file_kinds {
    ($($variant:ident = $wire:literal, $name:literal;)*) => {
        /// The files `GET /bulk-operations/{id}/download` serves.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum FileContentType { $($variant,)* }

        impl FileContentType {
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($wire => Some(Self::$variant),)* _ => None }
            }

            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $wire,)* }
            }

            /// The file name's middle part, as FOLIO names its files.
            fn label(self) -> &'static str {
                match self { $(Self::$variant => $name,)* }
            }
        }
    };
}

file_kinds! {
    TriggeringFile = "TRIGGERING_FILE", "Triggering-File";
    MatchedRecordsFile = "MATCHED_RECORDS_FILE", "Matched-Records";
    RecordMatchingErrorFile = "RECORD_MATCHING_ERROR_FILE", "Matching-Records-Errors";
    ProposedChangesFile = "PROPOSED_CHANGES_FILE", "Updates-Preview";
    CommittedRecordsFile = "COMMITTED_RECORDS_FILE", "Changed-Records";
    CommittingChangesErrorFile = "COMMITTING_CHANGES_ERROR_FILE", "Errors";
}

/// A file of an operation: its name and its bytes (CSV, or the identifiers a line each).
pub fn download(r: &Reader<'_>, id: Uuid, kind: FileContentType) -> Result<(String, Vec<u8>)> {
    let stored = operation::load(r, id)?;
    let op = &stored.operation;
    let date = op.start_time.as_deref().and_then(|t| t.get(..10)).unwrap_or("0000-00-00");
    let base = stored
        .file_name
        .as_deref()
        .map(|f| f.trim_end_matches(".csv").to_string())
        .unwrap_or_else(|| format!("{}-{}", op.entity_type.as_str(), op.hr_id));
    let name = format!("{date}-{}-{base}.csv", kind.label());
    let bytes = match kind {
        FileContentType::TriggeringFile => {
            if let Some(cql) = &op.cql_query {
                format!("{cql}\n").into_bytes()
            } else {
                let lines: Vec<crate::run::IdentifierLine> =
                    storage::rows(r, &IDENTIFIERS, id, "", 0, stored.identifiers as usize)?;
                let lines: Vec<String> = lines.into_iter().map(|l| l.value).collect();
                let mut out = lines.join("\n");
                out.push('\n');
                out.into_bytes()
            }
        }
        FileContentType::MatchedRecordsFile => records_csv(r, &stored, Step::Upload)?,
        FileContentType::ProposedChangesFile => records_csv(r, &stored, Step::Edit)?,
        FileContentType::CommittedRecordsFile => records_csv(r, &stored, Step::Commit)?,
        FileContentType::RecordMatchingErrorFile => {
            let mut errors = operation::step_errors(r, &stored, Step::Upload)?;
            errors.extend(operation::step_errors(r, &stored, Step::Edit)?);
            errors_csv(&errors)?
        }
        FileContentType::CommittingChangesErrorFile => {
            errors_csv(&operation::step_errors(r, &stored, Step::Commit)?)?
        }
    };
    Ok((name, bytes))
}

fn csv_error(e: impl std::fmt::Display) -> crate::Error {
    invalid(format!("cannot write the file: {e}"))
}

fn records_csv(r: &Reader<'_>, stored: &Stored, step: Step) -> Result<Vec<u8>> {
    let entity = stored.operation.entity_type;
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(columns::header(entity)).map_err(csv_error)?;
    let mut names = Names::default();
    each_record(r, stored, step, |record| {
        out.write_record(columns::row(r, &mut names, entity, record)?).map_err(csv_error)?;
        Ok(true)
    })?;
    out.into_inner().map_err(csv_error)
}

/// FOLIO's error file: no header, a line per error: its type, the identifier, the message.
fn errors_csv(errors: &[OperationError]) -> Result<Vec<u8>> {
    let mut out = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    for e in errors {
        out.write_record([e.error_type.as_str(), &e.identifier, &e.message]).map_err(csv_error)?;
    }
    out.into_inner().map_err(csv_error)
}
