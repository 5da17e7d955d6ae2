//! Block overrides (FOLIO's `overrideBlocks`): staff with the matching permission lend
//! despite a patron block, a reached item limit or a loan policy that does not lend, or
//! renew despite what forbids the renewal, and the loan records that it was made or
//! renewed through an override.
//!
//! Owns the request shape, which permission each block takes, and the refusals of an
//! override that cannot be honoured (missing permission, comment or due date). Does not
//! own the checks being overridden (`check_out`) or where permissions come from (the
//! server passes what the caller holds).

use chrono::{DateTime, Utc};
use folio::Timestamp;
use serde::Deserialize;

use crate::Refusal;

/// A block a check-out may override, and the permission it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverridableBlock {
    /// Manual and automated patron blocks.
    Patron,
    ItemLimit,
    ItemNotLoanable,
    /// A renewal refused for the renewal limit or a recall.
    Renewal,
    /// A renewal refused where no new due date can be worked out (the policy does not
    /// lend or renew, a hold, a date outside the schedule): staff give one.
    RenewalDueDateRequired,
}

impl OverridableBlock {
    /// The blocks a check-out may override.
    pub const CHECK_OUT: [OverridableBlock; 3] =
        [OverridableBlock::Patron, OverridableBlock::ItemLimit, OverridableBlock::ItemNotLoanable];

    /// The `overrideBlocks` member, and the name FOLIO's errors give the block.
    pub fn name(self) -> &'static str {
        match self {
            OverridableBlock::Patron => "patronBlock",
            OverridableBlock::ItemLimit => "itemLimitBlock",
            OverridableBlock::ItemNotLoanable => "itemNotLoanableBlock",
            OverridableBlock::Renewal => "renewalBlock",
            OverridableBlock::RenewalDueDateRequired => "renewalDueDateRequiredBlock",
        }
    }

    pub fn permission(self) -> &'static str {
        match self {
            OverridableBlock::Patron => "circulation.override-patron-block.post",
            OverridableBlock::ItemLimit => "circulation.override-item-limit-block.post",
            OverridableBlock::ItemNotLoanable => {
                "circulation.override-item-not-loanable-block.post"
            }
            // One permission for both renewal blocks, as in FOLIO.
            OverridableBlock::Renewal | OverridableBlock::RenewalDueDateRequired => {
                "circulation.override-renewal-block.post"
            }
        }
    }
}

/// What a refusal says about overriding it: which block, and whether the caller lacks
/// the permission (FOLIO's `overridableBlock` with its `missingPermissions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overridable {
    pub block: OverridableBlock,
    pub permission_missing: bool,
}

impl Overridable {
    /// `block`, as a caller for whom `may_override` says whether they hold its permission.
    pub(crate) fn for_caller(
        block: OverridableBlock,
        may_override: &dyn Fn(OverridableBlock) -> bool,
    ) -> Overridable {
        Overridable { block, permission_missing: !may_override(block) }
    }
}

/// FOLIO's `overrideBlocks` on a check-out or a renewal. A block is overridden when its
/// member is present and not null; a check-out ignores the renewal blocks.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockOverrides {
    #[serde(default)]
    pub patron_block: Option<serde_json::Value>,
    #[serde(default)]
    pub item_limit_block: Option<serde_json::Value>,
    #[serde(default)]
    pub item_not_loanable_block: Option<NotLoanableOverride>,
    #[serde(default)]
    pub renewal_block: Option<serde_json::Value>,
    #[serde(default)]
    pub renewal_due_date_required_block: Option<NotLoanableOverride>,
    #[serde(default)]
    pub comment: Option<String>,
}

/// `itemNotLoanableBlock` and `renewalDueDateRequiredBlock`: the loan's due date, which
/// the loan policy cannot give.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotLoanableOverride {
    #[serde(default)]
    pub due_date: Option<Timestamp>,
}

impl BlockOverrides {
    pub fn requested(&self, block: OverridableBlock) -> bool {
        match block {
            OverridableBlock::Patron => self.patron_block.is_some(),
            OverridableBlock::ItemLimit => self.item_limit_block.is_some(),
            OverridableBlock::ItemNotLoanable => self.item_not_loanable_block.is_some(),
            OverridableBlock::Renewal => self.renewal_block.is_some(),
            OverridableBlock::RenewalDueDateRequired => {
                self.renewal_due_date_required_block.is_some()
            }
        }
    }

