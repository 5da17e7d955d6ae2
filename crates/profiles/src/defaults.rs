//! FOLIO's default profiles, which every new FOLIO tenant gets under fixed ids: the
//! job profiles for MARC Bib, Holdings and authority imports, the Inventory single-record
//! import, quickMARC's and the MARC authority app's hidden ones, and the EDIFACT invoice
//! mappings; with their links and nodes. The data (`defaults/*.json`) is Quire's own
//! compact transcription of what mod-di-converter-storage seeds, in the API's shapes;
//! the descriptions are Quire's words.
//!
//! Which of them FOLIO refuses to change or delete is listed here too: the locked ones
//! take only a change of tags; "Default - Create SRS MARC Authority" may be changed but
//! not deleted; the others ("Default - Create instance and SRS MARC Bib" among them) are
//! the tenant's to change.

use folio::{Actor, Record};
use serde::de::DeserializeOwned;
use store::Writer;
use uuid::Uuid;

use crate::{
    Error, ProfileAssociation, ProfileType, Result, UserInfo,
    associations::profile_exists,
    model::{ActionProfile, JobProfile, MappingProfile, MatchProfile, Profile, name_key},
};

/// "Default - Create instance and SRS MARC Bib": the job a MARC Bib file is imported
/// with unless another is chosen.
pub const DEFAULT_CREATE_INSTANCE_JOB: Uuid =
    Uuid::from_u128(0xe34d7b92_9b83_11eb_a8b3_0242ac130003);
/// "Default - Create SRS MARC Authority".
pub const DEFAULT_CREATE_AUTHORITY_JOB: Uuid =
    Uuid::from_u128(0x6eefa4c6_bbf7_4845_ad82_de7fc5abd0e3);
/// "Default - Create Holdings and SRS MARC Holdings".
pub const DEFAULT_CREATE_HOLDINGS_JOB: Uuid =
    Uuid::from_u128(0x80898dee_449f_44dd_9c8e_37d5eb469b1d);

const JOBS: &str = include_str!("../defaults/job_profiles.json");
const MATCHES: &str = include_str!("../defaults/match_profiles.json");
const ACTIONS: &str = include_str!("../defaults/action_profiles.json");
const MAPPINGS: &str = include_str!("../defaults/mapping_profiles.json");
const LINKS: &str = include_str!("../defaults/associations.json");

/// The defaults FOLIO takes only a change of tags to, and never deletes.
const LOCKED_JOBS: &[Uuid] = &[
    Uuid::from_u128(0xd0ebb7b0_2f0f_11eb_adc1_0242ac120002),
    Uuid::from_u128(0x91f9b8d6_d80e_4727_9783_73fb53e3c786),
    Uuid::from_u128(0xfa0262c7_5816_48d0_b9b3_7b7a862a5bc7),
    Uuid::from_u128(0x6409dcff_71fa_433a_bc6a_e70ad38a9604),
    Uuid::from_u128(0x80898dee_449f_44dd_9c8e_37d5eb469b1d),
    Uuid::from_u128(0x1a338fcd_3efc_4a03_b007_394eeb0d5fb9),
    Uuid::from_u128(0xcf6f2718_5aa5_482a_bba5_5bc9b75614da),
    Uuid::from_u128(0x6cb347c6_c0b0_4363_89fc_32cedede87ba),
    Uuid::from_u128(0xc7fcbc40_c4c0_411d_b569_1fc6bc142a92),
    Uuid::from_u128(0x6eefa4c6_bbf7_4845_ad82_de7fc4abd0e3),
];
const LOCKED_MATCHES: &[Uuid] = &[
    Uuid::from_u128(0xd27d71ce_8a1e_44c6_acea_96961b5592c6),
    Uuid::from_u128(0x31dbb554_0826_48ec_a0a4_3c55293d4dee),
    Uuid::from_u128(0x4be5d1d2_1f5a_42ff_a9bd_fc90609d94b6),
    Uuid::from_u128(0x91cec42a_260d_4a8c_a9fb_90d9435ca2f4),
    Uuid::from_u128(0x2a599369_817f_4fe8_bae2_f3e3987990fe),
    Uuid::from_u128(0xaff72eae_847c_4a97_b7b9_c1ddb8cdcbbf),
];
const LOCKED_ACTIONS: &[Uuid] = &[
    Uuid::from_u128(0xd0ebba8a_2f0f_11eb_adc1_0242ac120002),
    Uuid::from_u128(0xcddff0e1_233c_47ba_8be5_553c632709d9),
    Uuid::from_u128(0x6aa8e98b_0d9f_41dd_b26f_15658d07eb52),
    Uuid::from_u128(0xf8e58651_f651_485d_aead_d2fa8700e2d1),
    Uuid::from_u128(0xf5feddba_f892_4fad_b702_e4e77f04f9a3),
    Uuid::from_u128(0x8aa0b850_9182_4005_8435_340b704b2a19),
    Uuid::from_u128(0x7915c72e_c6af_4962_969d_403c7238b051),
    Uuid::from_u128(0x7915c72e_c7af_4962_969d_403c7238b051),
    Uuid::from_u128(0xfabd9a3e_33c3_49b7_864d_c5af830d9990),
    Uuid::from_u128(0xc2e2d482_9486_476e_a28c_8f1e303cbe1a),
    Uuid::from_u128(0x7e24a466_349b_451d_a18e_38fb21d71b38),
    Uuid::from_u128(0xf0f788c8_2e65_4e3a_9247_e9444eeb7d70),
];
const LOCKED_MAPPINGS: &[Uuid] = &[
    Uuid::from_u128(0xd0ebbc2e_2f0f_11eb_adc1_0242ac120002),
    Uuid::from_u128(0x862000b9_84ea_4cae_a223_5fc0552f2b42),
    Uuid::from_u128(0xf90864ef_8030_480f_a43f_8cdd21233252),
    Uuid::from_u128(0x991c0300_44a6_47e3_8ea2_b01bb56a38cc),
    Uuid::from_u128(0xe0fbaad5_10c0_40d5_9228_498b351dbbaa),
    Uuid::from_u128(0x13cf7adf_c7a7_4c2e_838f_14d0ac36ec0a),
    Uuid::from_u128(0x6a0ec1de_68eb_4833_bdbf_0741db25c314),
    Uuid::from_u128(0x6a0ec1de_68eb_4833_bdbf_0741db85c314),
    Uuid::from_u128(0x39b265e1_c963_4e5f_859d_6e8c327a265c),
    Uuid::from_u128(0xb8a9ca7d_4a33_44d3_86e1_f7c6cb7b265f),
    Uuid::from_u128(0x041f8ff9_9d17_4436_b305_1033e0879501),
];

