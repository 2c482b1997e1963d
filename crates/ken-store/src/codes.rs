//! On-disk codes of the enums in the graph's big tables (`refs.kind`,
//! `edges.relation`, `edges.resolution`): one byte or none per row where
//! the name took ten, and the same again in every index that holds them.
//! Sympy has half a million references and a quarter million edges.
//!
//! The numbers are the format: an index written by one version is read by
//! the next. A new variant takes a new number; a number is never reused.

use ken_core::{RefKind, Relation, Resolution};

/// An enum stored as a small integer.
pub(crate) trait Coded: Copy + Sized + 'static {
    /// What the column holds, for [`crate::StoreError::UnknownValue`].
    const WHAT: &'static str;
    /// Every variant with its code.
    const CODES: &'static [(Self, i64)];

    fn code(self) -> i64
    where
        Self: PartialEq,
    {
        Self::CODES.iter().find(|(v, _)| *v == self).map(|&(_, c)| c).expect("every variant has a code")
    }

    fn from_code(code: i64) -> Option<Self> {
        Self::CODES.iter().find(|&&(_, c)| c == code).map(|&(v, _)| v)
    }
}

impl Coded for RefKind {
    const WHAT: &'static str = "reference kind";
    const CODES: &'static [(RefKind, i64)] =
        &[(RefKind::Call, 1), (RefKind::Import, 2), (RefKind::Inherit, 3), (RefKind::Instantiate, 4), (RefKind::FieldUse, 5)];
}

impl Coded for Relation {
    const WHAT: &'static str = "relation";
    const CODES: &'static [(Relation, i64)] = &[
        (Relation::ParentOf, 1),
        (Relation::Construct, 2),
        (Relation::Imports, 3),
        (Relation::DerivedClassOf, 4),
        (Relation::Overrides, 5),
        (Relation::Calls, 6),
        (Relation::Instantiates, 7),
        (Relation::Uses, 8),
    ];
}

impl Coded for Resolution {
    const WHAT: &'static str = "resolution";
    const CODES: &'static [(Resolution, i64)] =
        &[(Resolution::Exact, 1), (Resolution::TypeInferred, 2), (Resolution::UniqueName, 3), (Resolution::Unresolved, 4)];
}

/// Column `idx` of `row`, an enum's code, as the enum.
pub(crate) fn coded<T: Coded>(row: &rusqlite::Row, idx: usize) -> rusqlite::Result<T> {
    let code: i64 = row.get(idx)?;
    T::from_code(code).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            idx,
            rusqlite::types::Type::Integer,
            Box::new(crate::UnknownValue { what: T::WHAT, value: code.to_string() }),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Coded + PartialEq + std::fmt::Debug>(all: &[T]) {
        assert_eq!(T::CODES.len(), all.len(), "{}: every variant has a code", T::WHAT);
        for &v in all {
            assert_eq!(T::from_code(v.code()), Some(v));
        }
        let mut codes: Vec<i64> = T::CODES.iter().map(|&(_, c)| c).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all.len(), "{}: codes are distinct", T::WHAT);
    }

    #[test]
    fn every_variant_has_one_distinct_code() {
        check(RefKind::ALL);
        check(Relation::ALL);
        check(Resolution::ALL);
    }

    /// The migration to version 8 spells the codes out in SQL: it must
    /// agree with this table.
    #[test]
    fn migration_spells_the_same_codes() {
        let sql = include_str!("schema_v8.sql").split_whitespace().collect::<Vec<_>>().join(" ");
        let mut arms: Vec<String> = Vec::new();
        arms.extend(RefKind::CODES.iter().map(|&(v, c)| format!("WHEN '{}' THEN {c}", v.as_str())));
        arms.extend(Relation::CODES.iter().map(|&(v, c)| format!("WHEN '{}' THEN {c}", v.as_str())));
        arms.extend(Resolution::CODES.iter().map(|&(v, c)| format!("WHEN '{}' THEN {c}", v.as_str())));
        for arm in arms {
            assert!(sql.contains(&arm), "schema_v8.sql lacks `{arm}`");
        }
    }
}
