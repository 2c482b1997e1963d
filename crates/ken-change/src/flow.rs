//! Where a value goes. A class that loses a base class still builds
//! objects, but an object of it no longer fits where the base was
//! expected: `new ColdObservable(messages, this)` once `TestScheduler` is
//! no `VirtualTimeScheduler`, `return self._decoder` from a method declared
//! to return a `ContentDecoder`. The checker flags the place the value
//! lands in, not the place it was made; this finds those places for a
//! name (`this`, `self`, `scheduler`, `self._decoder`) in a range of lines.

use crate::edit::parse_tree;
use ken_core::Language;
use tree_sitter::Node;

/// A name to follow, read inside `lines` (1-based, inclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueQuery {
    /// As written: `this`, `self`, `scheduler`, `self._decoder`,
    /// `this.scheduler`; or a callee's name and `()` for the value of each
    /// call of it (`make_null_session()` matches `interface.make_null_session(app)`).
    pub name: String,
    pub lines: (u32, u32),
}

/// One read of a query's name as a whole value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueRead {
    /// The index of the query in the request.
    pub query: usize,
    pub line: u32,
    pub col: u32,
    pub place: Place,
}

/// Where the value lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// An argument of a call: its callee's name (where the call's reference
    /// is: `f`, `send`, `super`, the class of `new C(…)`) and the slot.
    Argument { callee: String, line: u32, col: u32, slot: Slot },
    /// Returned from a function whose declared return type is `declared`
    /// (`None`: not declared, or an arrow function's expression body without one).
    Return { declared: Option<String> },
    /// Assigned to a member, as written: `x.delegate = this`, `self.session = value`.
    Member(String),
    /// Destructured: `const { actions } = this`, the names taken.
    Destructured(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Position(usize),
    Keyword(String),
}

/// Every read of each query's name that passes, returns, stores or
/// destructures it whole; not a read of one of its members (`this.f()`),
/// a comparison, or an assignment to the name.
pub fn value_reads(language: Language, source: &str, queries: &[ValueQuery]) -> Vec<ValueRead> {
    let Some(tree) = parse_tree(language, source) else { return Vec::new() };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let (first, last) = (node.start_position().row as u32 + 1, node.end_position().row as u32 + 1);
        if !queries.iter().any(|q| first <= q.lines.1 && last >= q.lines.0) {
            continue;
        }
        let written = match node.kind() {
            "identifier" | "this" | "attribute" | "member_expression" => Some(source[node.byte_range()].to_string()),
            "call" | "call_expression" => callee_name(node).map(|n| format!("{}()", &source[n.byte_range()])),
            _ => None,
        };
        if let Some(written) = written {
            for (i, query) in queries.iter().enumerate() {
                if query.name == written
                    && (query.lines.0..=query.lines.1).contains(&first)
                    && let Some(place) = place(node, source)
                {
                    out.push(ValueRead { query: i, line: first, col: node.start_position().column as u32 + 1, place });
                }
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    out.sort_by_key(|r| (r.line, r.col, r.query));
    out
}

/// A function written in place as an argument (`operate((source,
/// subscriber) => …)`): its parameters are typed by the callee's
/// declaration of that slot, not by the lambda.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LambdaArgument {
    /// Where it is passed, as [`Place::Argument`] says it.
    pub callee: String,
    pub line: u32,
    pub col: u32,
    pub slot: Slot,
    /// Its parameters in order: the name of each one written without a
    /// type, `None` for one with a type or a pattern.
    pub untyped: Vec<Option<String>>,
    /// Its lines (1-based, inclusive).
    pub lines: (u32, u32),
}

/// Every arrow function and function expression passed as an argument
/// that has a parameter written without a type (TypeScript, JavaScript).
pub fn lambda_arguments(language: Language, source: &str) -> Vec<LambdaArgument> {
    let Some(tree) = parse_tree(language, source) else { return Vec::new() };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if !matches!(node.kind(), "arrow_function" | "function_expression" | "function") {
            continue;
        }
        let Some(Place::Argument { callee, line, col, slot }) = node.parent().and_then(|list| match list.kind() {
            "arguments" => argument(list, node, None, source),
            _ => None,
        }) else {
            continue;
        };
        let untyped: Vec<Option<String>> = match node.child_by_field_name("parameter") {
            Some(lone) => vec![Some(source[lone.byte_range()].to_string())],
            None => {
                let Some(list) = node.child_by_field_name("parameters") else { continue };
                let mut cursor = list.walk();
                list.named_children(&mut cursor)
                    .filter(|p| !p.kind().contains("comment"))
                    .map(|p| {
                        let pattern = p.child_by_field_name("pattern").filter(|n| n.kind() == "identifier");
                        pattern.filter(|_| p.child_by_field_name("type").is_none()).map(|n| source[n.byte_range()].to_string())
                    })
                    .collect()
            }
        };
        if untyped.iter().any(Option::is_some) {
            let lines = (node.start_position().row as u32 + 1, node.end_position().row as u32 + 1);
            out.push(LambdaArgument { callee, line, col, slot, untyped, lines });
        }
    }
    out.sort_by_key(|l| (l.lines, l.col));
    out
}

