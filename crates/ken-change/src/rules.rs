//! Table 1's fourth column: for each atomic change, the relations that
//! reach the blocks it may impact. `Rel(D, M, CalledBy)` reads "the blocks
//! related to M by CalledBy in the graph before the change": M's callers.
//!
//! Three additions to the paper's table, called for by type checkers
//! (bench/README, the impact set's delete, rename and constructor rows): a
//! deleted method also breaks what reads it without a call (`UsedBy`: a
//! property read, a method passed as a callback) and the imports naming it
//! (`ImportedBy`); and a constructor's change reaches its explicit calls
//! (`CalledBy`: `super().__init__(…)`). A deleted class gets the same two
//! by analogy; no benchmark row deletes a class yet. A deleted or re-signed
//! function reaches its overload signatures (`Overloads`: `tsc` flags them
//! when the implementation goes).
//!
//! Two narrowings, applied by the engine (`ken-engine/src/impact.rs`),
//! where the checkers flag nothing of the class family:
//! - AM's base classes and subclasses are kept only where one has a member
//!   of the added method's name (it overrides or is overridden): rename
//!   precision 0.678 → 0.809;
//! - a constructor's change (MCC, ACC, DCC) reaches no base class, and of
//!   the subclasses only those that inherit the constructor, through their
//!   instantiations (a subclass with its own calls `super().__init__`,
//!   reached by `CalledBy`).

use crate::ChangeLabel;
use ken_core::Relation;
use serde::Serialize;

/// CodePlan's relation names, each a stored relation read forwards or backwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub enum Rel {
    CalledBy,
    Overrides,
    OverriddenBy,
    UsedBy,
    ConstructedBy,
    BaseClassOf,
    DerivedClassOf,
    InstantiatedBy,
    ImportedBy,
    /// The other declarations of the name in its file: TypeScript's
    /// overload signatures, Python's `@overload` stubs. No stored edge: the
    /// engine reads them from the symbols.
    Overloads,
    /// M is a property accessor (Python's `@property`, `@x.setter`,
    /// `@cached_property`; a TypeScript or JavaScript `get` or `set`): the
    /// protocol fixes its parameters, so a signature change reaches its own
    /// declaration. No stored edge: the engine reads the declaration.
    Accessor,
    /// M is an item of a trait implementation (Rust's `impl Trait for
    /// Type`): deleting it leaves the implementation short of the trait's
    /// item, so it reaches the `impl` header. No stored edge: the engine
    /// reads the implementation.
    Implements,
    /// C lost a base class: the uses, in C's members and its subclasses',
    /// of the members C inherited from it. No stored edge of its own: the
    /// engine compares C's bases in D with its header in D′.
    Inherits,
}

impl Rel {
    /// The stored relations, and whether they are followed backwards (to their sources).
    pub fn edge(self) -> (&'static [Relation], bool) {
        match self {
            // A class counts as called where it is instantiated.
            Rel::CalledBy => (&[Relation::Calls, Relation::Instantiates], true),
            Rel::Overrides => (&[Relation::Overrides], false),
            Rel::OverriddenBy => (&[Relation::Overrides], true),
            Rel::UsedBy => (&[Relation::Uses], true),
            Rel::ConstructedBy => (&[Relation::Construct], true),
            // C is a base class of D where D derives from C: C's subclasses.
            Rel::BaseClassOf => (&[Relation::DerivedClassOf], true),
            Rel::DerivedClassOf => (&[Relation::DerivedClassOf], false),
            Rel::InstantiatedBy => (&[Relation::Instantiates], true),
            Rel::ImportedBy => (&[Relation::Imports], true),
            Rel::Overloads | Rel::Accessor | Rel::Implements | Rel::Inherits => (&[], false),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rel::CalledBy => "CalledBy",
            Rel::Overrides => "Overrides",
            Rel::OverriddenBy => "OverriddenBy",
            Rel::UsedBy => "UsedBy",
            Rel::ConstructedBy => "ConstructedBy",
            Rel::BaseClassOf => "BaseClassOf",
            Rel::DerivedClassOf => "DerivedClassOf",
            Rel::InstantiatedBy => "InstantiatedBy",
            Rel::ImportedBy => "ImportedBy",
            Rel::Overloads => "Overloads",
            Rel::Accessor => "Accessor",
            Rel::Implements => "Implements",
            Rel::Inherits => "Inherits",
        }
    }
}

/// Whose relations: the changed symbol (M, F, I, or C for a class change),
/// or the class that holds it (C for a method, field or constructor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Target {
    Symbol,
    Container,
}

/// D, the graph before the change, or D′, after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum GraphVersion {
    Before,
    After,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Rule {
    pub graph: GraphVersion,
    pub target: Target,
    pub rel: Rel,
}

impl Rule {
    /// As Table 1 writes it: `Rel(D′, M, Overrides)`.
    pub fn notation(&self, label: ChangeLabel) -> String {
        let graph = match self.graph {
            GraphVersion::Before => "D",
            GraphVersion::After => "D′",
        };
        let who = match (self.target, label) {
            (Target::Container, _) | (Target::Symbol, ChangeLabel::MC | ChangeLabel::AC | ChangeLabel::DC) => "C",
            (Target::Symbol, ChangeLabel::MF | ChangeLabel::AF | ChangeLabel::DF) => "F",
            (Target::Symbol, ChangeLabel::MI | ChangeLabel::AI | ChangeLabel::DI) => "I",
            (Target::Symbol, _) => "M",
        };
        format!("Rel({graph}, {who}, {})", self.rel.name())
    }
}

