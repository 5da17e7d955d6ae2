//! A loan policy's item limit: how many open loans a patron may have of the items its
//! winning rule covers (FOLIO counts the loans whose items the same rule's material
//! type and loan type criteria match).

use circ_rules::PolicyKind;
use store::Reader;
use uuid::Uuid;

use crate::rules::RuleInputs;
use crate::{Refusal, Result};

pub(crate) fn check(
    reader: &Reader<'_>,
    rules: &circ_rules::Rules,
    inputs: &RuleInputs,
    user_id: Uuid,
    limit: u32,
    item_barcode: &str,
) -> Result<Option<Refusal>> {
    let mut others = Vec::new();
    for loan in crate::check_out::open_loans_of_user(reader, user_id)? {
        let Some(item) = inventory::get_item(reader, loan.item_id)? else { continue };
        let loan_type = item.temporary_loan_type_id.unwrap_or(item.permanent_loan_type_id);
        others.push((item.material_type_id.to_string(), loan_type.to_string()));
    }
    let (applies, count, conditions) = inputs.with_criteria(|criteria| {
        let found = rules.lookup(PolicyKind::Loan, criteria);
        let count =
            others.iter().filter(|(m, t)| found.counts_toward_item_limit(criteria, m, t)).count();
        (found.item_limit_applies(), count, found.conditions)
    });
    if !applies || count < limit as usize {
        return Ok(None);
    }
    let (g, m, t) = (conditions.patron_group, conditions.material_type, conditions.loan_type);
    let (code, description) = match (g, m, t) {
        (true, true, true) => (
            "ITEM_LIMIT_PATRON_GROUP_MATERIAL_TYPE_LOAN_TYPE",
            "for combination of patron group, material type and loan type",
        ),
        (true, true, false) => (
            "ITEM_LIMIT_PATRON_GROUP_MATERIAL_TYPE",
            "for combination of patron group and material type",
        ),
        (true, false, true) => {
            ("ITEM_LIMIT_PATRON_GROUP_LOAN_TYPE", "for combination of patron group and loan type")
        }
        (false, true, true) => {
            ("ITEM_LIMIT_MATERIAL_TYPE_LOAN_TYPE", "for combination of material type and loan type")
        }
        (_, true, false) => ("ITEM_LIMIT_MATERIAL_TYPE", "for material type"),
        (_, false, true) => ("ITEM_LIMIT_LOAN_TYPE", "for loan type"),
        _ => ("ITEM_LIMIT_MATERIAL_TYPE", "for material type"),
    };
    Ok(Some(
        Refusal::new(
            format!("Patron has reached maximum limit of {limit} items {description}"),
            "itemBarcode",
            item_barcode,
        )
        .code(code),
    ))
}
