//! What the unit tests share: a tenant with the profiles schema, profile bodies by JSON,
//! and a tree written out as indented text.

use std::sync::Arc;

use folio::Actor;
use serde_json::Value;
use uuid::Uuid;

use crate::{
    Error, JobTree, MatchOperand, Profile, ProfileDto, RuleValue, Step, UserInfo, create, decode,
};

pub(crate) fn tenant() -> (tempfile::TempDir, Arc<store::Tenant>) {
    let dir = tempfile::tempdir().unwrap();
    let store =
        store::Store::open(dir.path(), store::testing::options(), &[crate::MIGRATIONS]).unwrap();
    let (tenant, _) = store.create_tenant("t").unwrap();
    (dir, tenant)
}

pub(crate) fn user() -> Option<UserInfo> {
    Some(UserInfo { user_name: Some("tester".into()), ..UserInfo::default() })
}

/// Creates a profile from a body; the profile's id.
pub(crate) fn post<P: Profile>(tenant: &store::Tenant, body: Value) -> Result<Uuid, Error> {
    let dto: ProfileDto<P> = decode(body.to_string().as_bytes())?;
    let created = tenant.write(|w| create(w, dto, Actor::default(), user()))?;
    Ok(created.id.unwrap())
}

/// A tree as indented lines: steps, their conditions and mapping rules.
pub(crate) fn render(tree: &JobTree) -> String {
    let mut out = format!("job {:?} {:?}\n", tree.job.name, tree.job.data_type);
    steps(&tree.steps, 1, &mut out);
    out
}

fn steps(steps: &[Step], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for step in steps {
        match step {
            Step::Match(m) => {
                out.push_str(&format!(
                    "{pad}match {:?} {:?} -> {:?}\n",
                    m.name, m.incoming_record_type, m.existing_record_type
                ));
                for c in &m.conditions {
                    out.push_str(&format!(
                        "{pad}  where {} {:?} {}\n",
                        operand(&c.incoming),
                        c.criterion,
                        operand(&c.existing)
                    ));
                }
                out.push_str(&format!("{pad}  on match:\n"));
                self::steps(&m.on_match, depth + 2, out);
                out.push_str(&format!("{pad}  on non-match:\n"));
                self::steps(&m.on_non_match, depth + 2, out);
            }
            Step::Action(a) => {
                out.push_str(&format!("{pad}action {:?} {:?} {:?}\n", a.name, a.action, a.record));
                if let Some(m) = &a.mapping {
                    out.push_str(&format!(
                        "{pad}  mapping {:?} -> {:?}, {} rules, {} MARC edits\n",
                        m.name,
                        m.existing_record_type,
                        m.rules.len(),
                        m.marc_details.len()
                    ));
                    for rule in m.rules.iter().filter(|r| r.value != RuleValue::Empty) {
                        out.push_str(&format!("{pad}    {} = {:?}\n", rule.path, rule.value));
                    }
                }
                self::steps(&a.then, depth + 1, out);
            }
        }
    }
}

fn operand(operand: &MatchOperand) -> String {
    match operand {
        MatchOperand::Marc(m) => format!(
            "MARC {} {:?} {:?} ${}",
            m.tag,
            m.ind1,
            m.ind2,
            m.subfield.map(String::from).unwrap_or_default()
        ),
        MatchOperand::Field(f) => format!("field {}", f.path),
        MatchOperand::Static(s) => format!("static {s:?}"),
    }
}
