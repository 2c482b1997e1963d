//! CodePlan's change analysis (Bairi et al., §2.2 and Table 1), pure: no
//! IO, no index. [`classify`] compares two versions of a file and names its
//! atomic changes, each tied to the symbol it concerns; [`rules`] says,
//! for each label, which relations of the dependency graph reach the blocks
//! that may have to change with it.

mod classify;
pub mod diagnostics;
pub mod edit;
mod escape;
pub mod flow;
pub mod rules;
pub mod sites;

pub use classify::{Change, FileDiff, LineRange, classify};
pub use escape::{Escape, EscapeKind};
pub use rules::{GraphVersion, Rel, Rule, Target};

use serde::Serialize;

/// CodePlan's 16 atomic change labels (Table 1, first two columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub enum ChangeLabel {
    /// Body of a method or function.
    MMB,
    /// Signature of a method or function.
    MMS,
    /// A field (or a module-level constant).
    MF,
    /// The declaration of a class: its name line, bases, decorators.
    MC,
    /// Signature of a constructor.
    MCC,
    /// An import statement: the same name from elsewhere, or under another alias.
    MI,
    AM,
    AF,
    AC,
    ACC,
    AI,
    DM,
    DF,
    DC,
    DCC,
    DI,
}

impl ChangeLabel {
    pub const ALL: [ChangeLabel; 16] = [
        ChangeLabel::MMB,
        ChangeLabel::MMS,
        ChangeLabel::MF,
        ChangeLabel::MC,
        ChangeLabel::MCC,
        ChangeLabel::MI,
        ChangeLabel::AM,
        ChangeLabel::AF,
        ChangeLabel::AC,
        ChangeLabel::ACC,
        ChangeLabel::AI,
        ChangeLabel::DM,
        ChangeLabel::DF,
        ChangeLabel::DC,
        ChangeLabel::DCC,
        ChangeLabel::DI,
    ];

    pub fn code(self) -> &'static str {
        match self {
            ChangeLabel::MMB => "MMB",
            ChangeLabel::MMS => "MMS",
            ChangeLabel::MF => "MF",
            ChangeLabel::MC => "MC",
            ChangeLabel::MCC => "MCC",
            ChangeLabel::MI => "MI",
            ChangeLabel::AM => "AM",
            ChangeLabel::AF => "AF",
            ChangeLabel::AC => "AC",
            ChangeLabel::ACC => "ACC",
            ChangeLabel::AI => "AI",
            ChangeLabel::DM => "DM",
            ChangeLabel::DF => "DF",
            ChangeLabel::DC => "DC",
            ChangeLabel::DCC => "DCC",
            ChangeLabel::DI => "DI",
        }
    }

    /// What changed, in Table 1's words.
    pub fn describe(self) -> &'static str {
        match self {
            ChangeLabel::MMB => "body of method modified",
            ChangeLabel::MMS => "signature of method modified",
            ChangeLabel::MF => "field modified",
            ChangeLabel::MC => "declaration of class modified",
            ChangeLabel::MCC => "signature of constructor modified",
            ChangeLabel::MI => "import modified",
            ChangeLabel::AM => "method added",
            ChangeLabel::AF => "field added",
            ChangeLabel::AC => "class added",
            ChangeLabel::ACC => "constructor added",
            ChangeLabel::AI => "import added",
            ChangeLabel::DM => "method deleted",
            ChangeLabel::DF => "field deleted",
            ChangeLabel::DC => "class deleted",
            ChangeLabel::DCC => "constructor deleted",
            ChangeLabel::DI => "import deleted",
        }
    }

    pub fn parse(code: &str) -> Option<ChangeLabel> {
        ChangeLabel::ALL.into_iter().find(|l| l.code().eq_ignore_ascii_case(code))
    }
}

impl std::fmt::Display for ChangeLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.code())
    }
}