/// The parameter types of a function type as written
/// (`(liftedSource: Observable<T>, subscriber: Subscriber<R>) => void`):
/// `Observable<T>`, `Subscriber<R>`; empty for any other type.
pub fn function_type_parameters(type_text: &str) -> Vec<String> {
    let text = type_text.trim();
    let Some(inner) = text.strip_prefix('(') else { return Vec::new() };
    let (mut depth, mut end) = (1usize, None);
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' if !(c == '>' && inner[..i].ends_with('=')) => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(end) = end else { return Vec::new() };
    if !inner[end + 1..].trim_start().starts_with("=>") {
        return Vec::new();
    }
    let mut params = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    let list = &inner[..end];
    for (i, c) in list.char_indices().chain(std::iter::once((list.len(), ','))) {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' if !(c == '>' && list[..i].ends_with('=')) => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                let param = list[start..i].trim();
                let (name, declared) = param.split_once(':').map_or((param, ""), |(n, t)| (n.trim(), t.trim()));
                // `this: T` declares what `this` is, not a parameter.
                if !param.is_empty() && name != "this" {
                    params.push(declared.to_string());
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    params
}

fn place(node: Node<'_>, source: &str) -> Option<Place> {
    let parent = node.parent()?;
    let is = |field: &str, of: Node<'_>| of.child_by_field_name(field).is_some_and(|n| n.id() == node.id());
    match parent.kind() {
        "argument_list" | "arguments" => argument(parent, node, None, source),
        "keyword_argument" if is("value", parent) => {
            let keyword = parent.child_by_field_name("name").map(|n| source[n.byte_range()].to_string())?;
            argument(parent.parent()?, parent, Some(keyword), source)
        }
        "return_statement" => Some(Place::Return { declared: declared_return(parent, source) }),
        "arrow_function" if is("body", parent) => {
            Some(Place::Return { declared: parent.child_by_field_name("return_type").map(|t| type_text(t, source)) })
        }
        "assignment" | "assignment_expression" | "augmented_assignment"
            if is("right", parent)
                && parent.child_by_field_name("left").is_some_and(|l| matches!(l.kind(), "attribute" | "member_expression")) =>
        {
            let target = parent.child_by_field_name("left")?;
            Some(Place::Member(source[target.byte_range()].to_string()))
        }
        "variable_declarator" if is("value", parent) => {
            let pattern = parent.child_by_field_name("name").filter(|n| n.kind() == "object_pattern")?;
            let mut names = Vec::new();
            let mut cursor = pattern.walk();
            for part in pattern.named_children(&mut cursor) {
                let key = match part.kind() {
                    "shorthand_property_identifier_pattern" => Some(part),
                    "pair_pattern" => part.child_by_field_name("key"),
                    _ => None,
                };
                names.extend(key.map(|k| source[k.byte_range()].to_string()));
            }
            Some(Place::Destructured(names))
        }
        _ => None,
    }
}

/// The call around an argument list, its callee's name node, and the
/// argument's slot among the positional ones or by keyword.
fn argument(list: Node<'_>, argument: Node<'_>, keyword: Option<String>, source: &str) -> Option<Place> {
    let call = list.parent()?;
    let name = callee_name(call)?;
    let slot = match keyword {
        Some(k) => Slot::Keyword(k),
        None => {
            let mut cursor = list.walk();
            let before = list
                .named_children(&mut cursor)
                .take_while(|n| n.id() != argument.id())
                .filter(|n| !n.kind().contains("comment") && n.kind() != "keyword_argument")
                .count();
            Slot::Position(before)
        }
    };
    Some(Place::Argument {
        callee: source[name.byte_range()].to_string(),
        line: name.start_position().row as u32 + 1,
        col: name.start_position().column as u32 + 1,
        slot,
    })
}

/// The node that names a call's callee: `f`, the `send` of `a.b.send(…)`,
/// the class of `new C(…)`, `super`.
fn callee_name(call: Node<'_>) -> Option<Node<'_>> {
    let callee = call.child_by_field_name("function").or_else(|| call.child_by_field_name("constructor"))?;
    match callee.kind() {
        "attribute" => callee.child_by_field_name("attribute"),
        "member_expression" => callee.child_by_field_name("property"),
        _ => Some(callee),
    }
}

/// The declared return type of the function a `return` is in.
fn declared_return(statement: Node<'_>, source: &str) -> Option<String> {
    let mut at = statement.parent();
    while let Some(node) = at {
        if matches!(
            node.kind(),
            "function_definition" | "function_declaration" | "method_definition" | "arrow_function" | "function_expression" | "function"
        ) {
            return node.child_by_field_name("return_type").map(|t| type_text(t, source));
        }
        at = node.parent();
    }
    None
}

/// A type as written, without TypeScript's leading `:`.
fn type_text(node: Node<'_>, source: &str) -> String {
    source[node.byte_range()].trim_start_matches(':').trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    /// Each query is `name@first-last`; the reads found, one per line.
    fn check(language: Language, source: &str, queries: &[&str], expect: Expect) {
        let queries: Vec<ValueQuery> = queries
            .iter()
            .map(|q| {
                let (name, lines) = q.split_once('@').unwrap();
                let (a, b) = lines.split_once('-').unwrap();
                ValueQuery { name: name.to_string(), lines: (a.parse().unwrap(), b.parse().unwrap()) }
            })
            .collect();
        let shown: Vec<String> = value_reads(language, source, &queries)
            .iter()
            .map(|r| format!("{} {}:{} {:?}", queries[r.query].name, r.line, r.col, r.place))
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn python_values_passed_returned_and_stored() {
        check(
            Language::Python,
            "class Stream:\n    def wrap(self) -> Decoder:\n        register(self, key=self)\n        self.close()\n        if self is None:\n            return self\n        self.owner.stream = self\n        return self._decoder\n\n\ndef f(s: Stream):\n    s = other\n    send(url, stream=s)\n    self.session = interface.make_null_session(app)\n",
            &["self@1-8", "self._decoder@1-8", "s@11-13", "make_null_session()@1-14"],
            expect![[r#"
                self 3:18 Argument { callee: "register", line: 3, col: 9, slot: Position(0) }
                self 3:28 Argument { callee: "register", line: 3, col: 9, slot: Keyword("key") }
                self 6:20 Return { declared: Some("Decoder") }
                self 7:29 Member("self.owner.stream")
                self._decoder 8:16 Return { declared: Some("Decoder") }
                s 13:22 Argument { callee: "send", line: 13, col: 5, slot: Keyword("stream") }
                make_null_session() 14:20 Member("self.session")"#]],
        );
    }

    #[test]
    fn lambdas_passed_as_arguments_and_function_types() {
        let source = "export function map() {\n  return operate((source, subscriber) => {\n    subscriber.add(1);\n  });\n}\nconst f = fromEvent(x, function (ev) { return ev; });\nfoo(a => a.b);\nbar((x: number, { y }) => x);\n";
        let shown: Vec<String> = lambda_arguments(Language::TypeScript, source).iter().map(|l| format!("{l:?}")).collect();
        expect![[r#"
            LambdaArgument { callee: "operate", line: 2, col: 10, slot: Position(0), untyped: [Some("source"), Some("subscriber")], lines: (2, 4) }
            LambdaArgument { callee: "fromEvent", line: 6, col: 11, slot: Position(1), untyped: [Some("ev")], lines: (6, 6) }
            LambdaArgument { callee: "foo", line: 7, col: 1, slot: Position(0), untyped: [Some("a")], lines: (7, 7) }"#]].assert_eq(&shown.join("\n"));
        let types = function_type_parameters(
            "(this: Observable<T>, source: Observable<T>, subscriber: Subscriber<R>, f: (x: A) => B, ...rest: T[]) => (() => void) | void",
        );
        expect!["Observable<T> | Subscriber<R> | (x: A) => B | T[]"].assert_eq(&types.join(" | "));
        assert!(function_type_parameters("Subscriber<R>").is_empty());
    }

    #[test]
    fn typescript_values_passed_returned_stored_and_destructured() {
        check(
            Language::TypeScript,
            "class T extends V {\n  run(scheduler: T) {\n    super(scheduler, work);\n    const cold = new ColdObservable<T>(messages, this);\n    provider.delegate = this;\n    const { actions, now: at } = this;\n    this.flush();\n    return () => this;\n  }\n}\n",
            &["this@1-10", "scheduler@2-9"],
            expect![[r#"
                scheduler 3:11 Argument { callee: "super", line: 3, col: 5, slot: Position(0) }
                this 4:50 Argument { callee: "ColdObservable", line: 4, col: 22, slot: Position(1) }
                this 5:25 Member("provider.delegate")
                this 6:34 Destructured(["actions", "now"])
                this 8:18 Return { declared: None }"#]],
        );
    }
}