/// Whether the profile is one of FOLIO's locked defaults.
pub(crate) fn locked(kind: ProfileType, id: Uuid) -> bool {
    let list = match kind {
        ProfileType::JobProfile => LOCKED_JOBS,
        ProfileType::MatchProfile => LOCKED_MATCHES,
        ProfileType::ActionProfile => LOCKED_ACTIONS,
        ProfileType::MappingProfile => LOCKED_MAPPINGS,
    };
    list.contains(&id)
}

/// Whether FOLIO refuses to delete the profile.
pub(crate) fn undeletable(kind: ProfileType, id: Uuid) -> bool {
    locked(kind, id) || (kind == ProfileType::JobProfile && id == DEFAULT_CREATE_AUTHORITY_JOB)
}

/// Who FOLIO's seeded profiles are by: the nil user, named "System".
const SYSTEM: Actor = Actor { user_id: Some(Uuid::nil()) };

/// Adds FOLIO's default profiles and their links to a tenant; answers how many records
/// it wrote. Idempotent: a default that exists (or whose name another profile of its
/// type has taken) is left alone, so a second run writes nothing. A default the tenant
/// deleted comes back, as FOLIO's seeding brings it back on a module upgrade.
pub fn seed(writer: &mut Writer<'_>) -> Result<usize> {
    let mut n_written = crate::protection::seed_protection(writer)?;
    n_written += seed_profiles::<JobProfile>(writer, JOBS)?;
    n_written += seed_profiles::<MatchProfile>(writer, MATCHES)?;
    n_written += seed_profiles::<ActionProfile>(writer, ACTIONS)?;
    n_written += seed_profiles::<MappingProfile>(writer, MAPPINGS)?;
    for mut link in parse::<ProfileAssociation>(LINKS)? {
        let Some(((master_kind, master_id), (detail_kind, detail_id))) = link.ends() else {
            continue;
        };
        let id = link.id.map(|id| id.to_string()).unwrap_or_default();
        if writer.exists(&ProfileAssociation::TABLE, &id)?
            || !profile_exists(writer, master_kind, master_id)?
            || !profile_exists(writer, detail_kind, detail_id)?
        {
            continue;
        }
        folio::record::write(writer, &mut link, folio::record::Mode::Create, SYSTEM, |_, _, _| {
            Ok::<_, Error>(())
        })?;
        n_written += 1;
    }
    Ok(n_written)
}

fn seed_profiles<P: Profile>(writer: &mut Writer<'_>, json: &str) -> Result<usize> {
    let mut n_written = 0;
    for mut profile in parse::<P>(json)? {
        let id = profile.id().map(|id| id.to_string()).unwrap_or_default();
        if writer.exists(&P::TABLE, &id)? {
            continue;
        }
        if !writer.find_by(&P::TABLE, "name_key", &name_key(profile.name()))?.is_empty() {
            tracing::warn!(profile = %id, name = profile.name(), "default profile not added: its name is taken");
            continue;
        }
        profile.set_user_info(Some(UserInfo::system()));
        folio::record::write(
            writer,
            &mut profile,
            folio::record::Mode::Create,
            SYSTEM,
            |_, _, _| Ok::<_, Error>(()),
        )?;
        n_written += 1;
    }
    Ok(n_written)
}