    /// Whether a check-out overrides any block.
    pub fn any_requested(&self) -> bool {
        OverridableBlock::CHECK_OUT.into_iter().any(|b| self.requested(b))
    }

    /// Whether a renewal takes the override path (either renewal block).
    pub fn renewal_requested(&self) -> bool {
        self.requested(OverridableBlock::Renewal)
            || self.requested(OverridableBlock::RenewalDueDateRequired)
    }

    /// The due date staff gave a renewal override.
    pub fn renewal_due_date(&self) -> Option<DateTime<Utc>> {
        self.renewal_due_date_required_block
            .as_ref()
            .and_then(|b| b.due_date)
            .map(|d| d.as_datetime())
    }

    /// The staff's comment, if it says anything.
    pub fn comment(&self) -> Option<&str> {
        self.comment.as_deref().filter(|c| !c.trim().is_empty())
    }
}

/// The refusal of an override the caller lacks the permission for.
pub(crate) fn insufficient_permissions(block: OverridableBlock) -> Refusal {
    Refusal {
        message: "Insufficient override permissions".to_string(),
        parameters: Vec::new(),
        code: Some("INSUFFICIENT_OVERRIDE_PERMISSIONS"),
        overridable: Some(Overridable { block, permission_missing: true }),
    }
}

/// One check-out's overrides, with what the caller may override.
pub(crate) struct Overrides<'a> {
    requested: &'a BlockOverrides,
    may_override: &'a dyn Fn(OverridableBlock) -> bool,
    /// Blocks already vetted: the patron block stands for two checks, reported once.
    vetted: Vec<OverridableBlock>,
}

impl<'a> Overrides<'a> {
    pub(crate) fn new(
        requested: &'a BlockOverrides,
        may_override: &'a dyn Fn(OverridableBlock) -> bool,
    ) -> Overrides<'a> {
        Overrides { requested, may_override, vetted: Vec::new() }
    }

    /// Whether the check for `block` is overridden; if it is, vets the override in its
    /// place.
    pub(crate) fn overridden(
        &mut self,
        block: OverridableBlock,
        loan_date: DateTime<Utc>,
        refusals: &mut Vec<Refusal>,
    ) -> bool {
        let requested = self.requested.requested(block);
        if requested {
            self.vet(block, loan_date, refusals);
        }
        requested
    }

    /// What a refusal of `block` says about overriding it.
    pub(crate) fn overridable(&self, block: OverridableBlock) -> Overridable {
        Overridable::for_caller(block, self.may_override)
    }

    /// In place of the check an override skips: the refusals of the override itself,
    /// once per block. Permission first, then the comment, as mod-circulation does.
    fn vet(
        &mut self,
        block: OverridableBlock,
        loan_date: DateTime<Utc>,
        refusals: &mut Vec<Refusal>,
    ) {
        if self.vetted.contains(&block) {
            return;
        }
        self.vetted.push(block);
        if !(self.may_override)(block) {
            refusals.push(insufficient_permissions(block));
            return;
        }
        if self.requested.comment.is_none() {
            refusals.push(Refusal::new(
                "Override should be performed with the comment specified",
                "comment",
                "",
            ));
            return;
        }
        if block == OverridableBlock::ItemNotLoanable {
            match self.due_date() {
                None => refusals.push(Refusal::new(
                    "Override should be performed with due date specified",
                    "dueDate",
                    "",
                )),
                Some(due) if due <= loan_date => refusals.push(Refusal::new(
                    "Due date should be later than loan date",
                    "dueDate",
                    Timestamp::from(due).to_string(),
                )),
                Some(_) => {}
            }
        }
    }

    /// The loan's `action` and `actionComment`: a loan made with any override says so,
    /// with the staff's comment.
    pub(crate) fn loan_action(&self) -> (&'static str, Option<String>) {
        if self.requested.any_requested() {
            ("checkedOutThroughOverride", self.requested.comment.clone())
        } else {
            ("checkedout", None)
        }
    }

    /// The due date an item-not-loanable override sets.
    pub(crate) fn due_date(&self) -> Option<DateTime<Utc>> {
        self.requested
            .item_not_loanable_block
            .as_ref()
            .and_then(|b| b.due_date)
            .map(|d| d.as_datetime())
    }
}