const fn rule(graph: GraphVersion, target: Target, rel: Rel) -> Rule {
    Rule { graph, target, rel }
}

use GraphVersion::{After as D2, Before as D};
use Target::{Container as C, Symbol as S};

const CLASS_FAMILY: [Rule; 2] = [rule(D, C, Rel::BaseClassOf), rule(D, C, Rel::DerivedClassOf)];

/// The rules of `label`. MMB's apply only when the change modifies an
/// escaping object: pass `escaping`.
pub fn rules(label: ChangeLabel, escaping: bool) -> Vec<Rule> {
    match label {
        ChangeLabel::MMB if escaping => vec![rule(D, S, Rel::CalledBy)],
        ChangeLabel::MMB => vec![],
        ChangeLabel::MMS => vec![
            rule(D, S, Rel::CalledBy),
            rule(D, S, Rel::Overrides),
            rule(D, S, Rel::OverriddenBy),
            rule(D2, S, Rel::Overrides),
            rule(D2, S, Rel::OverriddenBy),
            rule(D, S, Rel::Overloads),
            rule(D, S, Rel::Accessor),
        ],
        ChangeLabel::MF | ChangeLabel::DF => {
            let mut r = vec![rule(D, S, Rel::UsedBy), rule(D, C, Rel::ConstructedBy)];
            r.extend(CLASS_FAMILY);
            r
        }
        ChangeLabel::MC => vec![
            rule(D, S, Rel::InstantiatedBy),
            rule(D, S, Rel::BaseClassOf),
            rule(D, S, Rel::DerivedClassOf),
            rule(D2, S, Rel::BaseClassOf),
            rule(D2, S, Rel::DerivedClassOf),
            rule(D, S, Rel::Inherits),
        ],
        ChangeLabel::MCC | ChangeLabel::ACC | ChangeLabel::DCC => {
            let mut r = vec![rule(D, C, Rel::InstantiatedBy), rule(D, S, Rel::CalledBy)];
            r.extend(CLASS_FAMILY);
            r
        }
        ChangeLabel::DC => vec![
            rule(D, S, Rel::InstantiatedBy),
            rule(D, S, Rel::BaseClassOf),
            rule(D, S, Rel::DerivedClassOf),
            rule(D, S, Rel::UsedBy),
            rule(D, S, Rel::ImportedBy),
        ],
        ChangeLabel::MI | ChangeLabel::DI => vec![rule(D, S, Rel::ImportedBy)],
        ChangeLabel::AM => {
            let mut r = CLASS_FAMILY.to_vec();
            r.push(rule(D2, S, Rel::CalledBy));
            r
        }
        ChangeLabel::AF => {
            let mut r = vec![rule(D, C, Rel::ConstructedBy)];
            r.extend(CLASS_FAMILY);
            r
        }
        ChangeLabel::AC | ChangeLabel::AI => vec![],
        ChangeLabel::DM => vec![
            rule(D, S, Rel::CalledBy),
            rule(D, S, Rel::UsedBy),
            rule(D, S, Rel::ImportedBy),
            rule(D, S, Rel::Overrides),
            rule(D, S, Rel::OverriddenBy),
            rule(D, S, Rel::Overloads),
            rule(D, S, Rel::Implements),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    /// Table 1's fourth column, as this crate reads it (with the additions above).
    #[test]
    fn table_1() {
        let lines: Vec<String> = ChangeLabel::ALL
            .iter()
            .map(|&l| {
                let rules: Vec<String> = rules(l, true).iter().map(|r| r.notation(l)).collect();
                format!("{l}: {}", if rules.is_empty() { "Nil".to_string() } else { rules.join(", ") })
            })
            .collect();
        expect![[r#"
            MMB: Rel(D, M, CalledBy)
            MMS: Rel(D, M, CalledBy), Rel(D, M, Overrides), Rel(D, M, OverriddenBy), Rel(D′, M, Overrides), Rel(D′, M, OverriddenBy), Rel(D, M, Overloads), Rel(D, M, Accessor)
            MF: Rel(D, F, UsedBy), Rel(D, C, ConstructedBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf)
            MC: Rel(D, C, InstantiatedBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf), Rel(D′, C, BaseClassOf), Rel(D′, C, DerivedClassOf), Rel(D, C, Inherits)
            MCC: Rel(D, C, InstantiatedBy), Rel(D, M, CalledBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf)
            MI: Rel(D, I, ImportedBy)
            AM: Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf), Rel(D′, M, CalledBy)
            AF: Rel(D, C, ConstructedBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf)
            AC: Nil
            ACC: Rel(D, C, InstantiatedBy), Rel(D, M, CalledBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf)
            AI: Nil
            DM: Rel(D, M, CalledBy), Rel(D, M, UsedBy), Rel(D, M, ImportedBy), Rel(D, M, Overrides), Rel(D, M, OverriddenBy), Rel(D, M, Overloads), Rel(D, M, Implements)
            DF: Rel(D, F, UsedBy), Rel(D, C, ConstructedBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf)
            DC: Rel(D, C, InstantiatedBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf), Rel(D, C, UsedBy), Rel(D, C, ImportedBy)
            DCC: Rel(D, C, InstantiatedBy), Rel(D, M, CalledBy), Rel(D, C, BaseClassOf), Rel(D, C, DerivedClassOf)
            DI: Rel(D, I, ImportedBy)"#]]
        .assert_eq(&lines.join("\n"));
        assert!(rules(ChangeLabel::MMB, false).is_empty(), "a body change that modifies no escaping object impacts nothing");
    }
}