fn parse<T: DeserializeOwned>(json: &str) -> Result<Vec<T>> {
    serde_json::from_str(json).map_err(|e| Error::Corrupt {
        record: "default profile",
        id: String::new(),
        message: e.to_string(),
    })
}

/// Every default profile's type, id and name, in the order seeded.
pub fn defaults() -> Result<Vec<(ProfileType, Uuid, String)>> {
    fn of<P: Profile>(json: &str) -> Result<Vec<(ProfileType, Uuid, String)>> {
        Ok(parse::<P>(json)?
            .into_iter()
            .map(|p| (P::TYPE, p.id().unwrap_or_default(), p.name().to_string()))
            .collect())
    }
    let mut all = of::<JobProfile>(JOBS)?;
    all.extend(of::<MatchProfile>(MATCHES)?);
    all.extend(of::<ActionProfile>(ACTIONS)?);
    all.extend(of::<MappingProfile>(MAPPINGS)?);
    Ok(all)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::testing::{render, tenant};

    #[test]
    fn seeding_adds_every_default_once_with_folio_ids() {
        let (_dir, tenant) = tenant();
        let all = defaults().unwrap();
        let n_profiles = all.len();
        assert_eq!(
            [
                ProfileType::JobProfile,
                ProfileType::MatchProfile,
                ProfileType::ActionProfile,
                ProfileType::MappingProfile
            ]
            .map(|t| all.iter().filter(|(kind, ..)| *kind == t).count()),
            [13, 6, 14, 26]
        );
        let n_written = tenant.write(seed).unwrap();
        // And the two system field protection settings.
        assert_eq!(n_written, n_profiles + 33 + 2, "every profile, link and setting");
        assert_eq!(tenant.write(seed).unwrap(), 0, "a second run writes nothing");
        let job = tenant
            .read(|r| crate::get::<JobProfile>(r, DEFAULT_CREATE_INSTANCE_JOB))
            .unwrap()
            .unwrap();
        assert_eq!(job.name, "Default - Create instance and SRS MARC Bib");
        assert_eq!(job.user_info, Some(UserInfo::system()));
        assert!(job.metadata.is_some());
    }

    #[test]
    fn every_default_job_has_a_tree_of_actions() {
        let (_dir, tenant) = tenant();
        tenant.write(seed).unwrap();
        for (kind, id, name) in defaults().unwrap() {
            if kind != ProfileType::JobProfile {
                continue;
            }
            let tree = tenant.read(|r| crate::job_tree(r, id)).unwrap();
            assert!(!tree.steps.is_empty(), "{name}: {tree:?}");
        }
    }

    #[test]
    fn default_trees() {
        let (_dir, tenant) = tenant();
        tenant.write(seed).unwrap();
        let show =
            |id: u128| render(&tenant.read(|r| crate::job_tree(r, Uuid::from_u128(id))).unwrap());
        expect![[r#"
            job "Default - Create instance and SRS MARC Bib" Marc
              action "Default - Create instance" Create Instance
                mapping "Default - Create instance" -> Some(Instance), 9 rules, 0 MARC edits
        "#]]
        .assert_eq(&show(0xe34d7b92_9b83_11eb_a8b3_0242ac130003));
        expect![[r#"
            job "Inventory Single Record - Default Update Instance" Marc
              match "Inventory Single Record - Default match for existing SRS record" MarcBibliographic -> MarcBibliographic
                where MARC 999 Value('f') Value('f') $i ExactlyMatches MARC 999 Value('f') Value('f') $i
                on match:
                  action "Inventory Single Record - Default Update MARC Bib" Update MarcBibliographic
                    mapping "Inventory Single Record - Default Update MARC Bib" -> Some(MarcBibliographic), 0 rules, 0 MARC edits
                on non-match:
                  match "Inventory Single Record - Default match for no SRS record" MarcBibliographic -> Instance
                    where MARC 999 Value('f') Value('f') $i ExactlyMatches field instance.id
                    on match:
                      action "Inventory Single Record - Default Update Instance" Update Instance
                        mapping "Inventory Single Record - Default Update Instance" -> Some(Instance), 9 rules, 0 MARC edits
                    on non-match:
        "#]]
        .assert_eq(&show(0x91f9b8d6_d80e_4727_9783_73fb53e3c786));
        expect![[r#"
            job "Default - Delete MARC Authority" Marc
              match "Default - Delete MARC Authority" MarcAuthority -> MarcAuthority
                where MARC 999 Value('f') Value('f') $s ExactlyMatches MARC 999 Value('f') Value('f') $s
                on match:
                  action "Default - Delete MARC Authority via MARC Authority app" Delete MarcAuthority
                on non-match:
        "#]]
        .assert_eq(&show(0x1a338fcd_3efc_4a03_b007_394eeb0d5fb9));
    }
}
